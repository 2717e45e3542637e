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


cdef inline void deal_random(Rng* rng, const uint8_t* courts, int n_courts, int n_cards,
                             uint64_t* planes) noexcept nogil:
    # A uniformly random deal as bit-planes (bit i of planes[b]: bit b of the class of card i).
    # Why not Fisher-Yates: only where the court cards lie matters, and a shuffle spends a
    # bounded random number on every card. Here each court card in turn (``courts``: their
    # classes) takes a uniformly random free position, drawn as a width-bit chunk of a random
    # word and rejected if the position is taken or past the deck; numerals fill the rest.
    # Every ordered choice of distinct positions is equally likely, so every arrangement of the
    # deck is. About 24 chunks (3 words) for 52 cards, and the loop has no unpredictable branch.
    # Each deal starts on a fresh word, so a stream's deals do not depend on how it is split.
    cdef int width = 1, per_word, left = 0, placed = 0, b
    while (1 << width) < n_cards:
        width += 1
    per_word = 64 // width
    cdef uint64_t chunk_mask = ((<uint64_t>1) << width) - 1
    # positions past the deck count as taken
    cdef uint64_t taken = ~(((<uint64_t>1) << n_cards) - 1) if n_cards < 64 else 0
    cdef uint64_t r = 0, free_bit, cls
    cdef int p
    planes[0] = planes[1] = planes[2] = 0
    while placed < n_courts:
        if left == 0:
            r = rng_next(rng)
            left = per_word
        p = <int>(r & chunk_mask)
        r >>= width
        left -= 1
        free_bit = ((~taken) >> p) & 1
        cls = courts[placed]
        taken |= free_bit << p
        for b in range(3):
            planes[b] |= (((cls >> b) & 1) & free_bit) << p
        placed += <int>free_bit


cdef inline void shuffle_row(Rng* rng, const uint8_t* deck, int n_cards,
                             uint8_t* row) noexcept nogil:
    # A uniformly random ordering of ``deck`` (its cards in a fixed order) into ``row``, for
    # decks of more than 64 cards, which deal_random's bit-planes cannot hold: Fisher-Yates
    # with Lemire's unbiased draws. It starts from ``deck`` every time, so a stream's deals do
    # not depend on how it is split either.
    cdef int i, j
    cdef uint8_t card
    for i in range(n_cards):
        row[i] = deck[i]
    for i in range(n_cards - 1, 0, -1):
        j = <int>rng_below(rng, <uint32_t>(i + 1))
        card = row[i]
        row[i] = row[j]
        row[j] = card
