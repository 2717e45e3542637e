# BMN's counter-based deal generator (_deals.h, shared with the GPU kernel): deal d of stream
# s of a run is a pure function of (seed, s, d). Its header sits beside this file, so a module
# elsewhere that cimports these declarations must put this folder on its include path.
from libc.stdint cimport uint8_t, uint64_t


cdef extern from "_deals.h" nogil:
    uint64_t ds_seed_key(uint64_t seed) noexcept
    uint64_t ds_stream_key(uint64_t seed_key, uint64_t stream) noexcept
    void ds_deal_planes(uint64_t key, uint64_t deal, const uint8_t* courts, int n_courts,
                        int n_cards, uint64_t* planes) noexcept
    void ds_deal_of(uint64_t seed_key, uint64_t first_stream, uint64_t chunk_deals, uint64_t w,
                    const uint8_t* courts, int n_courts, int n_cards, uint64_t* planes) noexcept
