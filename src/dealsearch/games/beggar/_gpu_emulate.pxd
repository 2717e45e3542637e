# The GPU kernels' code (_gpu_random.h on _gpu_step.h, _gpu_blocks.h and _gpu_warp.h), declared
# for its CPU build (_gpu_emulate.pyx). The headers sit beside this file, so a module elsewhere that
# cimports these declarations must put this folder on its include path.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "_gpu_random.h" nogil:
    enum:
        DS_GPU_MAX_CARDS
        DS_MAX_BINS
        DS_BLOCK
        DS_SPAN
    uint32_t DS_HANDBACK

    ctypedef struct ds_table:
        uint64_t pay_word
        int size0
        int total
        int cap_cards
        int cap_tricks
        int by_tricks

    ctypedef struct ds_run:
        ds_table t
        const uint8_t* courts
        int n_courts
        uint64_t seed_key
        uint64_t first_stream
        uint64_t chunk_deals
        uint64_t n
        uint64_t* work
        uint32_t* scores
        uint64_t* handbacks
        uint64_t* handback_count
        uint64_t handback_room
        uint64_t w_base
        uint64_t* totals
        uint64_t* card_hist
        int card_bins
        int card_bin
        uint64_t* trick_hist
        int trick_bins

    int ds_host_grid(const ds_run* r, const uint64_t* starts, int grid) noexcept
    int ds_chunk_records(const uint32_t* scores, int64_t n, uint32_t* found,
                         uint32_t* found_score, int room) noexcept


cdef extern from "_gpu_blocks.h" nogil:
    ctypedef struct ds_u128:
        uint64_t hi
        uint64_t lo

    ctypedef struct ds_ranks:
        uint64_t deck_word
        int total
        ds_u128 space
        ds_u128 first

    void ds_span_start(const ds_ranks* k, uint64_t n, uint64_t span, uint64_t x,
                       uint64_t* starts) noexcept
    void ds_next_planes(uint64_t* planes, int total) noexcept
