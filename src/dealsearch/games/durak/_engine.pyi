"""Type stubs of the compiled Durak engine (``_engine.pyx``); the friendly API is the
:class:`~dealsearch.games.durak.game.DurakGame` in ``game.py``."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

def play_rows(
    rows: npt.NDArray[np.uint8],
    *,
    players: int,
    deck: int,
    transfers: bool = False,
    pairs: bool = False,
    first_limit: int = 6,
    first_transfer: bool = False,
    show_trump: bool = False,
    throw_after_take: bool = True,
    policies: Sequence[int] | None = None,
    max_bouts: int = -1,
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int8],
]: ...
def play_position(
    hands: Sequence[Sequence[int]],
    trump: int,
    talon: Sequence[int],
    attacker: int,
    first: bool,
    *,
    players: int,
    deck: int,
    transfers: bool = False,
    pairs: bool = False,
    first_limit: int = 6,
    first_transfer: bool = False,
    show_trump: bool = False,
    throw_after_take: bool = True,
    policies: Sequence[int] | None = None,
    max_bouts: int = -1,
) -> dict[str, Any]: ...
def make_kernel(
    *,
    players: int,
    deck: int,
    transfers: bool = False,
    pairs: bool = False,
    first_limit: int = 6,
    first_transfer: bool = False,
    show_trump: bool = False,
    throw_after_take: bool = True,
    policies: Sequence[int] | None = None,
    max_bouts: int = -1,
) -> Any: ...  # a dealsearch._kernel.Kernel (no stub of its own yet)

@disjoint_base
class KernelMemory: ...
