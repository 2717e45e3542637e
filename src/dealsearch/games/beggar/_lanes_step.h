/* One copy of the lanes kernel (see _lanes_kernel.h, which includes this file once per
 * instruction set with LW lanes, the name suffix LSUFFIX, the function attribute LTARGET and,
 * optionally, LANY(v): "is any lane of v non-zero").
 *
 * Conventions: planes are unsigned vectors (logical shifts); counts, lengths and masks are
 * signed vectors (a comparison gives -1 where true, 0 where false), small and non-negative,
 * so signed compares are exact and cheap on AVX2. Every shift count is below 64.
 */
#define LN2_(a, b) a##_##b
#define LN1_(a, b) LN2_(a, b)
#define L_(name) LN1_(name, LSUFFIX)

typedef uint64_t L_(vu) __attribute__((vector_size(8 * LW)));
typedef int64_t L_(vi) __attribute__((vector_size(8 * LW)));
typedef double L_(vd) __attribute__((vector_size(8 * LW)));

#ifndef LANY
#define L_ANY_LOOP 1
#endif

/* Count trailing zeros of each lane (a statement expression, like L_SEL a macro: the generic
 * copy's vectors would change the ABI as arguments or results of functions, which GCC warns
 * about even when they are inlined); x != 0 and its lowest set bit is below bit 52. LCTZ(x),
 * if defined, does it with the instruction set's own count. Otherwise: the lowest bit, or-ed
 * into the bits of 2^52 and read as a double, is 2^52 + 2^k exactly, so subtracting 2^52
 * leaves 2^k, whose exponent field is 1023 + k: four vector operations on any instruction set
 * with vector doubles, where AVX2 has no vector count-zeros at all. */
#ifdef LCTZ
#define L_CTZ(x) LCTZ(x)
#else
#define L_CTZ(x) ({                                                                   \
        L_(vu) x_ = (x);                                                              \
        L_(vd) d_ = (L_(vd))((x_ & -x_) | 0x4330000000000000ULL) - 4503599627370496.0; \
        (L_(vi))((L_(vu))d_ >> 52) - 1023; })
#endif

/* Where m is -1 take a, where 0 take b. */
#define L_SEL(m, a, b) (((a) & (m)) | ((b) & ~(m)))

/* The rule step's primitives (_rule_step.h) on vectors: comparisons give masks already. */
#define BMN_VU L_(vu)
#define BMN_VI L_(vi)
#define BMN_MASK(c) (c)
#define BMN_SEL(m, a, b) L_SEL(m, a, b)
#define BMN_CTZ(x) L_CTZ(x)
#define BMN_N(v) ((L_(vu))(v))
#define BMN_U(m) ((L_(vu))(m))
#define BMN_ONE one
#define BMN_BIG big

#ifdef L_ANY_LOOP
#define L_ANY(v) ({                     \
        L_(vi) v_ = (v);                \
        int64_t acc_ = 0;               \
        for (int i_ = 0; i_ < LW; i_++) \
            acc_ |= v_[i_];             \
        acc_ != 0; })
#else
#define L_ANY(v) LANY(v)
#endif

/* A lane's game, in memory: only where a game ends (rarely), so the loop keeps it in
 * registers and only this cold path sees it in memory. */
typedef struct {
    L_(vu) x0, x1, x2, y0, y1, y2, p0, p1, p2;
    L_(vi) xl, yl, pl, owed, xs, cards, tricks;
} L_(state);

typedef struct {
    const LanesTable *t;
    const uint64_t *planes;
    int64_t n;
    LaneResult *res;
    int64_t deal_of[LW];    /* the deal each lane plays, -1 for an idle lane */
    int64_t next;           /* the next deal to start */
    int64_t replays;
    int busy;               /* lanes playing a deal */
} L_(queue);

/* Start deal d (or deal 0 unseen, for an idle lane: every lane always holds a legal game). */
LTARGET static inline void L_(start)(L_(state) *s, const L_(queue) *q, int i, int64_t d)
{
    const int size0 = q->t->size0;
    const uint64_t mask0 = (1ULL << size0) - 1;
    const uint64_t *pd = q->planes + 3 * (d >= 0 ? d : 0);
    s->x0[i] = pd[0] & mask0; s->x1[i] = pd[1] & mask0; s->x2[i] = pd[2] & mask0;
    s->y0[i] = pd[0] >> size0; s->y1[i] = pd[1] >> size0; s->y2[i] = pd[2] >> size0;
    s->xl[i] = size0;
    s->yl[i] = q->t->total - size0;
    s->p0[i] = s->p1[i] = s->p2[i] = 0;
    s->pl[i] = 0;
    s->owed[i] = 0;
    s->xs[i] = 0;
    s->cards[i] = 0;
    s->tricks[i] = 0;
}

