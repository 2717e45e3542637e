"""Type stubs of the BMN kernel (``_kernel.pyx``)."""

from collections.abc import Sequence

from dealsearch._kernel import Kernel

class BeggarKernel(Kernel):
    def __init__(
        self,
        sizes: Sequence[int],
        payments: Sequence[int],
        max_cards: int | None = None,
        max_tricks: int | None = None,
    ) -> None: ...
