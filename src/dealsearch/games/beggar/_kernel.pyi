"""Type stubs of the BMN kernel (``_kernel.pyx``)."""

from collections.abc import Sequence
from typing import Self

from typing_extensions import disjoint_base

from dealsearch._kernel import Kernel

@disjoint_base
class BeggarKernel(Kernel):
    # __cinit__ takes the arguments, so the stub describes __new__
    def __new__(
        cls,
        sizes: Sequence[int],
        payments: Sequence[int],
        max_cards: int | None = None,
        max_tricks: int | None = None,
    ) -> Self: ...
