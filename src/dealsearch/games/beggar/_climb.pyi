"""Type stubs of the compiled climber (``_climb.pyx``)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

@disjoint_base
class Climber:
    score: int
    best_score: int
    stall: int
    temperature: float
    kick: int
    def __init__(
        self, sizes: Sequence[int], payments: Sequence[int], seed: int, stream: int,
        max_cards: int | None = None, max_tricks: int | None = None, by_tricks: bool = False,
    ) -> None: ...
    def reset(self, row: npt.NDArray[np.uint8], score: int, temperature: float) -> None: ...
    def restore_best(self, row: npt.NDArray[np.uint8], score: int) -> None: ...
    @property
    def current_row(self) -> npt.NDArray[np.uint8]: ...
    @property
    def best_row(self) -> npt.NDArray[np.uint8]: ...
    def perturb(self, mutations: int) -> None: ...
    def play_current(
        self,
    ) -> tuple[int, tuple[int, int], tuple[int, int], tuple[int, int]]: ...
    def random_state(self) -> list[int]: ...
    def set_random_state(self, words: Sequence[int]) -> None: ...
    def climb(
        self, games: int, stall_limit: int, cooling: float, anneal: bool,
        counts: npt.NDArray[np.int64], hists: Sequence[npt.NDArray[np.int64]] = (),
        widths: Sequence[int] = (), max_cycles: int = 64,
    ) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.int64]]: ...
