# A small, fast, seedable PRNG for dealing cards inside compiled code.
#
# Why not rand() or numpy's Generator: rand() is neither portable nor good, and calling numpy per
# deal would bring Python back into the loop. xoshiro256** (Blackman & Vigna) passes BigCrush,
# needs four words of state, and seeding it through splitmix64 from (seed, stream) gives every
# block of a search its own independent, reproducible stream.
from libc.stdint cimport uint32_t, uint64_t, uint8_t


cdef struct Rng:
    uint64_t s[4]


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9e3779b97f4a7c15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* rng, uint64_t seed, uint64_t stream) noexcept nogil:
    cdef uint64_t x = seed
    cdef uint64_t mixed = splitmix64(&x) ^ (stream * <uint64_t>0xd1342543de82ef95ULL)
    cdef int i
    for i in range(4):
        rng.s[i] = splitmix64(&mixed)


cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* rng) noexcept nogil:
    cdef uint64_t result = rotl(rng.s[1] * 5, 7) * 9
    cdef uint64_t t = rng.s[1] << 17
    rng.s[2] ^= rng.s[0]
    rng.s[3] ^= rng.s[1]
    rng.s[1] ^= rng.s[2]
    rng.s[0] ^= rng.s[3]
    rng.s[2] ^= t
    rng.s[3] = rotl(rng.s[3], 45)
    return result


cdef inline uint32_t rng_below(Rng* rng, uint32_t n) noexcept nogil:
    # Lemire's multiply-and-reject: unbiased, and almost never loops for n <= 64.
    cdef uint64_t m = (rng_next(rng) >> 32) * n
    cdef uint32_t low = <uint32_t>m, threshold
    if low < n:
        threshold = (<uint32_t>(-n)) % n
        while low < threshold:
            m = (rng_next(rng) >> 32) * n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef inline void shuffle(Rng* rng, uint8_t* cards, int n) noexcept nogil:
    # Fisher-Yates; any starting order gives a uniform permutation, so the caller may keep
    # shuffling the same array from deal to deal.
    cdef int i, j
    cdef uint8_t tmp
    for i in range(n - 1, 0, -1):
        j = <int>rng_below(rng, <uint32_t>(i + 1))
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