/* The lanes where ``event`` is set are over or at the caps: record their deals' results and
 * start the next deals there. */
LTARGET __attribute__((noinline)) static void L_(refill)(L_(state) *s, L_(queue) *q,
                                                        const L_(vi) *event_)
{
    const L_(vi) event = *event_;
    const LanesTable *t = q->t;
    for (int i = 0; i < LW; i++) {
        if (!event[i])
            continue;
        int64_t d = q->deal_of[i];
        if (d >= 0) {
            /* over with cards on the pile: X (the winner) takes them, one more trick */
            int64_t cards = s->cards[i], tricks = s->tricks[i], pl = s->pl[i];
            LaneResult *r = &q->res[d];
            r->winner = (int8_t)(s->xs[i] & 1);
            r->cards = cards + pl;
            r->tricks = tricks + (pl > 0);
            /* past the caps (a limited game, or one that may never end): the exact engine
             * decides. Below them the game ended unlimited, and a game that repeats a state
             * never ends, so the lanes' result is exact. */
            r->replay = (uint8_t)(cards + pl >= t->cap_cards || tricks >= t->cap_tricks);
            q->replays += r->replay;
            q->busy--;
        }
        d = -1;
        if (q->next < q->n) {
            d = q->next++;
            q->busy++;
        }
        q->deal_of[i] = d;
        L_(start)(s, q, i, d);
    }
}

LTARGET static int64_t L_(lanes_run)(const LanesTable *t, const uint64_t *planes, int64_t n,
                                     LaneResult *res)
{
    typedef L_(vu) vu;
    typedef L_(vi) vi;
    const vu one = (vu){0} + 1;
    const vu pay_word = (vu){0} + t->pay_word;
    const vi big = (vi){0} + (1 << 20);     /* "owes forever": open play's turner */
    const vi total = (vi){0} + t->total;
    const vi cap_cards = (vi){0} + t->cap_cards;
    const vi cap_tricks = (vi){0} + t->cap_tricks;
    unsigned steps = 0;
    L_(state) s;
    L_(queue) q = {t, planes, n, res, {0}, 0, 0, 0};

    if (n <= 0)
        return 0;
    memset(&s, 0, sizeof(s));
    for (int i = 0; i < LW; i++)
        q.deal_of[i] = -1;
    const vi all = (vi){0} - 1;
    L_(refill)(&s, &q, &all);           /* every lane idle so far: start the first deals */

    /* X: in open play the leader, while paying the player owed; Y: the other one. */
    vu x0 = s.x0, x1 = s.x1, x2 = s.x2, y0 = s.y0, y1 = s.y1, y2 = s.y2;
    vu p0 = s.p0, p1 = s.p1, p2 = s.p2;
    vi xl = s.xl, yl = s.yl, pl = s.pl;
    vi owed = s.owed;       /* 0: open play */
    vi xs = s.xs;           /* X's seat: 0 for seat 0, -1 for seat 1 */
    vi cards = s.cards;     /* cards in the tricks taken so far (the pile's are pl) */
    vi tricks = s.tricks;

    for (;;) {
        vi over;
#include "_rule_step.h"

        /* ---- over (someone out, or X holds every card): leave the lane. Past the caps
         * too, but that is only looked at every CAP_EVERY steps: it just sends the deal to
         * the exact engine, which replays it from the deal, so a late look changes nothing. */
        vi event = over;
        if (__builtin_expect((++steps & (CAP_EVERY - 1)) == 0, 0))
            event |= (cards + pl >= cap_cards) | (tricks >= cap_tricks);
        if (__builtin_expect(!L_ANY(event), 1))
            continue;
        s = (L_(state)){x0, x1, x2, y0, y1, y2, p0, p1, p2, xl, yl, pl, owed, xs, cards, tricks};
        L_(refill)(&s, &q, &event);
        if (q.busy == 0)
            break;
        x0 = s.x0; x1 = s.x1; x2 = s.x2; y0 = s.y0; y1 = s.y1; y2 = s.y2;
        p0 = s.p0; p1 = s.p1; p2 = s.p2;
        xl = s.xl; yl = s.yl; pl = s.pl; owed = s.owed; xs = s.xs; cards = s.cards;
        tricks = s.tricks;
    }
    return q.replays;
}

#undef L_ANY_LOOP
#undef L_ANY
#undef L_SEL
#undef L_CTZ
#undef L_
#undef LN1_
#undef LN2_
