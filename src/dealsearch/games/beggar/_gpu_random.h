/* The body of the GPU kernels bmn_random (random deals) and bmn_blocks (a block of ranks),
 * written once against the primitives of _gpu_warp.h: _gpu_kernel.cu runs it on the GPU (a
 * thread per lane), ds_host_grid below runs it on the CPU (a warp's 32 lanes in lockstep, the
 * grid's warps taking turns), for --device emulate and the test suite. The two kernels differ
 * only in their dealer (ds_warp_deal, ds_rank_deal). What it does, for deals 0..n-1 of a run
 * of chunks:
 *
 * - Work. A persistent grid: every warp takes deals from one work counter until none are left,
 *   and each lane takes its next deal as soon as its game ends, so no lane waits for the
 *   longest game of its warp; a turn is one rule step for every lane with a game.
 * - Dealing, warp-wide. Dealing a deal costs about six rule steps, so a lane must not deal
 *   alone while the 31 others wait: each warp keeps a backlog of dealt deals in shared memory
 *   (DS_BACKLOG). Lanes whose game ended take the next deals from it; when it holds fewer than
 *   they need, the whole warp takes 32 consecutive deals from the counter and deals them at
 *   once, one per lane. The deals are the counter-based dealer's (_deals.h), so which lane or
 *   warp plays a deal changes nothing.
 * - Dealing by rank (bmn_blocks). Deal w is the deal of rank first + w (_gpu_blocks.h): the
 *   deals are cut into spans of DS_SPAN, whose first deals bmn_unrank has unranked into
 *   ``starts`` (a thread per span: unranking takes 128-bit counting, too many registers
 *   beside a game). The warp takes 32 spans at once, one per lane; each time it deals, every
 *   lane puts its span's next deal into the backlog (the first from ``starts``, then its
 *   last deal stepped to the next, ds_next_planes). The backlog then serves as for random
 *   deals, so no lane waits for another's game either.
 * - Results. Each deal's score goes to scores[w] (DS_HANDBACK for a game past the caps, also
 *   listed in ``handbacks`` for the host to replay on the exact engine); counts, totals and
 *   histograms are summed per block in shared memory and added to global memory once per
 *   block. None of it depends on the order deals are played in, so the host gives exactly
 *   the GPU's results.
 */
#ifndef DS_GPU_RANDOM_H
#define DS_GPU_RANDOM_H

#include "_gpu_blocks.h"
#include "_gpu_step.h"
#include "_gpu_warp.h"

#define DS_MAX_BINS 4096    /* histogram bins a block sums in shared memory, per measure */
#define DS_BLOCK 256        /* threads per block */
#define DS_BLOCK_WARPS (DS_BLOCK / DS_WARP)
#define DS_BACKLOG 64       /* a warp's dealt deals in waiting: a power of two, >= 2 * 32 - 1 */
#define DS_SPAN 64          /* bmn_blocks: consecutive deals a lane walks from one unranking */

/* The kernel's arguments (see bmn_random in _gpu_kernel.cu). */
typedef struct {
    ds_table t;
    const ds_u8 *courts;
    int n_courts;
    ds_u64 seed_key, first_stream, chunk_deals;
    ds_u64 n;                   /* deals 0..n-1 (n < 2^32) */
    ds_u64 *work;               /* the next deal to take (starts at 0) */
    ds_u32 *scores;             /* n: each deal's score, or DS_HANDBACK */
    ds_u64 *handbacks;          /* w_base + w of each deal handed back ... */
    ds_u64 *handback_count;     /* ... how many (may pass handback_room) */
    ds_u64 handback_room, w_base;
    ds_u64 *totals;             /* won, handed back, cards, tricks (won games) */
    ds_u64 *card_hist;
    int card_bins, card_bin;
    ds_u64 *trick_hist;
    int trick_bins;
} ds_run;

