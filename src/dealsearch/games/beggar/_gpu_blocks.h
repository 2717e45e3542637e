/* Deals by rank, for the GPU kernels bmn_unrank and bmn_blocks (an exhaustive search's block
 * of ranks) and their CPU build: a deal's rank turned into its cards, and a deal stepped to
 * the next in rank order.
 *
 * Ranks number the distinct orderings of the deck (a multiset of card classes) in
 * lexicographic order of the row, card 0 first: the CPU's numbering (search/distinct.py), and
 * N1k06's. A deal is bit-planes, as the rest of the kernel deals them (bit i of planes[b]:
 * bit b of the class of card i), so both functions work on whole words:
 *
 * - ds_unrank: the classic walk (at each position, the first class whose orderings of the
 *   rest reach past the rank), counting in 128 bits (a 52-card deck has 6.5e20 orderings),
 *   with only multiplications and divisions by small numbers, and no array a thread would
 *   have to keep in local memory (the cards left of each class are bytes of one word).
 *   About 150 64-bit divisions: bmn_unrank does it once per span of DS_SPAN deals.
 * - ds_next_planes: std::next_permutation without a loop: the last rise (a card below the
 *   one after it) and the last card above it found with one compare of every position at
 *   once and a count of leading zeros, the two swapped, and the suffix reversed with a bit
 *   reversal. About 60 instructions, no branch but the last ordering's.
 */
#ifndef DS_GPU_BLOCKS_H
#define DS_GPU_BLOCKS_H

#include "_deals.h"

#define DS_CLASSES 8        /* classes a deal's three planes hold */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
DS_FN int ds_clz(ds_u64 x) { return __clzll((long long)x); }
DS_FN ds_u64 ds_brev(ds_u64 x) { return __brevll(x); }
#else
DS_FN int ds_clz(ds_u64 x) { return __builtin_clzll(x); }
DS_FN ds_u64 ds_brev(ds_u64 x)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    return __builtin_bswap64(x);
}
#endif

/* A rank: hi * 2^64 + lo. */
typedef struct {
    ds_u64 hi, lo;
} ds_u128;

/* What a rank means (the host fills it). */
typedef struct {
    ds_u64 deck_word;       /* cards of class c in bits 8c..8c+7 */
    int total;              /* cards in the deck */
    ds_u128 space;          /* its orderings: ranks 0 .. space - 1 */
    ds_u128 first;          /* the rank of the run's deal 0 */
} ds_ranks;

