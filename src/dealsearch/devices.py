"""The devices a random or exhaustive search may run on, and what a game offers to run there.

``--device cpu`` (the default) plays on the compiled players; ``gpu`` on a game's
:class:`DeviceSampler` (random deals: a game offers one through the :class:`DeviceSearch`
capability) or :class:`DeviceBlockPlayer` (blocks of ranks, an exhaustive search's: the
:class:`DeviceBlocks` capability); ``emulate`` runs the device's code compiled for the CPU
(slow: for tests and for checking a kernel without the device). How a search turns a
device's :class:`DevicePlay` into the report the CPU would have sent:
:mod:`dealsearch.search.device`. A leaf beside :mod:`dealsearch.game`, so that a spec checks
its device without importing the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .game import Game, GameOptions, feature

DEVICES = ("cpu", "gpu", "emulate")
GPU_EXTRA = "pip install 'dealsearch[gpu]'"
CHECK_EVERY = 1000      # a device run replays one chunk in this many on the CPU (0.1 %)


class DeviceUnavailable(Exception):
    """The device cannot be used here (no CuPy, no GPU, a kernel that will not build): the
    message says why in one line."""


class DeviceMismatch(Exception):
    """A chunk the device played differs from the CPU's replay of it: its results, and the
    run's since, cannot be trusted."""


@dataclass
class ChunkPlay:
    """One chunk as a device played it, apart from the rest, for the CPU to check."""

    chunk: int
    counts: list[int]                   # as DevicePlay's, for this chunk alone
    totals: list[int]
    hists: list[npt.NDArray[np.int64]]  # its settled games, per measure
    finds: list[tuple[int, int]]        # (deal in chunk, score): its records
    handbacks: list[int]                # its deals handed back
    all_finds: bool = True              # False: more records than the device keeps


@dataclass
class DevicePlay:
    """What a device played of a run of chunks (see the module's docstring)."""

    counts: list[int]                   # games settled on the device, per outcome code
    totals: list[int]                   # their measures' totals, in the game's order
    finds: list[tuple[int, int, int]]   # (chunk, deal in chunk, score): records, not replayed
    handbacks: list[tuple[int, int]]    # (chunk, deal in chunk): for the exact engine
    replay: list[int] = field(default_factory=list)  # chunks whose finds the CPU must find
    checks: list[ChunkPlay] = field(default_factory=list)  # chunks played apart, to check


class DeviceSampler(Protocol):
    """A game's random player on a device, for one run (options, seed, objective)."""

    name: str   # the device in words, e.g. "NVIDIA H200"

    def play(self, first_chunk: int, deals: int, chunk_deals: int,
             hists: Sequence[npt.NDArray[np.int64]], widths: Sequence[int],
             check_every: int = 0) -> DevicePlay:
        """Play ``deals`` deals: chunk ``first_chunk`` and those after it, ``chunk_deals``
        each (the last perhaps fewer); add the settled games into ``hists``. Each chunk whose
        number is a multiple of ``check_every`` also comes back alone, in ``checks``."""

    def rows(self, chunks: npt.NDArray[np.uint64], deals: npt.NDArray[np.uint64]
             ) -> npt.NDArray[np.uint8]:
        """Deal ``deals[i]`` of chunk ``chunks[i]``, one row each."""


@feature
@runtime_checkable
class DeviceSearch(Protocol):
    """A game whose random search can run on a device other than the CPU."""

    def device_refusal(self, options: Any, device: str) -> str | None:
        """Why ``device`` cannot play these options (None if it can)."""

    def device_sampler(self, options: Any, seed: int, objective: str,
                       device: str) -> DeviceSampler:
        """The sampler; raises :class:`DeviceUnavailable` if the device is not usable here."""


class DeviceBlockPlayer(Protocol):
    """A game's player of blocks of ranks on a device, for one run (options, objective).

    Ranks number the orderings of the layout's deck (a layout without fixed or unordered
    segments), as :mod:`dealsearch.search.distinct` does."""

    name: str   # the device in words

    def play(self, first_rank: int, first_chunk: int, deals: int, chunk_deals: int,
             hists: Sequence[npt.NDArray[np.int64]], widths: Sequence[int],
             check_every: int = 0) -> DevicePlay:
        """Play the deals of ranks ``first_rank`` to ``first_rank + deals - 1``, cut into
        chunks of ``chunk_deals`` (the last perhaps fewer) numbered from ``first_chunk`` on
        (a chunk's deal ``j``: rank ``first_rank + (chunk - first_chunk) * chunk_deals +
        j``); add the settled games into ``hists``. As :meth:`DeviceSampler.play` for the
        rest: each chunk's records from a best of 0, its hand-backs, and the chunks whose
        number is a multiple of ``check_every`` also alone, in ``checks``."""


@feature
@runtime_checkable
class DeviceBlocks(Protocol):
    """A game whose exhaustive search (blocks of ranks) can run on a device other than the
    CPU."""

    def device_refusal(self, options: Any, device: str) -> str | None:
        """Why ``device`` cannot play these options (None if it can)."""

    def device_block_player(self, options: Any, objective: str, device: str
                            ) -> DeviceBlockPlayer:
        """The block player; raises :class:`DeviceUnavailable` if the device is not usable
        here."""


# the capability a strategy's device search needs of a game
CAPABILITIES: dict[str, type] = {"random": DeviceSearch, "exhaustive": DeviceBlocks}


def device_refusal(game: Game, options: GameOptions, strategy: str, device: str) -> str | None:
    """Why a search cannot run on ``device`` (None if it can)."""
    if device not in DEVICES:
        return f"unknown device {device!r}: choose from {', '.join(DEVICES)}"
    if device == "cpu":
        return None
    if strategy not in CAPABILITIES:
        return f"--device {device} is for {' and '.join(CAPABILITIES)} searches"
    if not isinstance(game, CAPABILITIES[strategy]):
        return f"{game.name} has no engine for {strategy} searches on --device {device}"
    refusal = game.device_refusal(options, device)   # type: ignore[attr-defined]
    return f"--device {device}: {refusal}" if refusal else None
