"""``dealsearch search``: run or resume a search (option parsing and printing only).

What a person sees is a screenful (:class:`~dealsearch.cli.screen.SearchScreen`); ``--json``
streams every find for machines. What is logged does not depend on either.
"""

from __future__ import annotations

import argparse
import json
import os
import tomllib
from contextlib import closing
from typing import TYPE_CHECKING, Any

from ..campaigns import campaign_names, config_path
from ..commandline.cluster import add_backend_options, chosen_backend
from ..commandline.options import (
    DEFAULT_GAME,
    add_game_options,
    add_workers_options,
    check_workers,
    cores,
    duration,
    examples,
    open_log,
    option_values,
    positive_int,
    rank_span,
    seed,
    shared,
)
from ..commandline.terminal import screen_optional
from ..devices import DEVICES
from ..errors import BadInput, BadOption
from ..game import FastSearch, Game, PlaysBackwards, game_names, get_game
from ..search.climb import ESCAPES, MAX_KICK, RESTARTS
from ..search.exhaustive import EndlessSpace, measure_rate
from ..search.spec import SearchSpec
from ..strategies import get_strategy, strategy_names
from ..text import budget, parse_duration, ranks_text

# What only a run needs (the run service and its runner, the log, tqdm, the projection) is
# imported where the run starts: the help, which reads the options, loads none of it.
if TYPE_CHECKING:
    from ..log import Find
    from ..search.backends import Backend
    from ..search.runner import Runner


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``search`` command, with the options of ``game``."""
    others = [name for name in game_names() if name != game.name]
    search: argparse.ArgumentParser = commands.add_parser(
        "search", parents=[shared("db", "game", "target")],
        description="Search on every core and log each new best and every cycle to SQLite. "
                    "A person sees the new bests and the first cycles, then a summary line "
                    "now and then and a table at the end; --json streams every find. Stop "
                    "with Ctrl-C at any time; --resume RUN_ID continues.\n\n"
                    f"The options below are {game.title}'s; "
                    f"dealsearch search --game NAME --help lists another game's "
                    f"({', '.join(others)}).",
        epilog=examples("dealsearch search random --time 10m",
                        "dealsearch search climb --game durak --players 3 --deals 1000000",
                        "dealsearch search --config spite-cycles",
                        "dealsearch search --resume 3"))
    names = strategy_names("search", games=False)   # a game's own: checked when given
    search.add_argument("strategy", nargs="?", type=_strategy,
                        help=f"{', '.join(names[:-1])} or {names[-1]} (or from --config / "
                             "--resume)")
    search.add_argument("--config", help="a campaign file (TOML), or the name of a shipped "
                                         f"one: {', '.join(campaign_names())}")
    search.add_argument("--resume", type=positive_int, metavar="RUN_ID",
                        help="continue an interrupted run from its last checkpoint, with "
                             "its options (--device may change: every device plays the same "
                             "deals) (default: start a new run)")
    add_workers_options(search)
    search.add_argument("--seed", type=seed,
                        help="PRNG seed, 0 to 2**63-1 (default: chosen and logged)")
    search.add_argument("--deals", type=positive_int,
                        help="budget: games to play (default: no limit, or the whole space "
                             "for exhaustive)")
    search.add_argument("--time", type=duration,
                        help="budget: 8h, 30m, 90s, 1h30m or 1h30 (1 h 30 min) "
                             "(default: no limit)")
    search.add_argument("--ranks", type=rank_span, metavar="START:END",
                        help="exhaustive: play the deals ranked START to END-1 of the "
                             "layout's space (see dealsearch rank; default: every deal)")
    search.add_argument("--verify-blocks", action="store_true", default=None,
                        help="exhaustive: play every task twice, as two tasks (on two "
                             "workers where two are free), and stop the run in one line "
                             "naming the shards if the two plays differ")
    search.add_argument("--objective", choices=game.measures,
                        help=f"longer means more {' or more '.join(game.measures)} (default: "
                             f"{game.measures[0]})")
    search.add_argument("--start", metavar="DEAL",
                        help="climb: start every climber from this deal (default: random deals)")
    search.add_argument("--escape", choices=ESCAPES,
                        help="climb: beyond pure ascent (default: anneal)")
    search.add_argument("--stall", type=positive_int,
                        help="climb: games without a new best before a restart "
                             "(default: 5000)")
    search.add_argument("--restart", choices=RESTARTS,
                        help="climb: after a stall, start again from a random deal (random), "
                             "from one of the climber's best deals, a few mutations away "
                             "(pool), or from a child of two of them (crossover) "
                             "(default: random)")
    if isinstance(game, FastSearch):  # its own climber takes K mutations per mutant
        search.add_argument("--kick", type=positive_int, metavar="K",
                            help=f"climb: K random mutations per mutant, 1 to {MAX_KICK} "
                                 "(default: 1)")
    if isinstance(game, PlaysBackwards):
        search.add_argument("--reverse-every", type=positive_int, metavar="K",
                            help="climb: every K new bests of a climber, grow its "
                                 "deal backwards and continue from the longest result "
                                 "(default: never)")
    search.add_argument("--device", choices=DEVICES,
                        help="random search: play the games on the cpu, on a gpu (CUDA, "
                             "through CuPy: pip install 'dealsearch[gpu]'; one worker per "
                             "GPU), or on the GPU kernel compiled for the CPU (emulate: slow, "
                             "for checks); the same seed plays the same deals on each "
                             "(default: cpu)")
    search.add_argument("--gpu-check-every", type=positive_int, metavar="N",
                        help="--device gpu or emulate: replay one chunk of 100,000 deals in N "
                             "on the CPU, during the run, and stop at the first difference "
                             "(default: 1000, 0.1%% of the deals)")
    add_backend_options(search)
    search.add_argument("--json", action="store_true",
                        help="print every find and the summary as JSON lines")
    search.add_argument("--quiet", action="store_true", help="no progress bar")
    search.add_argument("--verbose", action="store_true",
                        help="climb: also print each climber's own new bests and growths")
    search.set_defaults(game=None)   # given or not: --resume and --config tell
    add_game_options(search, game)
    return search


def _strategy(text: str) -> str:
    """An argparse type: a strategy ``search`` runs, the framework's or a game's (every game
    is imported to tell, so only when one is given, never for the help)."""
    names = strategy_names("search")
    if text not in names:
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from "
                                         f"{', '.join(names)})")
    return text


_SPEC_OPTIONS = ("strategy", "seed", "workers", "deals", "time", "objective", "start", "escape",
                 "stall", "reverse_every", "restart", "kick", "device", "gpu_check_every",
                 "ranks", "verify_blocks")


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The search and game options given on the command line."""
    given = {k: getattr(args, k) for k in _SPEC_OPTIONS if getattr(args, k, None) is not None}
    if args.game is not None:
        given["game"] = args.game
    given.update(option_values(args, get_game(args.game or DEFAULT_GAME)))
    return given


