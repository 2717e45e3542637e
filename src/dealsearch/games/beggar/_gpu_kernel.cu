/* BMN on the GPU: two-player deals dealt and played on the device, random ones (bmn_random)
 * or a block of ranks (bmn_unrank, then bmn_blocks: an exhaustive search's).
 *
 * Compiled at run time by NVRTC (through CuPy's RawModule; see gpu.py) from kernel_source(),
 * this file with its headers pasted in. The kernels' work is in _gpu_random.h, written against
 * the warp primitives of _gpu_warp.h, which the CPU emulation (_gpu_emulate.pyx) compiles and
 * runs too, loop and bookkeeping included; here are only the entry points that call it in
 * order. bmn_records then finds each chunk's record-setting deals, so only those and the
 * hand-backs go back to the host.
 */
#include "_gpu_random.h"

/* A block's part of a run: its sums begun, its warps' turns until the work is done, its sums
 * added to the run's. */
DS_FN void ds_block_play(ds_block *s, const ds_run *r, const ds_u64 *starts)
{
    ds_block_begin(s, r);
    __syncthreads();
    ds_warp wp;
    ds_warp_begin(&wp, (int)(threadIdx.x / DS_WARP));
    while (ds_warp_turn(&wp, s, r, starts)) {
    }
    __syncthreads();
    ds_block_end(s, r);
}

extern "C" __global__ void __launch_bounds__(DS_BLOCK, 4) bmn_random(
    unsigned long long pay_word, int size0, int total, int cap_cards, int cap_tricks,
    int by_tricks, const unsigned char *courts, int n_courts,
    unsigned long long seed_key, unsigned long long first_stream,
    unsigned long long chunk_deals, unsigned long long n,
    unsigned long long *work, unsigned int *scores, unsigned long long *handbacks,
    unsigned long long *handback_count, unsigned long long handback_room,
    unsigned long long w_base, unsigned long long *totals,
    unsigned long long *card_hist, int card_bins, int card_bin,
    unsigned long long *trick_hist, int trick_bins)
{
    __shared__ ds_block s;
    const ds_run r = {
        {pay_word, size0, total, cap_cards, cap_tricks, by_tricks}, courts, n_courts,
        seed_key, first_stream, chunk_deals, n, work, scores, handbacks, handback_count,
        handback_room, w_base, totals, card_hist, card_bins, card_bin, trick_hist,
        trick_bins};
    ds_block_play(&s, &r, 0);
}

/* One thread per span of DS_SPAN deals of a run of n in rank order: its first deal (deal 0 is
 * the deal of rank first_hi * 2^64 + first_lo, of a deck of ``total`` cards, deck_word cards
 * of class c in bits 8c..8c+7, which has space_hi * 2^64 + space_lo orderings) as bit-planes
 * in starts[3x..3x+2], for bmn_blocks. */
extern "C" __global__ void bmn_unrank(
    unsigned long long deck_word, int total, unsigned long long space_hi,
    unsigned long long space_lo, unsigned long long first_hi, unsigned long long first_lo,
    unsigned long long n, unsigned long long *starts)
{
    const ds_ranks k = {deck_word, total, {space_hi, space_lo}, {first_hi, first_lo}};
    const unsigned long long spans = (n + DS_SPAN - 1) / DS_SPAN;
    for (unsigned long long x = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         x < spans; x += (unsigned long long)gridDim.x * blockDim.x)
        ds_span_start(&k, n, DS_SPAN, x, starts);
}

/* Deals 0..n-1 of a block in rank order, the first deal of each span of DS_SPAN in
 * ``starts`` (bmn_unrank's); the rest as bmn_random. */
extern "C" __global__ void __launch_bounds__(DS_BLOCK, 4) bmn_blocks(
    unsigned long long pay_word, int size0, int total, int cap_cards, int cap_tricks,
    int by_tricks, const unsigned long long *starts, unsigned long long n,
    unsigned long long *work, unsigned int *scores, unsigned long long *handbacks,
    unsigned long long *handback_count, unsigned long long handback_room,
    unsigned long long w_base, unsigned long long *totals,
    unsigned long long *card_hist, int card_bins, int card_bin,
    unsigned long long *trick_hist, int trick_bins)
{
    __shared__ ds_block s;
    const ds_run r = {
        {pay_word, size0, total, cap_cards, cap_tricks, by_tricks}, 0, 0, 0, 0, 1, n, work,
        scores, handbacks, handback_count, handback_room, w_base, totals, card_hist, card_bins,
        card_bin, trick_hist, trick_bins};
    ds_block_play(&s, &r, starts);
}

/* One thread per chunk: its record-setting deals (ds_chunk_records), as positions in the
 * chunk and scores, at most ``room`` of them in found[chunk * room ...] and
 * found_scores[chunk * room ...]; counts[chunk]: how many. */
extern "C" __global__ void bmn_records(
    const unsigned int *scores, unsigned long long n, unsigned long long chunk_deals,
    unsigned int *found, unsigned int *found_scores, int *counts, int room)
{
    const unsigned long long chunks = (n + chunk_deals - 1) / chunk_deals;
    for (unsigned long long c = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         c < chunks; c += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long start = c * chunk_deals;
        const unsigned long long len = n - start < chunk_deals ? n - start : chunk_deals;
        counts[c] = ds_chunk_records(scores + start, (ds_i64)len, found + c * room,
                                     found_scores + c * room, room);
    }
}