/* A block's shared memory: 47,200 bytes, under the 48 KiB a kernel may declare statically. */
typedef struct {
    ds_u8 courts[64];
    ds_u32 card[DS_MAX_BINS];
    ds_u32 trick[DS_MAX_BINS];
    ds_u64 tot[4];
    ds_u64 planes[DS_BLOCK_WARPS][3][DS_BACKLOG];   /* each warp's backlog: the deals ... */
    ds_u32 deal[DS_BLOCK_WARPS][DS_BACKLOG];        /* ... and their numbers */
} ds_block;

/* A lane's game. (Its sums go straight to the block's: a game ends once in ~100 steps, and
 * registers kept for them would cost the GPU occupancy.) */
typedef struct {
    ds_game g;
    ds_u32 w;               /* the deal it plays */
    int playing;
} ds_lane;

/* A warp: its lanes (on the GPU, a thread holds its own) and its backlog's state, the same in
 * every lane. */
typedef struct {
    ds_lane lane[DS_LANES];
    int warp;               /* in its block */
    int head, count;        /* the backlog's oldest deal, and how many wait */
    int dry;                /* the work counter has run past n */
    ds_u64 span;            /* bmn_blocks: the first deal of the warp's spans, ... */
    int left;               /* ... how many deals each span has still to deal, ... */
    int last;               /* ... and how many lanes dealt last time */
} ds_warp;

DS_FN void ds_block_begin(ds_block *s, const ds_run *r)
{
    DS_BLOCK_FOR(i, 64)
        s->courts[i] = i < r->n_courts ? r->courts[i] : 0;
    DS_BLOCK_FOR(i, DS_MAX_BINS)
        s->card[i] = s->trick[i] = 0;
    DS_BLOCK_FOR(i, 4)
        s->tot[i] = 0;
}

DS_FN void ds_warp_begin(ds_warp *wp, int warp)
{
    wp->warp = warp;
    wp->head = wp->count = wp->dry = wp->left = wp->last = 0;
    wp->span = 0;
    DS_EACH_LANE(l) {
        ds_lane *me = &wp->lane[DS_MINE(l)];
        me->playing = 0;
    }
}

/* The whole warp takes the next 32 deals and deals them into its backlog, one per lane. */
DS_FN void ds_warp_deal(ds_warp *wp, ds_block *s, const ds_run *r)
{
    const ds_u64 base = ds_warp_take(r->work, DS_WARP);
    DS_SYNC_WARP();         /* the slots written below were read in an earlier turn */
    DS_EACH_LANE(l) {
        const ds_u64 w = base + (ds_u64)l;
        if (w < r->n) {
            ds_u64 planes[3];
            ds_deal_of(r->seed_key, r->first_stream, r->chunk_deals, w, s->courts,
                       r->n_courts, r->t.total, planes);
            const int at = (wp->head + wp->count + l) & (DS_BACKLOG - 1);
            s->planes[wp->warp][0][at] = planes[0];
            s->planes[wp->warp][1][at] = planes[1];
            s->planes[wp->warp][2][at] = planes[2];
            s->deal[wp->warp][at] = (ds_u32)w;
        }
    }
    DS_SYNC_WARP();         /* every lane sees the whole backlog */
    wp->count += base >= r->n ? 0 : r->n - base < DS_WARP ? (int)(r->n - base) : DS_WARP;
    wp->dry = base + DS_WARP >= r->n;
}

/* The whole warp deals the next deal of each of its spans into its backlog: deal span +
 * l * DS_SPAN + step, from lane l. A lane reads its span's first deal from ``starts`` (the
 * warp takes 32 new spans when they are spent), and steps its last deal, which is still in
 * the backlog, to the next (the backlog's slots are rewritten only by deals, and the last
 * deals are the ``last`` slots before the first free one), so a lane keeps no deal in its
 * registers. */
