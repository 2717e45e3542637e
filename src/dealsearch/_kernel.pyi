"""Type stubs of the C-level game interface (``_kernel.pyx``).

The classes carry the compiled classes' docstrings (a test keeps them equal), so the API page
documents them from this stub where the extension is not built.
"""

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

@disjoint_base
class Kernel:
    """A game under fixed options as a C function pointer (built by the game's engine)."""

    @property
    def n_cards(self) -> int: ...
    @property
    def n_measures(self) -> int: ...
    def check_row(self, row: npt.ArrayLike) -> npt.NDArray[np.uint8]:
        """``row`` as a contiguous uint8 array if it is a row of this game (ValueError if not).

        The shape and the byte range are checked here, the game's own rules on codes (BMN:
        classes of the payments; Durak: each card of the deck once) by its ``row_check``;
        e.g. ``kernel.check_row(layout.deck)`` before a search deals from that deck.
        """
    def raise_failure(self) -> NoReturn:
        """Raise why ``play_row`` failed (returned -1): the exception a :class:`PythonKernel`'s
        game raised, else ``MemoryError`` (a compiled game's scratch memory was not had).

        Every loop that calls ``play_row`` calls this on a failure, so a plug-in's own error
        reaches the search as itself.
        """
    def play(
        self, row: npt.ArrayLike
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Play one row through the function pointer: ``(outcome, measures, entry, period)``.

        For tests and debugging; search loops call ``play_row`` directly, without the GIL.
        """

@disjoint_base
class PythonKernel(Kernel):
    """A :class:`Kernel` over a Python function, so a game can run in every search before it
    has a compiled engine (each game then costs a Python call: correct, not fast).

    ``play_fn(row)`` returns ``(outcome index, measures, entry, period)`` (entry and period
    empty unless the game cycles), as :meth:`Kernel.play` does.
    """

    @property
    def play_fn(
        self,
    ) -> Callable[[npt.NDArray[np.uint8]], tuple[int, Any, Any, Any]]: ...
    failure: BaseException | None
    def __init__(
        self,
        play_fn: Callable[[npt.NDArray[np.uint8]], tuple[int, Any, Any, Any]],
        n_cards: int,
        n_measures: int,
        row_check: Callable[[npt.NDArray[np.uint8]], None] | None = None,
    ) -> None: ...
