"""What a search is asked to do: strategy, game, budget and tuning, as one serialisable spec.

The spec is stored with the run in the log, so ``--resume`` needs nothing but the run id.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from typing import Any

from ..devices import CHECK_EVERY, device_refusal
from ..game import (
    DEFAULT_GAME,
    MAX_SEED,
    FastSearch,
    Game,
    GameError,
    GameOptions,
    backwards_refusal,
    get_game,
    make_options,
)
from ..strategies import get_strategy
from .distinct import numbering

# Deals: about a month on 100 cores at BMN's speed. An exhaustive search of more needs a part
# of the space to search (ranks, deals or time).
MAX_EXHAUSTIVE = 10**13
ESCAPES = ("none", "anneal")
RESTARTS = ("random", "pool", "crossover")  # climb: where a stalled climber starts again
MAX_KICK = 16                  # climb: most mutations per mutant
MAX_WORKERS = 4096             # workers (climbers) a spec may ask for: a big cluster's
MAX_COUNT = 2**63 - 1          # deals, stall, reverse-every: what a SQLite INTEGER holds


def _whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (not a bool, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    """Whether ``value`` is a real number (an int or a float, not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _plain(value: Any) -> Any:
    """An option value as JSON keeps it (tuples become lists)."""
    return list(value) if isinstance(value, tuple) else value


class EndlessSpace(ValueError):
    """An exhaustive search of a whole space too big to finish, with no part named."""

    def __init__(self, total: int, projection: str = "") -> None:
        self.total = total
        super().__init__(f"an exhaustive search of all {total:.3g} deals would never end"
                         f"{projection}: give --ranks START:END, --deals N or --time T to "
                         f"search part of it")


@dataclass(frozen=True)
class SearchSpec:
    """A search: what to look for, in which game under which options, with which budget.

    Without ``deals`` or ``time`` a random or climbing search runs until interrupted; an
    exhaustive search always ends when every deal of its deck has been played.

    ``game`` names a registered game and ``game_options`` holds the option values given
    (names of its ``option_specs``; those not given take the game's defaults). Campaign files
    write the game's options beside the search's (``rules = "standard"``): :meth:`from_json`
    files them under ``game_options``.
    """

    strategy: str
    seed: int = 0
    workers: int = 0                 # 0: every core
    deals: int | None = None         # budget in games played
    time: float | None = None        # budget in seconds
    objective: str | None = None     # a measure of the game (default: its first)
    # Climbing only.
    start: str | None = None         # start every climber from this deal
    escape: str = "anneal"           # none | anneal (simulated annealing)
    stall: int = 5_000               # games without a new best before a restart
    temperature: float = 40.0        # annealing start temperature, in objective units
    reverse_every: int | None = None  # grow the best deal backwards every K new bests
    # random, pool (near one of the climber's best deals) or crossover (a child of two of them)
    restart: str = "random"
    kick: int = 1                    # mutations per mutant (a game's own climber)
    device: str = "cpu"              # random only: cpu, gpu, emulate (see dealsearch.devices)
    gpu_check_every: int | None = None   # a device run checks one chunk in N (None: 1000)
    ranks: tuple[int, int] | None = None  # exhaustive: play deals START <= rank < END
    verify_blocks: bool = False      # exhaustive: play each task twice and compare
    game: str = DEFAULT_GAME
    game_options: dict[str, Any] = field(default_factory=dict)
    # the strategy's own options (a game's strategy: BMN's factory), checked by the strategy
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._check_types()
        strategy = get_strategy(self.strategy)   # a ValueError naming the choices if unknown
        if not _whole(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed {self.seed!r}: a seed is a whole number from 0 to "
                             f"{MAX_SEED}")
        self._settle_options()
        if not 0 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"workers must be 1 to {MAX_WORKERS} (0 means every core), not "
                             f"{self.workers}")
        if self.objective is None:
            object.__setattr__(self, "objective", self.plugin.measures[0])
        if self.objective not in self.plugin.measures:
            raise ValueError(f"unknown objective {self.objective!r}: "
                             f"{' or '.join(self.plugin.measures)}")
        if self.escape not in ESCAPES:
            raise ValueError(f"unknown escape {self.escape!r}: choose from {', '.join(ESCAPES)}")
        if self.restart not in RESTARTS:
            raise ValueError(f"unknown restart {self.restart!r}: choose from "
                             f"{', '.join(RESTARTS)}")
        if not isinstance(self.kick, int) or not 1 <= self.kick <= MAX_KICK:
            raise ValueError(f"kick must be 1 to {MAX_KICK}, not {self.kick!r}")
        if self.kick != 1 and (self.strategy != "climb" or not isinstance(self.plugin,
                                                                           FastSearch)):
            raise ValueError("--kick needs a climb of a game with its own climber")
        for name in ("deals", "stall", "reverse_every"):
            value = getattr(self, name)
            if value is not None and not 1 <= value <= MAX_COUNT:
                raise ValueError(f"{name.replace('_', '-')} must be 1 to {MAX_COUNT}, not "
                                 f"{value}")
        if self.reverse_every is not None and self.strategy != "climb":
            raise ValueError("--reverse-every is an option of climb")
        refusal = None if self.reverse_every is None else backwards_refusal(self.plugin,
                                                                              self.options)
        if refusal:
            raise ValueError(f"--reverse-every: {refusal}")
        self._check_ranks()
        if self.start is not None:
            self._check_start()
        refusal = device_refusal(self.plugin, self.options, self.strategy, self.device)
        if refusal:
            raise ValueError(refusal)
        if self.gpu_check_every is not None:
            if not isinstance(self.gpu_check_every, int) or self.gpu_check_every < 1:
                raise ValueError("gpu-check-every must be at least 1")
            if self.device == "cpu":
                raise ValueError("--gpu-check-every is for --device gpu or emulate")
        strategy.check(self)

    def _check_types(self) -> None:
        """Each field of the type it is read as, whoever wrote it (the command line, a
        campaign file, or a log's runs table that --resume reads): one ValueError, never a
        TypeError deep in a search."""
        for name in ("workers", "stall", "kick"):
            if not _whole(getattr(self, name)):
                raise ValueError(f"{name} must be a whole number, not "
                                 f"{getattr(self, name)!r}")
        for name in ("deals", "reverse_every"):
            if getattr(self, name) is not None and not _whole(getattr(self, name)):
                raise ValueError(f"{name.replace('_', '-')} must be a whole number, not "
                                 f"{getattr(self, name)!r}")
        if self.time is not None and not (_number(self.time) and 0 < self.time < math.inf):
            raise ValueError(f"time must be a number of seconds above 0, not {self.time!r}")
        if not (_number(self.temperature) and 0 <= self.temperature < math.inf):
            raise ValueError(f"temperature must be a number of at least 0, not "
                             f"{self.temperature!r}")
        for name in ("strategy", "escape", "restart", "device", "game"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a name, not {getattr(self, name)!r}")
        for name in ("objective", "start"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be text, not {getattr(self, name)!r}")
        if not isinstance(self.game_options, dict):
            raise ValueError(f"game options must be a mapping, not {self.game_options!r}")
        if not isinstance(self.settings, dict):
            raise ValueError(f"settings must be a mapping, not {self.settings!r}")

    def _check_ranks(self) -> None:
        """An exhaustive search covers its ranks, else the whole space: one it can number,
        and one small enough to finish unless a budget or ranks say which part to play."""
        if self.ranks is not None:
            if self.strategy != "exhaustive":
                raise ValueError("--ranks is for exhaustive searches")
            ranks = tuple(self.ranks)
            if (len(ranks) != 2 or not all(isinstance(r, int) and not isinstance(r, bool)
                                            for r in ranks) or not 0 <= ranks[0] < ranks[1]):
                raise ValueError(f"bad ranks {self.ranks!r}: START:END, whole numbers with "
                                 "0 <= START < END")
            object.__setattr__(self, "ranks", ranks)
        if self.verify_blocks and self.strategy != "exhaustive":
            raise ValueError("--verify-blocks is for exhaustive searches")
        if self.strategy != "exhaustive":
            return
        total = numbering(self.layout).total
        if self.ranks is not None and self.ranks[1] > total:
            raise ValueError(f"--ranks {self.ranks[0]}:{self.ranks[1]}: this layout has "
                             f"{total:,} deals, ranks 0 to {total - 1:,}")
        if (total > MAX_EXHAUSTIVE and self.ranks is None and self.deals is None
                and self.time is None):
            raise EndlessSpace(total)

    def _check_start(self) -> None:
        """The start is climbed as given (the run's deck and segments), or refused; never
        re-dealt. The game's parser says what does not fit (hands, sizes, cards)."""
        if self.strategy != "climb":
            raise ValueError("--start is for climb searches")
        try:
            row = self.plugin.parse(self.start or "", self.options)
        except GameError as error:
            raise ValueError(f"--start: {error}") from None
        if sorted(row.tolist()) != sorted(self.layout.deck.tolist()):
            raise ValueError("--start must hold exactly the searched deck's cards")

    def _settle_options(self) -> None:
        """Check the game's options once; keep the values given (what --resume rebuilds)."""
        try:
            game = get_game(self.game)
            make_options(game, self.game_options)
        except GameError as error:
            raise ValueError(str(error)) from None
        object.__setattr__(self, "game_options", {k: _plain(v) for k, v in
                                                  self.game_options.items() if v is not None})

    @cached_property
    def plugin(self) -> Game:
        """The game searched."""
        return get_game(self.game)

    @cached_property
    def options(self) -> GameOptions:
        """The game's options."""
        return make_options(self.plugin, self.game_options)

    @cached_property
    def layout(self) -> Any:
        """The game's :class:`~dealsearch.game.Layout` under the options."""
        return self.plugin.layout(self.options)

    @property
    def device_check_every(self) -> int:
        """A device run replays one chunk in this many on the CPU (0: a CPU run)."""
        return 0 if self.device == "cpu" else self.gpu_check_every or CHECK_EVERY

    @property
    def worker_count(self) -> int:
        """Workers to start (``workers``, or one for the GPU, or every core)."""
        return self.workers or (1 if self.device == "gpu" else os.cpu_count() or 1)

    def to_json(self) -> dict[str, Any]:
        """The spec as plain data (for the runs table; ``settings`` only if the strategy has
        any)."""
        data = asdict(self)
        if not self.settings:
            del data["settings"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchSpec:
        """Rebuild a spec from :meth:`to_json` or a campaign file; unknown keys are errors.

        A key that names an option of the spec's game goes into ``game_options`` (campaign
        files write ``game = "durak"`` and the game's options side by side).
        """
        known = {f.name for f in fields(cls)}
        if not isinstance(data, dict):
            raise ValueError(f"a search spec is a mapping, not {type(data).__name__}")
        data = dict(data)
        try:
            game = get_game(data.get("game", DEFAULT_GAME))
        except GameError as error:
            raise ValueError(str(error)) from None
        options = data.pop("game_options", None) or {}
        if not isinstance(options, dict):
            raise ValueError(f"game options must be a mapping, not {options!r}")
        options = dict(options)
        for spec in game.option_specs:
            if spec.name in data and spec.name not in known:
                value = data.pop(spec.name)
                if value is not None:  # logged specs wrote None for "the game's default"
                    options.setdefault(spec.name, value)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown search option {unknown[0]!r}")
        return cls(**data, game_options=options)
