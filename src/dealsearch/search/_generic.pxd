# Generic compiled search on any game's Kernel: what other Cython modules may cimport.
from libc.stdint cimport uint8_t

cdef enum:
    MAX_SEGMENTS = 32
    MAX_ROW = 512           # cards in a row of any game (two packs and then some)


cdef struct Segments:
    # A row cut into segments (Layout.segments), with the positions mutations may use.
    int n_cards
    int n
    int start[MAX_SEGMENTS + 1]
    bint unordered[MAX_SEGMENTS]
    bint fixed[MAX_SEGMENTS]
    int segment_of[MAX_ROW]     # position -> its segment
    int n_free                  # positions outside fixed segments, in row order
    int free[MAX_ROW]
    int n_movable               # segments that are not fixed (cards may travel between them)
    int movable[MAX_SEGMENTS]
