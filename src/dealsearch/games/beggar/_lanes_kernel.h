/* Lanes: several two-player Beggar-My-Neighbour deals played at once, one per SIMD lane.
 *
 * Why: the bit-plane engine (_engine.pyx) plays a trick in a few count-trailing-zeros, but
 * every payment asks "paid with numerals, or a court card?", a coin toss the branch predictor
 * loses about half the time. Here the same steps are written without branches, as selects on
 * whole vectors, so 4 (AVX2) or 8 (AVX-512) deals advance together and nothing is predicted
 * but "did some lane's game just end?".
 *
 * One step per lane (the same code for every lane): _rule_step.h, the branch-free rule step
 * the GPU kernel plays too (_gpu_step.h), on vectors. Hands and pile are bit-planes as in
 * _engine.pxd (bit i of plane b: bit b of the class of the card at position i); numerals add
 * no bits, so only the pile's length moves for them.
 *
 * No cycle detection: a game found past ``cap_cards`` cards or ``cap_tricks`` tricks (looked
 * at every CAP_EVERY steps, and when it ends) is flagged for replay on the exact scalar
 * engine, which detects repeats and applies the agreed limit from the deal on. A game that
 * ends below the caps cannot have repeated a state (a repeat never ends) nor reached the
 * limit, so its lane result is exact. The callers set cap_cards to min(max_cards, a bound far
 * above every known terminating game) and cap_tricks to max_tricks.
 *
 * Restrictions (checked by the caller): two players, at most LANES_MAX_CARDS cards, so every
 * position and length is below 2^52 (the count-trailing-zeros below goes through a double)
 * and every shift count below 64.
 *
 * _lanes_step.h, the kernel itself, is included three times below: for AVX-512
 * (8 lanes), AVX2 (4 lanes) and plain GCC vector extensions (4 lanes, whatever the target
 * makes of them: SSE2 on x86-64, NEON on ARM). Each copy is a function with its own target
 * attribute, chosen at run time with __builtin_cpu_supports, so one portable wheel (no
 * -march=native) uses the widest lanes the machine has.
 */
#ifndef DS_LANES_KERNEL_H
#define DS_LANES_KERNEL_H

#include <stdint.h>
#include <string.h>

#define LANES_MAX_CARDS 52
#define CAP_EVERY 64            /* steps between looks at the caps (a power of two) */

enum {
    LANES_SCALAR = 0,       /* no lanes: the caller plays each deal on the scalar engine */
    LANES_GENERIC = 1,      /* GCC vector extensions, 4 lanes, the build target's own ISA */
    LANES_AVX2 = 2,         /* 4 lanes */
    LANES_AVX512 = 3,       /* 8 lanes */
};

typedef struct {
    uint64_t pay_word;      /* payment of class i in bits 8i..8i+7 */
    int size0;              /* cards of hand 1 (hand 2 holds the rest) */
    int total;              /* cards in the deal, at most LANES_MAX_CARDS */
    int64_t cap_cards;      /* replay on the scalar engine at or past these (see above) */
    int64_t cap_tricks;
} LanesTable;

typedef struct {
    int64_t cards;
    int64_t tricks;
    int8_t winner;          /* 0-based seat; the other seat went out */
    uint8_t replay;         /* 1: not settled here, play it on the exact engine */
} LaneResult;

#if defined(__GNUC__) && !defined(__INTEL_COMPILER)
#define DS_LANES_VECTORS 1
#endif

#if defined(DS_LANES_VECTORS) && (defined(__x86_64__) || defined(__i386__))
#define DS_LANES_X86 1
#include <immintrin.h>
#endif

#ifdef DS_LANES_VECTORS

/* ---------------------------------------------------------------- the three copies */

#define LW 4
#define LSUFFIX generic
#define LTARGET
#include "_lanes_step.h"
#undef LW
#undef LSUFFIX
#undef LTARGET

#ifdef DS_LANES_X86
#define LW 4
#define LSUFFIX avx2
#define LTARGET __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define LANY(v) (!_mm256_testz_si256((__m256i)(v), (__m256i)(v)))
#include "_lanes_step.h"
#undef LW
#undef LSUFFIX
#undef LTARGET
#undef LANY

#define LW 8
#define LSUFFIX avx512
#define LTARGET __attribute__((target("avx512f,avx512cd,avx512dq,avx512vl,avx2,bmi,bmi2,popcnt")))
/* AVX-512 counts leading zeros itself (AVX512CD): ctz(x) = 63 - clz(lowest bit of x) */
#define LCTZ(x) (63 - (L_(vi))_mm512_lzcnt_epi64((__m512i)((x) & -(x))))
#define LANY(v) (_mm512_test_epi64_mask((__m512i)(v), (__m512i)(v)) != 0)
#include "_lanes_step.h"
#undef LW
#undef LSUFFIX
#undef LTARGET
#undef LANY
#undef LCTZ
#endif

/* The kernel to use by default: the widest lanes this machine runs, else the scalar engine.
 * Never LANES_GENERIC: on x86-64 without AVX2 its vectors become SSE2 pairs with every
 * variable shift split into scalar ones (about 10x slower than the scalar engine), and on
 * other machines it is unmeasured; it stays available by name, and exact. */
static int lanes_best(void)
{
#ifdef DS_LANES_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")
            && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return LANES_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
        return LANES_AVX2;
#endif
    return LANES_SCALAR;
}

/* Whether ``kind`` runs here. */
static int lanes_supported(int kind)
{
    switch (kind) {
    case LANES_SCALAR:
    case LANES_GENERIC:
        return 1;
    case LANES_AVX2:
    case LANES_AVX512:
        return lanes_best() >= kind;
    default:
        return 0;
    }
}

/* Play deals 0..n-1 (bit-planes, 3 words each) on ``kind``'s lanes; returns how many were
 * flagged for replay, or -1 if ``kind`` has no lanes here. */
static int64_t lanes_run(int kind, const LanesTable *t, const uint64_t *planes, int64_t n,
                         LaneResult *res)
{
    switch (kind) {
    case LANES_GENERIC:
        return lanes_run_generic(t, planes, n, res);
#ifdef DS_LANES_X86
    case LANES_AVX2:
        return lanes_run_avx2(t, planes, n, res);
    case LANES_AVX512:
        return lanes_run_avx512(t, planes, n, res);
#endif
    default:
        return -1;
    }
}

#else  /* no GCC vector extensions (e.g. MSVC): every deal plays on the scalar engine */

static int lanes_best(void) { return LANES_SCALAR; }
static int lanes_supported(int kind) { return kind == LANES_SCALAR; }
static int64_t lanes_run(int kind, const LanesTable *t, const uint64_t *planes, int64_t n,
                         LaneResult *res)
{
    (void)kind; (void)t; (void)planes; (void)n; (void)res;
    return -1;
}

#endif  /* DS_LANES_VECTORS */
#endif  /* DS_LANES_KERNEL_H */
