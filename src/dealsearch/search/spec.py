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
from ..game import MAX_SEED, Game, GameError, GameOptions, get_game, make_options
from ..strategies import STRATEGIES, get_strategy, strategy_names

MAX_WORKERS = 4096             # workers (climbers) a spec may ask for: a big cluster's
MAX_COUNT = 2**63 - 1          # deals, and a strategy's counts: what a SQLite INTEGER holds


def whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (not a bool, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def number(value: Any) -> bool:
    """Whether ``value`` is a real number (an int or a float, not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _plain(value: Any) -> Any:
    """An option value as JSON keeps it (tuples become lists)."""
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class SearchSpec:
    """A search: what to look for, in which game under which options, with which budget.

    Without ``deals`` or ``time`` a random or climbing search runs until interrupted; an
    exhaustive search always ends when every deal of its deck has been played.

    ``settings`` are the strategy's own options (climb: ``start``, ``escape``, ``stall``, ...;
    exhaustive: ``ranks``, ``verify_blocks``; a game's strategy its own), which the strategy
    checks and completes with its defaults (:meth:`~dealsearch.strategies.Strategy.settle`).

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
    device: str = "cpu"              # random only: cpu, gpu, emulate (see dealsearch.devices)
    gpu_check_every: int | None = None   # a device run checks one chunk in N (None: 1000)
    game_options: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)   # the strategy's own options
    game: str = field(kw_only=True)  # always named: the framework has no game of its own

    def __post_init__(self) -> None:
        self._check_types()
        strategy = get_strategy(self.strategy)   # a ValueError naming the choices if unknown
        if not whole(self.seed) or not 0 <= self.seed <= MAX_SEED:
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
        if self.deals is not None and not 1 <= self.deals <= MAX_COUNT:
            raise ValueError(f"deals must be 1 to {MAX_COUNT}, not {self.deals}")
        refusal = device_refusal(self.plugin, self.options, self.strategy, self.device)
        if refusal:
            raise ValueError(refusal)
        if self.gpu_check_every is not None:
            if not isinstance(self.gpu_check_every, int) or self.gpu_check_every < 1:
                raise ValueError("gpu-check-every must be at least 1")
            if self.device == "cpu":
                raise ValueError("--gpu-check-every is for --device gpu or emulate")
        object.__setattr__(self, "settings", strategy.settle(self))

    def _check_types(self) -> None:
        """Each field of the type it is read as, whoever wrote it (the command line, a
        campaign file, or a log's runs table that --resume reads): one ValueError, never a
        TypeError deep in a search."""
        if not whole(self.workers):
            raise ValueError(f"workers must be a whole number, not {self.workers!r}")
        if self.deals is not None and not whole(self.deals):
            raise ValueError(f"deals must be a whole number, not {self.deals!r}")
        if self.time is not None and not (number(self.time) and 0 < self.time < math.inf):
            raise ValueError(f"time must be a number of seconds above 0, not {self.time!r}")
        for name in ("strategy", "device", "game"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a name, not {getattr(self, name)!r}")
        if self.objective is not None and not isinstance(self.objective, str):
            raise ValueError(f"objective must be text, not {self.objective!r}")
        if not isinstance(self.game_options, dict):
            raise ValueError(f"game options must be a mapping, not {self.game_options!r}")
        if not isinstance(self.settings, dict):
            raise ValueError(f"settings must be a mapping, not {self.settings!r}")

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

        A key that names an option of the spec's game goes into ``game_options``, and one that
        names a setting of its strategy into ``settings`` (campaign files and the command line
        write ``game = "durak"``, the game's options and the strategy's side by side).
        """
        known = {f.name for f in fields(cls)}
        if not isinstance(data, dict):
            raise ValueError(f"a search spec is a mapping, not {type(data).__name__}")
        data = dict(data)
        if "game" not in data:
            raise ValueError("a search spec names its game (game = \"NAME\")")
        try:
            game = get_game(data["game"])
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
        settings = data.pop("settings", None) or {}
        if not isinstance(settings, dict):
            raise ValueError(f"settings must be a mapping, not {settings!r}")
        settings = dict(settings)
        name = data.get("strategy")
        strategy = get_strategy(name) if isinstance(name, str) else None
        for name in sorted(set(data) - known):
            if strategy is not None and name in strategy.setting_names:
                value = data.pop(name)
                if value is not None:   # a campaign file's or a command line's None: unset
                    settings.setdefault(name, value)
                continue
            if strategy is not None:   # another strategy's option: say whose
                owners = [n for n in strategy_names(strategy.command)
                          if name in STRATEGIES[n].setting_names]
                if owners:
                    raise ValueError(f"--{name.replace('_', '-')} is for "
                                     f"{' or '.join(owners)} searches")
            raise ValueError(f"unknown search option {name!r}")
        return cls(**data, game_options=options, settings=settings)