def _load_config(text: str) -> dict[str, Any]:
    try:
        path = config_path(text)
    except ValueError as error:
        raise BadInput(str(error)) from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadInput(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise BadInput(f"{path}: {error}") from None
    data = {key.replace("-", "_"): value for key, value in data.items()}
    if isinstance(data.get("time"), str):
        try:
            data["time"] = parse_duration(data["time"])
        except ValueError as error:
            raise BadInput(f"{path}: {error}") from None
    return data


def _spec(args: argparse.Namespace) -> SearchSpec:
    from ..projection import space_projection

    options: dict[str, Any] = _load_config(args.config) if args.config else {}
    parsed_for = getattr(args, "parsed_for_game", DEFAULT_GAME)
    wanted = options.get("game", DEFAULT_GAME)
    if wanted not in game_names():
        raise BadInput(f"{args.config}: unknown game {wanted!r}: choose from "
                       f"{', '.join(game_names())}")
    if args.game is not None and args.game != wanted and "game" in options:
        raise BadInput(f"{args.config} is a campaign of {wanted}, not of {args.game}")
    if args.game is None and wanted != parsed_for:
        raise BadInput(f"{args.config} searches {wanted}: add --game {wanted} so that its "
                       "options are known")
    options.update(_given(args))
    options.setdefault("game", wanted)
    if "strategy" not in options:
        raise BadInput(f"search needs a strategy ({', '.join(strategy_names('search'))}), "
                       "--config or --resume")
    options.setdefault("seed", int.from_bytes(os.urandom(4), "little"))
    try:
        return SearchSpec.from_json(options)
    except EndlessSpace as error:   # say how long the whole space would take, measured
        sample = SearchSpec.from_json({**options, "deals": 1})
        raise BadOption(str(EndlessSpace(error.total, space_projection(
            error.total, measure_rate(sample), cores(), device=sample.device)))) from None
    except (ValueError, TypeError) as error:
        raise BadOption(str(error)) from None


def _budget_words(spec: SearchSpec) -> str:
    """The budget as the start line says it: ``budget 1 h 30 min or 10,000,000 deals,
    whichever comes first``."""
    words = budget(spec.time, spec.deals)
    settings = spec.settings
    ranks = "" if not settings.get("verify_blocks") else "each task played twice, " \
        if spec.device == "cpu" else "each task played again on the CPU, "
    if settings.get("ranks") is not None:
        ranks += f"ranks {ranks_text([settings['ranks']])}, "
    if words != "none":
        return f"{ranks}budget {words}"
    every = get_strategy(spec.strategy).plays_every_deal
    return f"{ranks}until every deal is played" if every else "no budget"


def run(args: argparse.Namespace) -> int:
    """``dealsearch search``: run (or resume) a search and print its finds and summary; a
    closed standard output or error never stops it (:mod:`.terminal`)."""
    with screen_optional():
        return _search(args)


def _search(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..commandline.service import ending, logged_spec, resumable, serve
    from ..projection import run_projection
    from ..search.hooks import TestHooks
    from .screen import SearchScreen

    args.hooks = args.hooks or TestHooks()   # a test's moments, else none
    args.hooks.reach("parsed")
    chosen_backend(args)   # one line now if the backend's options do not fit
    if args.resume is not None:
        # --workers only says how many processes play it (its climbers and shards stay); the
        # device may change: deal j of chunk k is the same deal on any (the runs of a failed
        # GPU continue on the CPU)
        device = {k: v for k, v in _given(args).items() if k == "device"}
        given = [f"the strategy {args.strategy}" if k == "strategy" else
                 f"--{k.replace('_', '-')}" for k in _given(args)
                 if k not in ("workers", "device")]
        if given or args.config:
            raise BadOption(f"--resume continues the run as it was started: drop "
                            f"{(given or ['--config'])[0]}")
        spec = logged_spec(resumable(args.db, args.resume, "search"), args.resume, device)
        if args.workers and args.scheduler is None:
            check_workers(args.workers, args.oversubscribe)
    else:
        spec = _spec(args)
        if args.scheduler is None:   # a cluster's machines may have more cores than this one
            check_workers(spec.worker_count, args.oversubscribe,
                          args.config if args.workers is None else None)

    screen = SearchScreen(spec.plugin, tqdm.write, objective=spec.objective)

    def on_find(find: Find) -> None:
        if args.json:
            print(json.dumps(find.to_json()), flush=True)
        else:
            screen.find(find)

    def on_note(note: str) -> None:  # a climber's own progress: its new bests are finds
        if args.verbose and not args.json:
            tqdm.write(note)

    def started(runner: Runner, backend: Backend) -> None:
        screen.resume_from(runner.state.best)
        if not args.json:
            action = "resuming" if args.resume else "starting"
            setting = ", ".join(filter(None, (spec.plugin.title,
                                              spec.plugin.describe_options(spec.options))))
            # a search of every deal in order (exhaustive): its seed changes nothing
            every = get_strategy(spec.strategy).plays_every_deal
            seed = "" if every else f", seed {spec.seed}"
            print(f"{action} run {runner.run_id}: {spec.strategy} search, {setting}, "
                  f"{backend.describe()}{seed}; {_budget_words(spec)}; log {args.db}",
                  flush=True)

    # kill (SIGTERM) and a hang-up (SIGHUP: the terminal went away) stop as cleanly as
    # Ctrl-C: summary printed, run marked interrupted (the command notes them: main).
    summary = serve(args, spec, args.resume, on_find, started, on_note)
    if args.json:
        print(json.dumps(summary.to_json()), flush=True)
    else:
        print(screen.end(summary, resumed=args.resume is not None), flush=True)
        projection = None
        if args.db != ":memory:":   # a log in memory is gone with its run
            with closing(open_log(args.db, must_exist=True)) as log:
                projection = run_projection(log, log.run(summary.run_id) or {}, args.target)
        for line in projection.summary_lines() if projection else ():
            print(f"  {line}")
    return ending(args, "search", summary, spec)
