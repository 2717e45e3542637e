# The GPU kernel's rule step (_gpu_step.h), declared for its CPU twin (_gpu_emulate.pyx). The
# header sits beside this file, so a module elsewhere that cimports these declarations must put
# this folder on its include path.
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "_gpu_step.h" nogil:
    enum:
        DS_GPU_MAX_CARDS
        DS_OVER_PLAYING
        DS_OVER_WON
    uint32_t DS_HANDBACK

    ctypedef struct ds_table:
        uint64_t pay_word
        int size0
        int total
        int cap_cards
        int cap_tricks
        int by_tricks

    ctypedef struct ds_game:
        pass

    void ds_game_start(ds_game* g, const ds_table* t, const uint64_t* planes) noexcept
    int ds_game_step(ds_game* g, const ds_table* t) noexcept
    void ds_game_result(const ds_game* g, int* winner, int* cards, int* tricks) noexcept
    int ds_chunk_records(const uint32_t* scores, int64_t n, uint32_t* found,
                         uint32_t* found_score, int room) noexcept
