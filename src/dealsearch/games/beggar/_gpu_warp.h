/* The few warp and block primitives the GPU kernel's body (_gpu_random.h) is written against,
 * defined twice: for CUDA, where each thread is one lane, and for the host, where one call
 * runs the 32 lanes of a warp in lockstep (each per-lane phase a loop over the lanes). So the
 * kernel's own loop and bookkeeping (work counter, dealing, histograms, hand-backs, sums) run
 * in CI on the CPU (_gpu_emulate.pyx, --device emulate), not only on a GPU.
 *
 * The body keeps to the one discipline that makes the two agree: control flow that depends on
 * a lane's data happens only inside DS_EACH_LANE; everything else is warp-uniform (decided by
 * a ballot), so on the GPU every lane of a warp reaches each collective together.
 *
 *   DS_LANES            lanes held per warp (32 on the host; 1 on the GPU: this thread's)
 *   DS_EACH_LANE(l)     run the braces for each lane l of the warp (on the GPU: its own)
 *   DS_MINE(l)          the index of lane l's entry in a per-lane array of DS_LANES
 *   DS_BALLOT(l, pred)  bit l set where pred (an expression in l) holds, for every lane
 *   ds_popc, ds_warp_take (one atomicAdd on the work counter for the warp, broadcast),
 *   ds_atomic_add32/64 (shared or global memory), DS_BLOCK_FOR (a block-strided loop),
 *   DS_SYNC_WARP (the warp's barrier for its shared memory; on the host: nothing to do)
 * The block's barriers sit between the phases the kernels (_gpu_kernel.cu) and the host's grid
 * (ds_host_grid) call in the same order. Both kernels' bodies (random deals, and a block of
 * ranks dealt by _gpu_blocks.h) are written this way, in _gpu_random.h.
 */
#ifndef DS_GPU_WARP_H
#define DS_GPU_WARP_H

#include "_deals.h"

#define DS_WARP 32

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#define DS_LANES 1
#define DS_EACH_LANE(l) for ([[maybe_unused]] int l = (int)(threadIdx.x & 31u), l##_once = 1; \
                             l##_once; l##_once = 0)
#define DS_MINE(l) 0
#define DS_BALLOT(l, pred) __ballot_sync(0xffffffffu, (pred))
#define DS_BLOCK_FOR(i, n) for (int i = (int)threadIdx.x; i < (n); i += (int)blockDim.x)
#define DS_SYNC_WARP() __syncwarp()

DS_FN int ds_popc(unsigned x) { return __popc(x); }

/* ``count`` consecutive numbers from the counter, for the whole warp: one atomic, by lane 0 */
DS_FN ds_u64 ds_warp_take(ds_u64 *counter, unsigned count)
{
    ds_u64 base = 0;
    if ((threadIdx.x & 31u) == 0)
        base = atomicAdd((unsigned long long *)counter, (unsigned long long)count);
    return __shfl_sync(0xffffffffu, base, 0);
}

DS_FN ds_u32 ds_atomic_add32(ds_u32 *at, ds_u32 v) { return atomicAdd(at, v); }
DS_FN ds_u64 ds_atomic_add64(ds_u64 *at, ds_u64 v)
{
    return atomicAdd((unsigned long long *)at, (unsigned long long)v);
}

#else   /* the host: one thread plays every lane of a warp, and every warp, in turn */

#define DS_LANES DS_WARP
#define DS_EACH_LANE(l) for (int l = 0; l < DS_WARP; l++)
#define DS_MINE(l) (l)
#define DS_BALLOT(l, pred) __extension__ ({ \
    unsigned ds_ballot_ = 0; \
    for (int l = 0; l < DS_WARP; l++) \
        ds_ballot_ |= (unsigned)((pred) ? 1 : 0) << l; \
    ds_ballot_; })
#define DS_BLOCK_FOR(i, n) for (int i = 0; i < (n); i++)
#define DS_SYNC_WARP() ((void)0)

DS_FN int ds_popc(unsigned x) { return __builtin_popcount(x); }

DS_FN ds_u64 ds_warp_take(ds_u64 *counter, unsigned count)
{
    const ds_u64 base = *counter;
    *counter += count;
    return base;
}

DS_FN ds_u32 ds_atomic_add32(ds_u32 *at, ds_u32 v) { const ds_u32 was = *at; *at += v; return was; }
DS_FN ds_u64 ds_atomic_add64(ds_u64 *at, ds_u64 v) { const ds_u64 was = *at; *at += v; return was; }

#endif

#endif  /* DS_GPU_WARP_H */