DS_FN int ds_below(ds_u128 a, ds_u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

DS_FN ds_u128 ds_add(ds_u128 a, ds_u64 b)
{
    ds_u128 sum = {a.hi + (a.lo + b < a.lo), a.lo + b};
    return sum;
}

DS_FN ds_u128 ds_sub(ds_u128 a, ds_u128 b)
{
    ds_u128 diff = {a.hi - b.hi - (a.lo < b.lo), a.lo - b.lo};
    return diff;
}

/* a * m + c, for m, c below 2^32 (the product is below 2^128) */
DS_FN ds_u128 ds_mul_add(ds_u128 a, ds_u64 m, ds_u64 c)
{
    const ds_u64 low = (a.lo & 0xffffffffULL) * m + c;
    const ds_u64 high = (a.lo >> 32) * m + (low >> 32);
    ds_u128 out = {a.hi * m + (high >> 32), (high << 32) | (low & 0xffffffffULL)};
    return out;
}

/* a / d, its remainder in *rest, for 0 < d < 2^32: long division by 32-bit digits */
DS_FN ds_u128 ds_div(ds_u128 a, ds_u64 d, ds_u64 *rest)
{
    ds_u128 q;
    q.hi = a.hi / d;
    ds_u64 r = a.hi % d;
    const ds_u64 t1 = (r << 32) | (a.lo >> 32);
    const ds_u64 q1 = t1 / d;
    r = t1 % d;
    const ds_u64 t0 = (r << 32) | (a.lo & 0xffffffffULL);
    q.lo = (q1 << 32) | (t0 / d);
    *rest = t0 % d;
    return q;
}

/* The deal of rank k->first + w, as bit-planes (w below the space left after k->first). */
DS_FN void ds_unrank(const ds_ranks *k, ds_u64 w, ds_u64 *planes)
{
    ds_u128 rank = ds_add(k->first, w), orderings = k->space;
    ds_u64 left = k->deck_word, p0 = 0, p1 = 0, p2 = 0;
    for (int at = 0, n = k->total; at < k->total; at++, n--) {
        /* the orderings of the rest that start with class c: orderings * left_c / n, which
         * is a whole number: q * left_c + r * left_c / n for orderings = q * n + r */
        ds_u64 r;
        const ds_u128 q = ds_div(orderings, (ds_u64)n, &r);
        for (int c = 0; c < DS_CLASSES; c++) {
            const ds_u64 have = (left >> (8 * c)) & 0xff;
            if (!have)
                continue;
            /* (r * have below 52 * 52: a 32-bit division, far cheaper on a GPU) */
            const ds_u128 first_c = ds_mul_add(q, have, (ds_u32)(r * have) / (ds_u32)n);
            if (ds_below(rank, first_c) || c == DS_CLASSES - 1) {
                p0 |= (ds_u64)(c & 1) << at;
                p1 |= (ds_u64)((c >> 1) & 1) << at;
                p2 |= (ds_u64)((c >> 2) & 1) << at;
                left -= 1ULL << (8 * c);
                orderings = first_c;
                break;
            }
            rank = ds_sub(rank, first_c);
        }
    }
    planes[0] = p0;
    planes[1] = p1;
    planes[2] = p2;
}

/* Where the 3-bit class x (planes x0..x2) is below y, bit by bit: a mask of positions. */
#define DS_CLASS_BELOW(x0, x1, x2, y0, y1, y2) \
    ((~(x2) & (y2)) | (~((x2) ^ (y2)) & ((~(x1) & (y1)) | (~((x1) ^ (y1)) & ~(x0) & (y0)))))

/* A plane with its bits i < j swapped, then the ``tail`` bits after i in reverse order. */
DS_FN ds_u64 ds_swap_reverse(ds_u64 x, int i, int j, int tail)
{
    const ds_u64 differ = ((x >> i) ^ (x >> j)) & 1;
    x ^= (differ << i) | (differ << j);
    return (x & ((2ULL << i) - 1)) | ((ds_brev(x >> (i + 1)) >> (64 - tail)) << (i + 1));
}

/* The deal of ``total`` cards in ``planes`` stepped to the next in rank order (the last one
 * stays as it is: no caller steps past it). */
DS_FN void ds_next_planes(ds_u64 *planes, int total)
{
    const ds_u64 a0 = planes[0], a1 = planes[1], a2 = planes[2];
    const ds_u64 all = (total == 64) ? ~0ULL : (1ULL << total) - 1;
    /* the last rise: the last card below the card after it */
    const ds_u64 rise = DS_CLASS_BELOW(a0, a1, a2, a0 >> 1, a1 >> 1, a2 >> 1) & (all >> 1);
    if (!rise)
        return;
    const int i = 63 - ds_clz(rise);
    const ds_u64 c0 = 0 - ((a0 >> i) & 1), c1 = 0 - ((a1 >> i) & 1), c2 = 0 - ((a2 >> i) & 1);
    /* the last card after it above it (there is one: the card after it) */
    const ds_u64 head = (2ULL << i) - 1;    /* positions 0..i */
    const int j = 63 - ds_clz(DS_CLASS_BELOW(c0, c1, c2, a0, a1, a2) & all & ~head);
    const int tail = total - 1 - i;         /* cards after i: at least one */
    planes[0] = ds_swap_reverse(a0, i, j, tail);
    planes[1] = ds_swap_reverse(a1, i, j, tail);
    planes[2] = ds_swap_reverse(a2, i, j, tail);
}

/* The first deals of spans of ``span`` deals of a run of n: span x's in starts[3x..3x+2]. */
DS_FN void ds_span_start(const ds_ranks *k, ds_u64 n, ds_u64 span, ds_u64 x, ds_u64 *starts)
{
    if (x * span < n)
        ds_unrank(k, x * span, starts + 3 * x);
}

#endif  /* DS_GPU_BLOCKS_H */
