# cython: language_level=3
"""BMN as a :class:`~dealsearch._kernel.Kernel`: the bit-plane engine behind one C pointer.

The generic compiled search loops (``dealsearch.search._generic``) play BMN through this; the
BMN strategies themselves keep their specialised loops (``_lanes.RandomPlayer``,
``_climb.Climber``), which call the engine directly.
"""

from libc.stdint cimport INT64_MAX, uint8_t
from libc.string cimport memset

from dealsearch.games.beggar._engine cimport (
    MAX_SEATS,
    PLANE_CARDS,
    Hand,
    Outcome,
    deal_hands,
    detector_init,
    play_game,
)
from dealsearch._cycle cimport store_free
from dealsearch._kernel cimport KernelResult, set_two_measures

from functools import partial

from dealsearch.games.beggar._engine import _check_codes, _check_limit, _check_payments, _whole_list


cdef int play_beggar_row(void* context, const uint8_t* row,
                         KernelResult* result) noexcept nogil:
    cdef BeggarContext* ctx = <BeggarContext*>context
    cdef Hand hands[MAX_SEATS]
    cdef Outcome res
    deal_hands(row, ctx.sizes, ctx.table.seats, hands)
    if play_game(&ctx.table, hands, &ctx.det, &res) != 0:
        return -1
    set_two_measures(result, res.outcome, res.cards, res.tricks, res.entry_cards,
                     res.entry_tricks, res.period_cards, res.period_tricks)
    return 0


cdef class BeggarKernel(Kernel):
    """BMN under fixed rules, hand sizes and limit: measures (cards, tricks), outcomes
    (win, cycle, limit) as in ``dealsearch.games.beggar.engine.OUTCOMES``."""

    def __cinit__(self, sizes, payments, max_cards=None, max_tricks=None):
        sizes = _whole_list("sizes", sizes, 1, PLANE_CARDS, 2, MAX_SEATS)
        if sum(sizes) > PLANE_CARDS:
            # the bit-plane engine: larger deals are played by _ring, which has no kernel yet
            raise ValueError(f"{sum(sizes)} cards: a deal holds at most {PLANE_CARDS}")
        payments = _check_payments(payments)
        max_cards = _check_limit("max_cards", max_cards)
        max_tricks = _check_limit("max_tricks", max_tricks)
        memset(&self.ctx.table, 0, sizeof(self.ctx.table))
        for i, p in enumerate(payments):
            self.ctx.table.payment[i] = p
        self.ctx.table.seats = len(sizes)
        self.ctx.table.total = sum(sizes)
        self.ctx.table.max_cards = INT64_MAX if max_cards is None else max_cards
        self.ctx.table.max_tricks = INT64_MAX if max_tricks is None else max_tricks
        for seat, size in enumerate(sizes):
            self.ctx.sizes[seat] = size
        if detector_init(&self.ctx.det) != 0:
            raise MemoryError("no memory for the cycle detector")
        self.play_row = play_beggar_row
        self.context = &self.ctx
        self.n_cards = sum(sizes)
        self.n_measures = 2
        self.owner = None
        self.row_check = partial(_check_codes, "row", n_classes=len(payments))

    def __dealloc__(self):
        store_free(&self.ctx.det)
