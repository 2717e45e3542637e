/* The two-player BMN game one thread plays: the GPU kernel's rule step (_gpu_kernel.cu) and,
 * compiled as plain C, the CPU emulation of that kernel (_gpu_emulate.pyx), which CI tests
 * deal by deal against the exact engine. One source for both, so what CI tests is what the
 * GPU runs.
 *
 * The step is the lanes kernel's (_lanes_step.h) for one game in scalar registers: hands and
 * pile are bit-planes of card classes (bit i of plane b: bit b of the class of the card at
 * position i; numerals add no bits), and a step is
 *   - open play (only where nobody owes): the first court card in turn order is found with two
 *     count-trailing-zeros, the numerals before it go onto the pile, and the hands are named so
 *     that Y is the player who now turns that court card;
 *   - then one payment step: Y turns cards for what it owes X (in open play: "forever", so Y
 *     turns its court card at once). Paid with numerals: X takes the pile and leads. A court
 *     card: it goes onto the pile, Y now is owed, so X and Y swap. Y has no card: X wins.
 * Written as selects, not branches, so the threads of a warp stay together.
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

/* Where m is -1 take a, where 0 take b. */
#define DS_SEL(m, a, b) (((a) & (m)) | ((b) & ~(m)))

/* One step (see above); DS_OVER_* says whether the game goes on. */
DS_FN int ds_game_step(ds_game *g, const ds_table *t)
{
    ds_u64 x0 = g->x0, x1 = g->x1, x2 = g->x2, y0 = g->y0, y1 = g->y1, y2 = g->y2;
    ds_u64 p0 = g->p0, p1 = g->p1, p2 = g->p2, tu;
    int xl = g->xl, yl = g->yl, pl = g->pl, owed = g->owed, xs = g->xs, ti;

    /* ---- open play, applied where nobody owes (masks are 0 or -1) */
    const int cx = ds_ctz(x0 | x1 | x2 | (1ULL << xl));
    const int cy = ds_ctz(y0 | y1 | y2 | (1ULL << yl));
    const int open = -(owed == 0);
    const int later = -(cy < cx);               /* the follower's court card comes first */
    const int k = DS_SEL(later, cy, cx);        /* numerals each before it */
    const int dx = open & (k - later);          /* the leader turns one more if later */
    const int dy = open & k;
    x0 >>= dx; x1 >>= dx; x2 >>= dx;
    y0 >>= dy; y1 >>= dy; y2 >>= dy;
    xl -= dx;
    yl -= dy;
    pl += dx + dy;
    /* make Y the turner: swap where the leader's court card came first */
    int sw = open & ~later;
    ds_u64 swu = (ds_u64)(ds_i64)sw;
    tu = (x0 ^ y0) & swu; x0 ^= tu; y0 ^= tu;
    tu = (x1 ^ y1) & swu; x1 ^= tu; y1 ^= tu;
    tu = (x2 ^ y2) & swu; x2 ^= tu; y2 ^= tu;
    ti = (xl ^ yl) & sw; xl ^= ti; yl ^= ti;
    xs ^= sw;

    /* ---- one payment step: Y pays X, or (open play) turns its court card */
    const int c = cy & ~open;                   /* open play: Y's court card is on top */
    const int due = owed | (open & (1 << 20));  /* open play: Y "owes forever" */
    const int take = -(c >= due);               /* paid with numerals: X's trick */
    const int out = ~take & -(c == yl);         /* Y has no card to turn */
    const int court = ~(take | out);            /* Y turns a court card at c */
    const int dy2 = DS_SEL(take, due, c - court);   /* take: what was owed; court: c + 1 */
    const ds_u64 bit = ((ds_u64)(court & 1)) << c;
    const int shift = (int)((((y0 >> c) & 1) << 3) | (((y1 >> c) & 1) << 4)
                            | (((y2 >> c) & 1) << 5));
    const int paid = (int)((t->pay_word >> shift) & 0xff);
    p0 |= (y0 & bit) << pl; p1 |= (y1 & bit) << pl; p2 |= (y2 & bit) << pl;
    y0 >>= dy2; y1 >>= dy2; y2 >>= dy2;
    yl -= dy2;
    pl += dy2;

    /* X takes the pile under its hand, in order, and leads */
    const ds_u64 tk = (ds_u64)(ds_i64)take;
    x0 |= (p0 << xl) & tk; x1 |= (p1 << xl) & tk; x2 |= (p2 << xl) & tk;
    p0 &= ~tk; p1 &= ~tk; p2 &= ~tk;
    xl += pl & take;
    g->cards += pl & take;
    g->tricks -= take;
    pl &= ~take;
    /* a court card: Y is owed now, so the two swap */
    owed = paid & court;
    swu = (ds_u64)(ds_i64)court;
    tu = (x0 ^ y0) & swu; x0 ^= tu; y0 ^= tu;
    tu = (x1 ^ y1) & swu; x1 ^= tu; y1 ^= tu;
    tu = (x2 ^ y2) & swu; x2 ^= tu; y2 ^= tu;
    ti = (xl ^ yl) & court; xl ^= ti; yl ^= ti;
    xs ^= court;

    g->x0 = x0; g->x1 = x1; g->x2 = x2; g->y0 = y0; g->y1 = y1; g->y2 = y2;
    g->p0 = p0; g->p1 = p1; g->p2 = p2;
    g->xl = xl; g->yl = yl; g->pl = pl; g->owed = owed; g->xs = xs;
    /* over: someone out, or X holds every card */
    if (out | (take & -(xl == t->total)))
        return g->cards + pl >= t->cap_cards || g->tricks >= t->cap_tricks
            ? DS_OVER_HANDBACK : DS_OVER_WON;
    if (g->cards + pl >= t->cap_cards || g->tricks >= t->cap_tricks)
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
