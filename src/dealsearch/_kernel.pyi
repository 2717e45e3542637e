"""Type stubs of the C-level game interface (``_kernel.pyx``)."""

import numpy.typing as npt
from typing_extensions import disjoint_base

@disjoint_base
class Kernel:
    @property
    def n_cards(self) -> int: ...
    @property
    def n_measures(self) -> int: ...
    def play(
        self, row: npt.ArrayLike
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]: ...
