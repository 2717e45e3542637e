"""Type stubs of ``_generic.pyx``: random sampling and climbing on any game's Kernel."""

from collections.abc import Sequence
from typing import Self, TypeAlias

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from dealsearch._kernel import Kernel

# Stub-only shorthands (private: the module has no such names at runtime).
_I64: TypeAlias = npt.NDArray[np.int64]
_Rows: TypeAlias = npt.NDArray[np.uint8]

@disjoint_base
class Sampler:
    best: int
    dealt: int
    def __new__(
        cls,
        kernel: Kernel,
        deck: npt.ArrayLike,
        segments: Sequence[int],
        unordered: Sequence[bool],
        fixed: Sequence[bool],
        seed: int,
        stream: int,
        objective: int = 0,
        win: int = 0,
        cycle: int = 1,
        n_outcomes: int = 3,
        best: int = 0,
        finished: Sequence[int] | None = None,
    ) -> Self: ...
    def play(
        self, n: int, max_finds: int = 256, hists: Sequence[_I64] = (),
        widths: Sequence[int] = (),
    ) -> tuple[int, _I64, _I64, _Rows, _I64]: ...

@disjoint_base
class Climber:
    score: int
    best_score: int
    stall: int
    temperature: float
    def __new__(
        cls,
        kernel: Kernel,
        deck: npt.ArrayLike,
        segments: Sequence[int],
        unordered: Sequence[bool],
        fixed: Sequence[bool],
        seed: int,
        stream: int,
        objective: int = 0,
        cycle: int = 1,
        n_outcomes: int = 3,
        weights: Sequence[int] = (1, 1, 1, 1),
    ) -> Self: ...
    def reset(self, row: npt.ArrayLike, score: int, temperature: float) -> None: ...
    def restore_best(self, row: npt.ArrayLike, score: int) -> None: ...
    @property
    def current_row(self) -> _Rows: ...
    @property
    def best_row(self) -> _Rows: ...
    def shuffle_current(self) -> None: ...
    def perturb(self, mutations: int) -> None: ...
    def play_current(self) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]: ...
    def random_state(self) -> list[int]: ...
    def set_random_state(self, words: Sequence[int]) -> None: ...
    def climb(
        self, games: int, stall_limit: int, cooling: float, anneal: bool, counts: _I64,
        hists: Sequence[_I64] = (), widths: Sequence[int] = (), max_cycles: int = 64,
    ) -> tuple[int, _I64, _Rows, _I64]: ...