DS_FN void ds_rank_deal(ds_warp *wp, ds_block *s, const ds_run *r, const ds_u64 *starts)
{
    const int fresh = wp->left == 0;
    if (fresh) {
        wp->span = ds_warp_take(r->work, DS_WARP * DS_SPAN);
        wp->left = DS_SPAN;
    }
    const ds_u64 first = wp->span + (ds_u64)(DS_SPAN - wp->left);  /* lane 0's deal */
    const int end = wp->head + wp->count;       /* the backlog's first free slot */
    DS_SYNC_WARP();         /* the slots written below were read in an earlier turn */
    DS_EACH_LANE(l) {
        const ds_u64 w = first + (ds_u64)l * DS_SPAN;
        if (w < r->n) {
            ds_u64 planes[3];
            if (fresh) {    /* w is a span's first deal */
                planes[0] = starts[3 * (w / DS_SPAN)];
                planes[1] = starts[3 * (w / DS_SPAN) + 1];
                planes[2] = starts[3 * (w / DS_SPAN) + 2];
            } else {        /* (never a slot written now: a lane dealing now dealt last time) */
                const int was = (end + DS_BACKLOG - wp->last + l) & (DS_BACKLOG - 1);
                planes[0] = s->planes[wp->warp][0][was];
                planes[1] = s->planes[wp->warp][1][was];
                planes[2] = s->planes[wp->warp][2][was];
                ds_next_planes(planes, r->t.total);
            }
            const int at = (end + l) & (DS_BACKLOG - 1);
            s->planes[wp->warp][0][at] = planes[0];
            s->planes[wp->warp][1][at] = planes[1];
            s->planes[wp->warp][2][at] = planes[2];
            s->deal[wp->warp][at] = (ds_u32)w;
        }
    }
    DS_SYNC_WARP();         /* every lane sees the whole backlog */
    /* the lanes whose deal is below n: a prefix of the warp */
    const ds_u64 dealt = first < r->n ? (r->n - first + DS_SPAN - 1) / DS_SPAN : 0;
    wp->last = dealt < DS_WARP ? (int)dealt : DS_WARP;
    wp->count += wp->last;
    wp->left--;
    wp->dry = wp->left ? first + 1 >= r->n : wp->span + (ds_u64)DS_WARP * DS_SPAN >= r->n;
}

/* A lane's game ended (DS_OVER_WON or DS_OVER_HANDBACK): its score and sums. */
DS_FN void ds_lane_settle(ds_lane *me, int over, ds_block *s, const ds_run *r)
{
    if (over == DS_OVER_WON) {
        int winner, cards, tricks;
        ds_game_result(&me->g, &winner, &cards, &tricks);
        r->scores[me->w] = (ds_u32)(r->t.by_tricks ? tricks : cards);
        ds_atomic_add64(&s->tot[0], 1ull);
        ds_atomic_add64(&s->tot[2], (ds_u64)cards);
        ds_atomic_add64(&s->tot[3], (ds_u64)tricks);
        const int cb = cards / r->card_bin;     /* the last bin takes every longer game */
        ds_atomic_add32(&s->card[cb < r->card_bins ? cb : r->card_bins - 1], 1u);
        ds_atomic_add32(&s->trick[tricks < r->trick_bins ? tricks : r->trick_bins - 1], 1u);
    } else {
        r->scores[me->w] = DS_HANDBACK;
        ds_atomic_add64(&s->tot[1], 1ull);
        const ds_u64 at = ds_atomic_add64(r->handback_count, 1ull);
        if (at < r->handback_room)
            r->handbacks[at] = r->w_base + me->w;
    }
}

/* One turn of a warp: the lanes without a game take one from the backlog (the warp deals
 * first if it holds too few: by rank given its spans' ``starts``, else random deals),
 * then every lane with a game plays one step, and settles the game if it ended. Returns 0
 * once the warp has nothing left to play. */
