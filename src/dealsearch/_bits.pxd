# Bit scans and counts of 64-bit card masks, for every engine: one instruction each under GCC,
# Clang and MSVC, a portable loop elsewhere (so the same sources build with any C compiler).
# The scans take x != 0 (every caller has a set bit or a sentinel bit).
cdef extern from *:
    """
    #ifndef DEALSEARCH_BITS_H
    #define DEALSEARCH_BITS_H
    #if defined(__GNUC__) || defined(__clang__)
    static inline int ds_low_bit(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int ds_high_bit(unsigned long long x) { return 63 - __builtin_clzll(x); }
    static inline int ds_bit_count(unsigned long long x) { return __builtin_popcountll(x); }
    #elif defined(_MSC_VER) && defined(_M_X64)
    #include <intrin.h>
    static inline int ds_low_bit(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i;
    }
    static inline int ds_high_bit(unsigned long long x) {
        unsigned long i; _BitScanReverse64(&i, x); return (int)i;
    }
    static inline int ds_bit_count(unsigned long long x) { return (int)__popcnt64(x); }
    #else
    static inline int ds_low_bit(unsigned long long x) {
        int n = 0; while (!(x & 1ULL)) { x >>= 1; n++; } return n;
    }
    static inline int ds_high_bit(unsigned long long x) {
        int n = 63; while (!(x >> n)) n--; return n;
    }
    static inline int ds_bit_count(unsigned long long x) {
        int n = 0; while (x) { x &= x - 1; n++; } return n;
    }
    #endif
    #endif
    """
    int low_bit "ds_low_bit"(unsigned long long x) noexcept nogil      # x != 0
    int high_bit "ds_high_bit"(unsigned long long x) noexcept nogil    # x != 0
    int bit_count "ds_bit_count"(unsigned long long x) noexcept nogil
