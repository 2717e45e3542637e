/* BMN random search on the GPU: two-player deals dealt and played on the device.
 *
 * Compiled at run time by NVRTC (through CuPy's RawModule; see gpu.py), with this folder on
 * the include path: the rule step and the deal generator are the C headers the CPU emulation
 * (_gpu_emulate.pyx) and the CPU random players compile too, so a seed plays the same deals,
 * with the same results, on either.
 *
 * bmn_random is a persistent kernel: a grid sized to fill the GPU once, each thread playing
 * deals until the run's deals are all taken. Deals come from one work counter in global
 * memory; a thread takes its next deal as soon as its game ends (a warp asks once for all its
 * threads that need one), so no thread waits for the longest game of its warp, and the loop
 * body is one rule step for every thread (only taking the next deal diverges, briefly). A
 * game's state (hands and pile as bit-planes of card classes) lives in registers. Each deal's
 * score goes to ``scores`` (HANDBACK for a game past the caps, listed in ``handbacks`` for the
 * host to replay on the exact CPU engine); counts, totals and histograms are summed per block in shared memory and
 * added to global memory once per block. bmn_records then finds each chunk's record-setting
 * deals, so only those and the hand-backs go back to the host.
 */
#include "_gpu_step.h"

#define DS_MAX_BINS 4096    /* histogram bins a block sums in shared memory, per measure */

extern "C" __global__ void bmn_random(
    unsigned long long pay_word, int size0, int total, int cap_cards, int cap_tricks,
    int by_tricks, const unsigned char *courts_in, int n_courts,
    unsigned long long seed_key, unsigned long long first_stream,
    unsigned long long chunk_deals, unsigned long long n,
    unsigned long long *work,           /* the next deal to take (starts at 0) */
    unsigned int *scores,               /* n: each deal's score, or HANDBACK */
    unsigned long long *handbacks,      /* w_base + w of each deal handed back ... */
    unsigned long long *handback_count, /* ... how many (may pass handback_room) */
    unsigned long long handback_room, unsigned long long w_base,
    unsigned long long *totals,         /* won, handed back, cards, tricks (won games) */
    unsigned long long *card_hist, int card_bins, int card_bin,
    unsigned long long *trick_hist, int trick_bins)
{
    __shared__ unsigned char courts[64];
    __shared__ unsigned int s_card[DS_MAX_BINS];
    __shared__ unsigned int s_trick[DS_MAX_BINS];
    __shared__ unsigned long long s_tot[4];
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        courts[i] = i < n_courts ? courts_in[i] : 0;
    for (int i = threadIdx.x; i < DS_MAX_BINS; i += blockDim.x)
        s_card[i] = s_trick[i] = 0;
    if (threadIdx.x < 4)
        s_tot[threadIdx.x] = 0;
    __syncthreads();

    ds_table t;
    t.pay_word = pay_word; t.size0 = size0; t.total = total;
    t.cap_cards = cap_cards; t.cap_tricks = cap_tricks; t.by_tricks = by_tricks;
    const int lane = threadIdx.x & 31;
    unsigned long long won = 0, handed = 0, sum_cards = 0, sum_tricks = 0;
    unsigned long long w = 0;
    int need = 1;
    ds_game g;
    ds_u64 planes[3];

    for (;;) {
        if (need) {
            /* the threads of this warp that need a deal take consecutive ones at once */
            const unsigned mask = __activemask();
            const int leader = __ffs(mask) - 1;
            const int rank = __popc(mask & ((1u << lane) - 1));
            unsigned long long base = 0;
            if (lane == leader)
                base = atomicAdd(work, (unsigned long long)__popc(mask));
            base = __shfl_sync(mask, base, leader);
            w = base + rank;
            need = 0;
            if (w >= n) {
                break;
            }
            ds_deal_of(seed_key, first_stream, chunk_deals, w, courts, n_courts, total,
                       planes);
            ds_game_start(&g, &t, planes);
        }
        const int over = ds_game_step(&g, &t);
        if (over == DS_OVER_PLAYING)
            continue;
        if (over == DS_OVER_WON) {
            int winner, cards, tricks;
            ds_game_result(&g, &winner, &cards, &tricks);
            scores[w] = (unsigned int)(by_tricks ? tricks : cards);
            won++;
            sum_cards += cards;
            sum_tricks += tricks;
            const int cb = cards / card_bin;    /* the last bin takes every longer game */
            atomicAdd(&s_card[cb < card_bins ? cb : card_bins - 1], 1u);
            atomicAdd(&s_trick[tricks < trick_bins ? tricks : trick_bins - 1], 1u);
        } else {
            scores[w] = DS_HANDBACK;
            handed++;
            const unsigned long long at = atomicAdd(handback_count, 1ull);
            if (at < handback_room)
                handbacks[at] = w_base + w;
        }
        need = 1;
    }

    /* sums: per warp by shuffles, per block in shared memory, then one add per block */
    for (int off = 16; off > 0; off >>= 1) {
        won += __shfl_down_sync(0xffffffffu, won, off);
        handed += __shfl_down_sync(0xffffffffu, handed, off);
        sum_cards += __shfl_down_sync(0xffffffffu, sum_cards, off);
        sum_tricks += __shfl_down_sync(0xffffffffu, sum_tricks, off);
    }
    if (lane == 0) {
        atomicAdd(&s_tot[0], won);
        atomicAdd(&s_tot[1], handed);
        atomicAdd(&s_tot[2], sum_cards);
        atomicAdd(&s_tot[3], sum_tricks);
    }
    __syncthreads();
    if (threadIdx.x < 4)
        atomicAdd(&totals[threadIdx.x], s_tot[threadIdx.x]);
    for (int i = threadIdx.x; i < card_bins; i += blockDim.x)
        if (s_card[i])
            atomicAdd(&card_hist[i], (unsigned long long)s_card[i]);
    for (int i = threadIdx.x; i < trick_bins; i += blockDim.x)
        if (s_trick[i])
            atomicAdd(&trick_hist[i], (unsigned long long)s_trick[i]);
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
