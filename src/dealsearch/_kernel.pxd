# The C-level interface between a game and the compiled search loops (climber, sampler): one
# function pointer and one opaque context, so a search loop needs no Python call per game.
from libc.stdint cimport int64_t, uint8_t

cdef enum:
    MAX_MEASURES = 4    # a game reports at most this many measures (BMN: cards, tricks)


cdef struct KernelResult:
    int outcome                     # index into the game's Game.outcomes
    int64_t measure[MAX_MEASURES]   # the game's measures, in Game.measures order
    int64_t entry[MAX_MEASURES]     # cycle only: the counts at the earlier visit of the state
    int64_t period[MAX_MEASURES]    # cycle only: the counts of one turn of the cycle


# Play one row (a deal laid out as the game's segments) to its end, cycle or limit.
# Returns 0, or -1 on a failure (scratch memory not had, or a PythonKernel's game raised):
# the caller then calls the Kernel's raise_failure(), which raises it.
ctypedef int (*play_row_fn)(void* context, const uint8_t* row,
                            KernelResult* result) noexcept nogil


cdef class Kernel:
    # One game under fixed options, ready for compiled loops. ``context`` holds the options
    # and the game's scratch memory (its cycle detector), so a Kernel serves one thread.
    cdef play_row_fn play_row
    cdef void* context
    cdef readonly int n_cards       # row length
    cdef readonly int n_measures
    cdef object owner               # keeps the memory behind ``context`` alive
    # The game's check of one row's codes (a callable raising ValueError), or None: rows from
    # Python pass it once before any loop plays them unchecked.
    cdef object row_check


cdef inline void set_two_measures(KernelResult* result, int outcome, int64_t first,
                                  int64_t second, int64_t entry_first, int64_t entry_second,
                                  int64_t period_first, int64_t period_second) noexcept nogil:
    # Every game so far reports two measures (BMN: cards, tricks; Durak: bouts, cards; Spite
    # and Malice: turns, cards): its kernel fills the result in one call.
    result.outcome = outcome
    result.measure[0] = first
    result.measure[1] = second
    result.entry[0] = entry_first
    result.entry[1] = entry_second
    result.period[0] = period_first
    result.period[1] = period_second
