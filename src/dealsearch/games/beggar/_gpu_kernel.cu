/* BMN random search on the GPU: two-player deals dealt and played on the device.
 *
 * Compiled at run time by NVRTC (through CuPy's RawModule; see gpu.py) from kernel_source(),
 * this file with its headers pasted in. The kernel's work is in _gpu_random.h, written against
 * the warp primitives of _gpu_warp.h, which the CPU emulation (_gpu_emulate.pyx) compiles and
 * runs too, loop and bookkeeping included; here are only the entry points that call it in
 * order. bmn_records then finds each chunk's record-setting deals, so only those and the
 * hand-backs go back to the host.
 */
#include "_gpu_random.h"

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
    ds_block_begin(&s, &r);
    __syncthreads();
    ds_warp wp;
    ds_warp_begin(&wp, (int)(threadIdx.x / DS_WARP));
    while (ds_warp_turn(&wp, &s, &r)) {
    }
    __syncthreads();
    ds_block_end(&s, &r);
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
