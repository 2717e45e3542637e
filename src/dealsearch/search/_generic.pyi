"""Type stubs of ``_generic.pyx``: random sampling and climbing on any game's Kernel."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dealsearch._kernel import Kernel

I64 = npt.NDArray[np.int64]
Rows = npt.NDArray[np.uint8]

class Sampler:
    best: int
    dealt: int
    def __init__(
        self,
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
    ) -> None: ...
    def play(
        self, n: int, max_finds: int = 256, hists: Sequence[I64] = (),
        widths: Sequence[int] = (),
    ) -> tuple[int, I64, I64, Rows, I64]: ...

class Climber:
    score: int
    best_score: int
    stall: int
    temperature: float
    def __init__(
        self,
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
    ) -> None: ...
    def reset(self, row: npt.ArrayLike, score: int, temperature: float) -> None: ...
    def restore_best(self, row: npt.ArrayLike, score: int) -> None: ...
    @property
    def current_row(self) -> Rows: ...
    @property
    def best_row(self) -> Rows: ...
    def shuffle_current(self) -> None: ...
    def perturb(self, mutations: int) -> None: ...
    def play_current(self) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]: ...
    def random_state(self) -> list[int]: ...
    def set_random_state(self, words: Sequence[int]) -> None: ...
    def climb(
        self, games: int, stall_limit: int, cooling: float, anneal: bool, counts: I64,
        hists: Sequence[I64] = (), widths: Sequence[int] = (), max_cycles: int = 64,
    ) -> tuple[int, I64, Rows, I64]: ...

