# Exact cycle detection for any game that can write its turn-boundary state as bytes.
#
# Two tools, used in two phases as the BMN engine does: Brent's method first (one saved state,
# one memcmp per boundary: nearly free, and it proves a repeat exists), then, only for games
# that repeat, a replay through the exact store (every state kept; a hash hit is confirmed by
# comparing the bytes), which finds the first repeated state and so the entry and the period.
# Games whose states are few (Durak: tens of bouts) may use the store alone.
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset


cdef struct Brent:
    int width           # bytes per state
    uint8_t* saved      # the state saved at the last power of two
    int64_t power
    int64_t lam


cdef inline int brent_init(Brent* brent, int width) noexcept nogil:
    brent.width = width
    brent.saved = <uint8_t*>malloc(width if width > 0 else 1)
    return 0 if brent.saved != NULL else -1


cdef inline void brent_free(Brent* brent) noexcept nogil:
    free(brent.saved)
    brent.saved = NULL


cdef inline void brent_start(Brent* brent, const uint8_t* state) noexcept nogil:
    memcpy(brent.saved, state, brent.width)
    brent.power = 1
    brent.lam = 0


cdef inline bint brent_repeats(Brent* brent, const uint8_t* state) noexcept nogil:
    # Feed the state after each boundary; true once a state equals the saved one, which
    # happens within two periods after the game enters its cycle.
    if memcmp(state, brent.saved, brent.width) == 0:
        return True
    brent.lam += 1
    if brent.lam == brent.power:
        memcpy(brent.saved, state, brent.width)
        brent.power *= 2
        brent.lam = 0
    return False


cdef struct StateStore:
    int width           # bytes per state
    int n_marks         # counts kept beside each state (e.g. cards and tricks when stored)
    int count
    int capacity
    int n_slots         # a power of two, kept above twice count
    uint8_t* states     # count states of width bytes, in the order stored
    int64_t* marks      # count rows of n_marks counts
    uint64_t* hashes
    int* slots          # open addressing: index + 1 into states, 0 = empty


cdef inline uint64_t hash_state(const uint8_t* state, int width) noexcept nogil:
    # Word at a time, then a final avalanche (splitmix64's): states differ in few bytes.
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>width
    cdef uint64_t word
    cdef int i = 0
    while i + 8 <= width:
        memcpy(&word, state + i, 8)
        h = (h ^ word) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
        i += 8
    while i < width:
        h = (h ^ state[i]) * 0x94D049BB133111EBULL
        i += 1
    h ^= h >> 30
    h *= 0xBF58476D1CE4E5B9ULL
    h ^= h >> 27
    h *= 0x94D049BB133111EBULL
    return h ^ (h >> 31)


cdef inline int store_init(StateStore* store, int width, int n_marks) noexcept nogil:
    store.width = width
    store.n_marks = n_marks
    store.count = 0
    store.capacity = 64
    store.n_slots = 256
    store.states = <uint8_t*>malloc(<size_t>store.capacity * (width if width > 0 else 1))
    store.marks = <int64_t*>malloc(<size_t>store.capacity * (n_marks if n_marks > 0 else 1)
                                   * sizeof(int64_t))
    store.hashes = <uint64_t*>malloc(<size_t>store.capacity * sizeof(uint64_t))
    store.slots = <int*>malloc(<size_t>store.n_slots * sizeof(int))
    if (store.states == NULL or store.marks == NULL or store.hashes == NULL
            or store.slots == NULL):
        return -1
    memset(store.slots, 0, <size_t>store.n_slots * sizeof(int))
    return 0


cdef inline void store_free(StateStore* store) noexcept nogil:
    free(store.states)
    free(store.marks)
    free(store.hashes)
    free(store.slots)
    store.states = NULL
    store.marks = NULL
    store.hashes = NULL
    store.slots = NULL


cdef inline void store_clear(StateStore* store) noexcept nogil:
    # Forget every state, keep the memory: one store serves game after game.
    if store.count:
        memset(store.slots, 0, <size_t>store.n_slots * sizeof(int))
        store.count = 0


cdef inline int _store_grow(StateStore* store) noexcept nogil:
    cdef int i, slot
    cdef int capacity = store.capacity * 2
    cdef void* grown
    grown = realloc(store.states, <size_t>capacity * store.width)
    if grown == NULL:
        return -1
    store.states = <uint8_t*>grown
    grown = realloc(store.marks, <size_t>capacity * store.n_marks * sizeof(int64_t))
    if grown == NULL:
        return -1
    store.marks = <int64_t*>grown
    grown = realloc(store.hashes, <size_t>capacity * sizeof(uint64_t))
    if grown == NULL:
        return -1
    store.hashes = <uint64_t*>grown
    grown = realloc(store.slots, <size_t>capacity * 4 * sizeof(int))
    if grown == NULL:
        return -1
    store.slots = <int*>grown
    store.capacity = capacity
    store.n_slots = capacity * 4
    memset(store.slots, 0, <size_t>store.n_slots * sizeof(int))
    for i in range(store.count):
        slot = <int>(store.hashes[i] & <uint64_t>(store.n_slots - 1))
        while store.slots[slot]:
            slot = (slot + 1) & (store.n_slots - 1)
        store.slots[slot] = i + 1
    return 0


cdef inline int store_find_or_add(StateStore* store, const uint8_t* state,
                                  const int64_t* marks) noexcept nogil:
    # The index of the earlier equal state, or -1 after storing this one with its marks;
    # -2 when memory ran out.
    cdef uint64_t h = hash_state(state, store.width)
    cdef int slot = <int>(h & <uint64_t>(store.n_slots - 1))
    cdef int index
    while store.slots[slot]:
        index = store.slots[slot] - 1
        if store.hashes[index] == h and memcmp(
                store.states + <size_t>index * store.width, state, store.width) == 0:
            return index
        slot = (slot + 1) & (store.n_slots - 1)
    if store.count == store.capacity:
        if _store_grow(store) != 0:
            return -2
        slot = <int>(h & <uint64_t>(store.n_slots - 1))
        while store.slots[slot]:
            slot = (slot + 1) & (store.n_slots - 1)
    index = store.count
    memcpy(store.states + <size_t>index * store.width, state, store.width)
    memcpy(store.marks + <size_t>index * store.n_marks, marks,
           <size_t>store.n_marks * sizeof(int64_t))
    store.hashes[index] = h
    store.slots[slot] = index + 1
    store.count += 1
    return -1


cdef inline const int64_t* store_marks(const StateStore* store, int index) noexcept nogil:
    return store.marks + <size_t>index * store.n_marks
