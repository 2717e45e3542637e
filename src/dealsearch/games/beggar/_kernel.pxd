# The BMN engine behind the generic Kernel interface (see dealsearch/_kernel.pxd).
from dealsearch.games.beggar._engine cimport MAX_SEATS, Table
from dealsearch._cycle cimport StateStore
from dealsearch._kernel cimport Kernel


cdef struct BeggarContext:
    Table table
    StateStore det
    int sizes[MAX_SEATS]


cdef class BeggarKernel(Kernel):
    cdef BeggarContext ctx
