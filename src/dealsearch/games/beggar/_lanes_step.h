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

/* Count trailing zeros of each lane; x != 0 and its lowest set bit is below bit 52. The
 * lowest bit, or-ed into the bits of 2^52 and read as a double, is 2^52 + 2^k exactly, so
 * subtracting 2^52 leaves 2^k, whose exponent field is 1023 + k: four vector operations on any
 * instruction set with vector doubles, where AVX2 has no vector count-zeros at all. */
LTARGET static inline L_(vi) L_(ctz)(L_(vu) x)
{
    const L_(vu) magic = (L_(vu)){0} + 0x4330000000000000ULL;      /* 2^52 as a double */
    const L_(vd) two52 = (L_(vd)){0} + 4503599627370496.0;
    L_(vu) low = x & -x;
    L_(vd) d = (L_(vd))(low | magic) - two52;
    return (L_(vi))((L_(vu))d >> 52) - 1023;
}

/* Where m is -1 take a, where 0 take b. */
LTARGET static inline L_(vi) L_(sel)(L_(vi) m, L_(vi) a, L_(vi) b)
{
    return (a & m) | (b & ~m);
}

LTARGET static inline int L_(any)(L_(vi) v)
{
#ifdef L_ANY_LOOP
    int64_t acc = 0;
    for (int i = 0; i < LW; i++)
        acc |= v[i];
    return acc != 0;
#else
    return LANY(v);
#endif
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
    const int size0 = t->size0, size1 = t->total - t->size0;
    const uint64_t mask0 = (1ULL << size0) - 1;

    /* X: in open play the leader, while paying the player owed; Y: the other one. */
    vu x0 = {0}, x1 = {0}, x2 = {0}, y0 = {0}, y1 = {0}, y2 = {0}, p0 = {0}, p1 = {0}, p2 = {0};
    vi xl = {0}, yl = {0}, pl = {0};
    vi owed = {0};          /* 0: open play */
    vi xs = {0};            /* X's seat: 0 for seat 0, -1 for seat 1 */
    vi cards = {0};         /* cards in the tricks taken so far (the pile's are pl) */
    vi tricks = {0};
    int64_t deal_of[LW];    /* the deal each lane plays, -1 for an idle lane */
    int64_t next = 0, replays = 0;
    int busy = 0;

    if (n <= 0)
        return 0;

    for (int i = 0; i < LW; i++) {
        /* an idle lane plays deal 0 unseen, so that every lane always holds a legal game */
        int64_t d = -1;
        if (next < n) {
            d = next++;
            busy++;
        }
        deal_of[i] = d;
        if (d < 0)
            d = 0;
        const uint64_t *pd = planes + 3 * d;
        x0[i] = pd[0] & mask0; x1[i] = pd[1] & mask0; x2[i] = pd[2] & mask0;
        y0[i] = pd[0] >> size0; y1[i] = pd[1] >> size0; y2[i] = pd[2] >> size0;
        xl[i] = size0;
        yl[i] = size1;
    }

    for (;;) {
        /* ---- open play, applied where nobody owes */
        vi cx = L_(ctz)(x0 | x1 | x2 | (one << (vu)xl));
        vi cy = L_(ctz)(y0 | y1 | y2 | (one << (vu)yl));
        vi open = owed == 0;
        vi later = cy < cx;                         /* the follower's court card comes first */
        vi k = L_(sel)(later, cy, cx);              /* numerals each before it */
        vi dx = open & (k - later);                 /* the leader turns one more if later */
        vi dy = open & k;
        x0 >>= (vu)dx; x1 >>= (vu)dx; x2 >>= (vu)dx;
        y0 >>= (vu)dy; y1 >>= (vu)dy; y2 >>= (vu)dy;
        xl -= dx;
        yl -= dy;
        pl += dx + dy;
        /* make Y the turner: swap where the leader's court card came first */
        vi sw = open & ~later;
        vu swu = (vu)sw, tu;
        vi ti;
        tu = (x0 ^ y0) & swu; x0 ^= tu; y0 ^= tu;
        tu = (x1 ^ y1) & swu; x1 ^= tu; y1 ^= tu;
        tu = (x2 ^ y2) & swu; x2 ^= tu; y2 ^= tu;
        ti = (xl ^ yl) & sw; xl ^= ti; yl ^= ti;
        xs ^= sw;

        /* ---- one payment step: Y pays X, or (open play) turns its court card */
        vi c = cy & ~open;                          /* open play: Y's court card is on top */
        vi due = owed | (open & big);
        vi take = c >= due;                         /* paid with numerals: X's trick */
        vi out = ~take & (c == yl);                 /* Y has no card to turn */
        vi court = ~(take | out);                   /* Y turns a court card at c */
        vi dy2 = L_(sel)(take, due, c - court);     /* take: what was owed; court: c + 1 */
        vu cu = (vu)c;
        vu bit = ((vu)court & one) << cu;
        vu shift = (((y0 >> cu) & one) << 3) | (((y1 >> cu) & one) << 4)
                   | (((y2 >> cu) & one) << 5);
        vi paid = (vi)((pay_word >> shift) & 0xff);
        vu plu = (vu)pl;
        p0 |= (y0 & bit) << plu; p1 |= (y1 & bit) << plu; p2 |= (y2 & bit) << plu;
        vu d2 = (vu)dy2;
        y0 >>= d2; y1 >>= d2; y2 >>= d2;
        yl -= dy2;
        pl += dy2;

        /* X takes the pile under its hand, in order, and leads */
        vu tk = (vu)take, xlu = (vu)xl;
        x0 |= (p0 << xlu) & tk; x1 |= (p1 << xlu) & tk; x2 |= (p2 << xlu) & tk;
        p0 &= ~tk; p1 &= ~tk; p2 &= ~tk;
        xl += pl & take;
        cards += pl & take;
        tricks -= take;
        pl &= ~take;
        /* a court card: Y is owed now, so the two swap */
        owed = paid & court;
        swu = (vu)court;
        tu = (x0 ^ y0) & swu; x0 ^= tu; y0 ^= tu;
        tu = (x1 ^ y1) & swu; x1 ^= tu; y1 ^= tu;
        tu = (x2 ^ y2) & swu; x2 ^= tu; y2 ^= tu;
        ti = (xl ^ yl) & court; xl ^= ti; yl ^= ti;
        xs ^= court;

        /* ---- over (someone out, or X holds every card), or at the caps: leave the lane */
        vi event = out | (take & ((xl == total) | (cards >= cap_cards) | (tricks >= cap_tricks)));
        if (__builtin_expect(!L_(any)(event), 1))
            continue;
        for (int i = 0; i < LW; i++) {
            if (!event[i])
                continue;
            int64_t d = deal_of[i];
            if (d >= 0) {
                /* over with cards on the pile: X (the winner) takes them, one more trick */
                int64_t all_cards = cards[i] + pl[i], all_tricks = tricks[i] + (pl[i] > 0);
                res[d].winner = (int8_t)(xs[i] & 1);
                res[d].cards = all_cards;
                res[d].tricks = all_tricks;
                /* at the caps, or over past them (a limited game): the exact engine decides */
                res[d].replay = (uint8_t)(cards[i] >= t->cap_cards || tricks[i] >= t->cap_tricks
                                          || all_cards >= t->cap_cards);
                replays += res[d].replay;
                busy--;
            }
            if (next < n) {
                d = next++;
                busy++;
            } else {
                d = -1;
            }
            deal_of[i] = d;
            const uint64_t *pd = planes + 3 * (d >= 0 ? d : 0);
            x0[i] = pd[0] & mask0; x1[i] = pd[1] & mask0; x2[i] = pd[2] & mask0;
            y0[i] = pd[0] >> size0; y1[i] = pd[1] >> size0; y2[i] = pd[2] >> size0;
            xl[i] = size0;
            yl[i] = size1;
            p0[i] = p1[i] = p2[i] = 0;
            pl[i] = 0;
            owed[i] = 0;
            xs[i] = 0;
            cards[i] = 0;
            tricks[i] = 0;
        }
        if (busy == 0)
            break;
    }
    return replays;
}

#undef L_ANY_LOOP
#undef L_
#undef LN1_
#undef LN2_