DS_FN int ds_warp_turn(ds_warp *wp, ds_block *s, const ds_run *r, const ds_u64 *starts)
{
    const unsigned idle = DS_BALLOT(l, !wp->lane[DS_MINE(l)].playing);
    if (idle) {
        const int want = ds_popc(idle);
        if (wp->count < want && !wp->dry) {
            if (starts)
                ds_rank_deal(wp, s, r, starts);
            else
                ds_warp_deal(wp, s, r);
        }
        const int given = want < wp->count ? want : wp->count;
        if (given == 0 && want == DS_WARP)
            return 0;       /* no lane has a game, and the backlog is dry and empty */
        DS_EACH_LANE(l) {
            ds_lane *me = &wp->lane[DS_MINE(l)];
            const int rank = ds_popc(idle & ((1u << l) - 1u));
            if (((idle >> l) & 1u) && rank < given) {
                const int at = (wp->head + rank) & (DS_BACKLOG - 1);
                ds_u64 planes[3];
                planes[0] = s->planes[wp->warp][0][at];
                planes[1] = s->planes[wp->warp][1][at];
                planes[2] = s->planes[wp->warp][2][at];
                me->w = s->deal[wp->warp][at];
                ds_game_start(&me->g, &r->t, planes);
                me->playing = 1;
            }
        }
        wp->head = (wp->head + given) & (DS_BACKLOG - 1);
        wp->count -= given;
    }
    DS_EACH_LANE(l) {
        ds_lane *me = &wp->lane[DS_MINE(l)];
        if (me->playing) {
            const int over = ds_game_step(&me->g, &r->t);
            if (over != DS_OVER_PLAYING) {
                ds_lane_settle(me, over, s, r);
                me->playing = 0;
            }
        }
    }
    return 1;
}

/* A block's sums into the run's: one add per total and per bin used. */
DS_FN void ds_block_end(ds_block *s, const ds_run *r)
{
    DS_BLOCK_FOR(i, 4)
        ds_atomic_add64(&r->totals[i], s->tot[i]);
    DS_BLOCK_FOR(i, r->card_bins)
        if (s->card[i])
            ds_atomic_add64(&r->card_hist[i], s->card[i]);
    DS_BLOCK_FOR(i, r->trick_bins)
        if (s->trick[i])
            ds_atomic_add64(&r->trick_hist[i], s->trick[i]);
}

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <stdlib.h>

/* A kernel on the host (bmn_random, or bmn_blocks given ``starts``): ``grid`` blocks,
 * their phases in the kernel's order, the grid's warps taking turns one step at a time (so
 * they share the work counter, the backlog discipline and the block sums as the GPU's warps
 * do). Returns 0, or -1 out of memory. */
static int ds_host_grid(const ds_run *r, const ds_u64 *starts, int grid)
{
    const int warps = grid * DS_BLOCK_WARPS;
    ds_block *blocks = (ds_block *)calloc((size_t)grid, sizeof(ds_block));
    ds_warp *wps = (ds_warp *)calloc((size_t)warps, sizeof(ds_warp));
    int *live = (int *)calloc((size_t)warps, sizeof(int));
    if (!blocks || !wps || !live) {
        free(blocks); free(wps); free(live);
        return -1;
    }
    for (int b = 0; b < grid; b++)
        ds_block_begin(&blocks[b], r);
    /* __syncthreads() */
    for (int w = 0; w < warps; w++) {
        ds_warp_begin(&wps[w], w % DS_BLOCK_WARPS);
        live[w] = 1;
    }
    for (int left = warps; left > 0;) {
        for (int w = 0; w < warps; w++)
            if (live[w] && !ds_warp_turn(&wps[w], &blocks[w / DS_BLOCK_WARPS], r, starts)) {
                live[w] = 0;
                left--;
            }
    }
    /* __syncthreads() */
    for (int b = 0; b < grid; b++)
        ds_block_end(&blocks[b], r);
    free(blocks); free(wps); free(live);
    return 0;
}
#endif

#endif  /* DS_GPU_RANDOM_H */
