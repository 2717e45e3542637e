"""Type stubs of the compiled Durak engine (``_engine.pyx``); the friendly API is the
:class:`~dealsearch.games.durak.game.DurakGame` in ``game.py``."""

from collections.abc import Sequence
from typing import Any, NotRequired, TypeAlias, TypedDict, Unpack

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

# Stub-only names (private: the module has no such names at runtime).
class _Rules(TypedDict):
    """The rules every entry point takes as keywords (``DurakOptions.engine_rules()``)."""

    players: int
    deck: int
    transfers: NotRequired[bool]
    pairs: NotRequired[bool]
    first_limit: NotRequired[int]
    first_transfer: NotRequired[bool]
    show_trump: NotRequired[bool]
    throw_after_take: NotRequired[bool]
    policies: NotRequired[Sequence[int] | None]
    max_bouts: NotRequired[int]

_U8: TypeAlias = npt.NDArray[np.uint8]
_I8: TypeAlias = npt.NDArray[np.int8]
_I64: TypeAlias = npt.NDArray[np.int64]

def play_rows(
    rows: _U8, **rules: Unpack[_Rules]
) -> tuple[_U8, _I8, _I8, _I64, _I64, _I8]: ...
def play_position(
    hands: Sequence[Sequence[int]],
    trump: int,
    talon: Sequence[int],
    attacker: int,
    first: bool,
    **rules: Unpack[_Rules],
) -> dict[str, Any]: ...
def make_kernel(
    **rules: Unpack[_Rules],
) -> Any: ...  # a dealsearch._kernel.Kernel (no stub of its own yet)

@disjoint_base
class KernelMemory: ...
