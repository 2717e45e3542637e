/* The two-player BMN game one thread plays: the GPU kernel's rule step (_gpu_kernel.cu) and,
 * compiled as plain C, the CPU emulation of that kernel (_gpu_emulate.pyx), which CI tests
 * deal by deal against the exact engine. One source for both, so what CI tests is what the
 * GPU runs.
 *
 * The step is the lanes kernel's, for one game in scalar registers: both include the one
 * branch-free rule step, _rule_step.h (its comment says what a step does), written as selects
 * so that the threads of a warp stay together.
 *
 * No cycle detection: a game found past ``cap_cards`` cards or ``cap_tricks`` tricks is handed
 * back (DS_OVER_HANDBACK) for the exact CPU engine, which detects repeats and applies the
 * agreed limit from the deal on. A game that ends below the caps cannot have repeated a state
 * (a repeat never ends) nor reached the limit, so its result here is exact.
 *
 * Restrictions (checked by the host): two players, 2 to 52 cards (every shift below 64), and
 * cap_cards, cap_tricks below 2^30 (the counts are 32-bit).
 */
#ifndef DS_GPU_STEP_H
#define DS_GPU_STEP_H

#include "_deals.h"

#define DS_GPU_MAX_CARDS 52
#define DS_OVER_PLAYING 0       /* the game goes on */
#define DS_OVER_WON 1           /* finished below the caps: exact */
#define DS_OVER_HANDBACK 2      /* past a cap: replay on the exact engine */
#define DS_HANDBACK 0xffffffffu /* a handed-back deal's score */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
DS_FN int ds_ctz(ds_u64 x) { return __ffsll((long long)x) - 1; }
#else
DS_FN int ds_ctz(ds_u64 x) { return __builtin_ctzll(x); }
#endif

/* What the game needs of the rules and the deal (the host fills it). */
typedef struct {
    ds_u64 pay_word;      /* payment of class i in bits 8i..8i+7 */
    int size0;              /* cards of hand 1 (hand 2 holds the rest) */
    int total;              /* cards in the deal */
    int cap_cards;          /* hand back at or past these */
    int cap_tricks;
    int by_tricks;          /* the objective: tricks (else cards) */
} ds_table;

/* One game's state: X is the leader in open play, or the player owed while paying. */
typedef struct {
    ds_u64 x0, x1, x2, y0, y1, y2, p0, p1, p2;
    int xl, yl, pl;         /* lengths of X's hand, Y's hand, the pile */
    int owed;               /* 0: open play */
    int xs;                 /* X's seat: 0 for seat 0, -1 for seat 1 */
    int cards, tricks;      /* in the tricks taken so far (the pile's are pl) */
} ds_game;

DS_FN void ds_game_start(ds_game *g, const ds_table *t, const ds_u64 *planes)
{
    const int size0 = t->size0;
    const ds_u64 mask0 = (1ULL << size0) - 1;
    g->x0 = planes[0] & mask0; g->x1 = planes[1] & mask0; g->x2 = planes[2] & mask0;
    g->y0 = planes[0] >> size0; g->y1 = planes[1] >> size0; g->y2 = planes[2] >> size0;
    g->xl = size0;
    g->yl = t->total - size0;
    g->p0 = g->p1 = g->p2 = 0;
    g->pl = 0;
    g->owed = 0;
    g->xs = 0;
    g->cards = 0;
    g->tricks = 0;
}

/* The rule step's primitives (_rule_step.h) on scalars: a comparison gives 0 or 1, so its mask
 * is its negation. */
#define BMN_VU ds_u64
#define BMN_VI int
#define BMN_MASK(c) (-(int)(c))
#define BMN_SEL(m, a, b) (((a) & (m)) | ((b) & ~(m)))
#define BMN_CTZ(x) ds_ctz(x)
#define BMN_N(v) (v)
#define BMN_U(m) ((ds_u64)(ds_i64)(m))
#define BMN_ONE 1ULL
#define BMN_BIG (1 << 20)

/* One step (see above); DS_OVER_* says whether the game goes on. */
DS_FN int ds_game_step(ds_game *g, const ds_table *t)
{
    ds_u64 x0 = g->x0, x1 = g->x1, x2 = g->x2, y0 = g->y0, y1 = g->y1, y2 = g->y2;
    ds_u64 p0 = g->p0, p1 = g->p1, p2 = g->p2;
    const ds_u64 pay_word = t->pay_word;
    const int total = t->total;
    int xl = g->xl, yl = g->yl, pl = g->pl, owed = g->owed, xs = g->xs;
    int cards = g->cards, tricks = g->tricks, over;
#include "_rule_step.h"

    g->x0 = x0; g->x1 = x1; g->x2 = x2; g->y0 = y0; g->y1 = y1; g->y2 = y2;
    g->p0 = p0; g->p1 = p1; g->p2 = p2;
    g->xl = xl; g->yl = yl; g->pl = pl; g->owed = owed; g->xs = xs;
    g->cards = cards; g->tricks = tricks;
    if (over)
        return cards + pl >= t->cap_cards || tricks >= t->cap_tricks
            ? DS_OVER_HANDBACK : DS_OVER_WON;
    if (cards + pl >= t->cap_cards || tricks >= t->cap_tricks)
        return DS_OVER_HANDBACK;
    return DS_OVER_PLAYING;
}

/* A finished game's measures (DS_OVER_WON): X, the winner, takes what is on the pile. */
DS_FN void ds_game_result(const ds_game *g, int *winner, int *cards, int *tricks)
{
    *winner = g->xs & 1;
    *cards = g->cards + g->pl;
    *tricks = g->tricks + (g->pl > 0);
}

/* Chunk records: in scores[0..n) (one chunk's deals, in order), the positions of the games
 * longer than every one before them in the chunk (each chunk of a random search starts from
 * best 0), written to ``found`` and their scores to ``found_score`` (at most ``room``);
 * returns how many there are, which may be more than ``room`` (the host then replays the
 * chunk on the CPU). Handed-back deals are skipped: the host replays every chunk that has
 * one. */
DS_FN int ds_chunk_records(const ds_u32 *scores, ds_i64 n, ds_u32 *found,
                           ds_u32 *found_score, int room)
{
    ds_u32 best = 0;
    int count = 0;
    for (ds_i64 i = 0; i < n; i++) {
        const ds_u32 s = scores[i];
        if (s != DS_HANDBACK && s > best) {
            best = s;
            if (count < room) {
                found[count] = (ds_u32)i;
                found_score[count] = s;
            }
            count++;
        }
    }
    return count;
}

#endif  /* DS_GPU_STEP_H */
