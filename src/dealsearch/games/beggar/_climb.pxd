# The compiled climber as other Cython modules may cimport it: its state, C-level methods.
from libc.stdint cimport int64_t, uint8_t

from dealsearch.games.beggar._engine cimport MAX_SEATS, Scratch, Table
from dealsearch._random cimport Rng


cdef class Climber:
    cdef Rng rng
    cdef Table table
    cdef Scratch scratch
    cdef bint has_scratch
    cdef bint has_row
    cdef int n_classes
    cdef int sizes[MAX_SEATS]
    cdef int starts[MAX_SEATS + 1]
    cdef int n_cards
    cdef bint by_tricks
    cdef int n_kick                 # mutations per mutant
    cdef uint8_t* current           # four rows of n_cards: current, best, a mutant, scratch
    cdef uint8_t* best
    cdef uint8_t* trial
    cdef uint8_t* spare
    cdef public int64_t score
    cdef public int64_t best_score
    cdef public int64_t stall
    cdef public double temperature

    cdef int need_row(self) except -1
    cdef void mutate(self, uint8_t* row) noexcept nogil
