/* BMN's deal generator: deal d of stream s of a run seeded with seed is a pure function of
 * (seed, s, d), computed the same way in C (the CPU random players) and in CUDA (the GPU
 * kernel, _gpu_kernel.cu), so both play exactly the same deals.
 *
 * Why counter-based: a sequential generator (xoshiro) makes deal d depend on every deal before
 * it in its stream, so thousands of GPU threads could not each start on their own deal. Here
 * the random words of a deal come from a counter: word w of deal d is
 *
 *     mix(key + (d * DS_DEAL_WORDS + w + 1) * GAMMA),     key = mix(seed_key ^ s * STREAM_MUL)
 *
 * where mix is splitmix64's finaliser (a bijection of 64-bit words that passes BigCrush when
 * fed a Weyl sequence, which is what key + c * GAMMA is) and seed_key = mix(seed + GAMMA).
 * Distinct counters give distinct words' inputs within a stream, and distinct streams distinct
 * keys. A deal reads about 3 words (52 cards, 16 courts); one that needs more than
 * DS_DEAL_WORDS (far below one in 10^40 for 52 cards) reads on into the next deal's counters,
 * which is still a pure function of (seed, s, d).
 *
 * The dealing itself is the rejection dealer documented at ds_deal_planes below; its result is
 * bit-planes (bit i of planes[b]: bit b of the class of card i), as _engine.pxd's Hand.
 */
#ifndef DS_DEALS_H
#define DS_DEALS_H

/* Fixed-width types under names of our own: NVRTC compiles without the C library's headers
 * (and so without <stdint.h>), and these names can clash with nothing it may define. Both
 * CUDA compilers (NVRTC, nvcc) take the same branch: the types of the kernels' parameters. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
typedef unsigned long long ds_u64;
typedef long long ds_i64;
typedef unsigned int ds_u32;
typedef unsigned char ds_u8;
#else
#include <stdint.h>
typedef uint64_t ds_u64;
typedef int64_t ds_i64;
typedef uint32_t ds_u32;
typedef uint8_t ds_u8;
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define DS_FN __device__ __forceinline__  /* not static: unused ones draw no warning */
#else
#define DS_FN static inline
#endif

#define DS_GAMMA 0x9e3779b97f4a7c15ULL
#define DS_STREAM_MUL 0xd1342543de82ef95ULL
#define DS_DEAL_WORDS 64ULL     /* counters reserved per deal */

/* splitmix64's finaliser */
DS_FN ds_u64 ds_mix(ds_u64 z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The run's key, from its seed. */
DS_FN ds_u64 ds_seed_key(ds_u64 seed)
{
    return ds_mix(seed + DS_GAMMA);
}

/* Stream s's key (a search's chunk k plays stream k). */
DS_FN ds_u64 ds_stream_key(ds_u64 seed_key, ds_u64 stream)
{
    return ds_mix(seed_key ^ (stream * DS_STREAM_MUL));
}

/* Deal ``deal`` of the stream with key ``key``: a uniformly random arrangement of the deck
 * (``courts``: the court cards' classes, ascending; the other n_cards - n_courts cards are
 * numerals, class 0), n_cards <= 64, as bit-planes. Only where the court cards lie matters,
 * so each court card in turn takes a uniformly random free position, drawn as a width-bit
 * chunk of a random word and rejected if the position is taken or past the deck; numerals
 * fill the rest. Every ordered choice of distinct positions is equally likely, so every
 * arrangement of the deck is. The loop has no unpredictable branch. */
DS_FN void ds_deal_planes(ds_u64 key, ds_u64 deal, const ds_u8 *courts, int n_courts,
                          int n_cards, ds_u64 *planes)
{
    int width = 1, per_word, left = 0, placed = 0;
    while ((1 << width) < n_cards)
        width += 1;
    per_word = 64 / width;
    const ds_u64 chunk_mask = (1ULL << width) - 1;
    /* positions past the deck count as taken */
    ds_u64 taken = n_cards < 64 ? ~((1ULL << n_cards) - 1) : 0;
    ds_u64 r = 0, counter = key + (deal * DS_DEAL_WORDS) * DS_GAMMA;
    ds_u64 p0 = 0, p1 = 0, p2 = 0;
    while (placed < n_courts) {
        if (left == 0) {
            counter += DS_GAMMA;
            r = ds_mix(counter);
            left = per_word;
        }
        const int p = (int)(r & chunk_mask);
        r >>= width;
        left -= 1;
        const ds_u64 free_bit = ((~taken) >> p) & 1;
        const ds_u64 cls = courts[placed];
        taken |= free_bit << p;
        p0 |= ((cls & 1) & free_bit) << p;
        p1 |= (((cls >> 1) & 1) & free_bit) << p;
        p2 |= (((cls >> 2) & 1) & free_bit) << p;
        placed += (int)free_bit;
    }
    planes[0] = p0;
    planes[1] = p1;
    planes[2] = p2;
}

/* Deal ``w`` of a run of whole chunks of ``chunk_deals`` deals from stream ``first_stream``
 * on: deal w % chunk_deals of stream first_stream + w / chunk_deals (how a GPU thread finds
 * its deal from the work counter). */
DS_FN void ds_deal_of(ds_u64 seed_key, ds_u64 first_stream, ds_u64 chunk_deals,
                      ds_u64 w, const ds_u8 *courts, int n_courts, int n_cards,
                      ds_u64 *planes)
{
    ds_deal_planes(ds_stream_key(seed_key, first_stream + w / chunk_deals), w % chunk_deals,
                   courts, n_courts, n_cards, planes);
}

#endif  /* DS_DEALS_H */
