"""``dealsearch search`` and ``dealsearch records``: option parsing and printing only."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sqlite3
import sys
import tomllib
from contextlib import closing
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import interrupt
from .campaigns import campaign_names, config_path
from .cli_options import (
    DEFAULT_DB,
    DEFAULT_GAME,
    EXIT_MISMATCH,
    EXIT_OK,
    add_game_choice,
    add_game_options,
    check_log_path,
    duration,
    open_log,
    option_values,
    positive_int,
    seed,
)
from .errors import BadInput, BadLog, BadOption, RunFailed
from .game import Game, GameError, game_names, get_game
from .log import Find, RecordLog, iter_lines
from .search import STRATEGIES, Runner, SearchSpec, parse_duration
from .search.backends import BACKENDS, DASK_EXTRA, Backend, BackendError, MissingDask, open_backend
from .search.spec import ESCAPES, MAX_KICK, RESTARTS


def _workers(text: str) -> int:
    value = int(text) if text.isdigit() else -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: need at least 1 worker")
    return value


def add_search_parser(commands: Any, game: Game | None = None) -> None:
    """The ``search`` subcommand, with the options of ``game`` (default: beggar)."""
    game = game or get_game(DEFAULT_GAME)
    search = commands.add_parser(
        "search", help="search for long and never-ending deals, logging finds to SQLite",
        description="Search on every core and log each new best and every cycle to SQLite. "
                    "Stop with Ctrl-C at any time; --resume RUN_ID continues.")
    search.add_argument("strategy", nargs="?", choices=STRATEGIES,
                        help="random, climb or exhaustive (or from --config / --resume)")
    search.add_argument("--config", help="a campaign file (TOML), or the name of a shipped "
                                         f"one: {', '.join(campaign_names())}")
    search.add_argument("--resume", type=positive_int, metavar="RUN_ID",
                        help="continue an interrupted run from its last checkpoint")
    search.add_argument("--db", default=DEFAULT_DB, help=f"the log (default: {DEFAULT_DB})")
    search.add_argument("--workers", type=_workers, help="worker processes (default: every core)")
    search.add_argument("--seed", type=seed,
                        help="PRNG seed, 0 to 2**63-1 (default: chosen and logged)")
    search.add_argument("--deals", type=positive_int, help="budget: games to play")
    search.add_argument("--time", type=duration, help="budget: 8h, 30m, 90s, 1h30m")
    search.add_argument("--objective", choices=game.measures,
                        help=f"longer means more {' or more '.join(game.measures)} (default: "
                             f"{game.measures[0]})")
    search.add_argument("--start", help="climb: start every climber from this deal")
    search.add_argument("--escape", choices=ESCAPES,
                        help="climb: beyond pure ascent (default: anneal)")
    search.add_argument("--stall", type=positive_int,
                        help="climb: games without a new best before a restart "
                             "(default 5000)")
    search.add_argument("--restart", choices=RESTARTS,
                        help="climb: after a stall, start again from a random deal (default) "
                             "(random), from one of the climber's best deals, a few mutations away "
                             "(pool), or from a child of two of them (crossover)")
    if game.name == "beggar":
        search.add_argument("--kick", type=positive_int, metavar="K",
                            help=f"climb: K random mutations per mutant, 1 to {MAX_KICK} "
                                 "(default 1)")
        search.add_argument("--reverse-every", type=positive_int, metavar="K",
                            help="climb (2 players): every K new bests of a climber, grow its "
                                 "deal backwards and continue from the longest result")
    search.add_argument("--backend", choices=BACKENDS,
                        help="where the work runs: local processes (default) or a Dask "
                             "cluster (pip install 'dealsearch[dask]')")
    search.add_argument("--scheduler", metavar="ADDRESS",
                        help="dask: the scheduler, e.g. tcp://host:8786 (default: start a "
                             "cluster of --workers processes on this machine)")
    search.add_argument("--json", action="store_true",
                        help="print each find and the summary as JSON lines")
    search.add_argument("--quiet", action="store_true", help="no progress bar")
    search.add_argument("--verbose", action="store_true",
                        help="climb: also print each climber's own new bests and growths")
    add_game_choice(search, default=None)
    add_game_options(search, game)


_SPEC_OPTIONS = ("strategy", "seed", "workers", "deals", "time", "objective", "start", "escape",
                 "stall", "reverse_every", "restart", "kick")


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
    if "strategy" not in options:
        raise BadInput("search needs a strategy (random, climb, exhaustive), --config or "
                       "--resume")
    options.setdefault("seed", int.from_bytes(os.urandom(4), "little"))
    try:
        return SearchSpec.from_json(options)
    except (ValueError, TypeError) as error:
        raise BadOption(str(error)) from None


def _backend_name(args: argparse.Namespace) -> str:
    """--backend, or dask when only --scheduler is given."""
    if args.backend == "local" and args.scheduler is not None:
        raise BadOption("--scheduler needs --backend dask")
    return args.backend or ("dask" if args.scheduler is not None else "local")


def _open_backend(name: str, spec: SearchSpec, scheduler: str | None) -> Backend:
    """The backend, started and with a worker; every failure is one line of bad input."""
    try:
        backend = open_backend(name, spec.worker_count, scheduler)
    except MissingDask:
        raise BadOption(f"--backend dask needs Dask: {DASK_EXTRA}") from None
    except BackendError as error:
        raise BadOption(str(error)) from None
    if not backend.slots:
        print(f"waiting for a worker to join {scheduler} (Ctrl-C to give up)", file=sys.stderr,
              flush=True)
        try:
            backend.wait_for_workers()
        except BaseException:
            backend.close()
            raise
    return backend


def cmd_search(args: argparse.Namespace) -> int:
    """``dealsearch search``: run (or resume) a search and print its finds and summary."""
    backend_name = _backend_name(args)
    if args.resume is not None:
        given = [f"--{k.replace('_', '-')}" for k in _given(args)]
        if given or args.config:
            raise BadOption(f"--resume continues the run as it was started: drop "
                            f"{(given or ['--config'])[0]}")
        if not Path(args.db).exists():
            raise BadLog(f"no run {args.resume}: no log at {args.db}")
        with closing(open_log(args.db)) as log:
            run = log.run(args.resume)
        if run is None:
            raise BadOption(f"no run {args.resume} in {args.db}")
        if run["status"] == "done":
            raise BadOption(f"run {args.resume} is already done")
        if run["strategy"] not in STRATEGIES:
            raise BadOption(f"run {args.resume} is a {run['strategy']} run, which cannot be "
                            f"resumed; {_how_to_continue(run, args.db)}")
        try:
            spec = SearchSpec.from_json(run["options"])
        except (ValueError, TypeError) as error:
            raise BadOption(f"run {args.resume} cannot be resumed: {error}") from None
        run_id: int | None = args.resume
    else:
        spec = _spec(args)
        run_id = None
        check_log_path(args.db)  # before any worker starts

    def on_find(find: Find) -> None:
        if args.json:
            print(json.dumps(find.to_json()), flush=True)
        else:
            tqdm.write(_describe_find(find))

    def on_note(note: str) -> None:  # a climber's own progress: its new bests are finds
        if args.verbose and not args.json:
            tqdm.write(note)

    # kill (SIGTERM) stops as cleanly as Ctrl-C: summary printed, run marked interrupted.
    interrupt.install()
    # The backend is up before the log is touched: a missing package or an unreachable
    # scheduler leaves no run behind.
    with _open_backend(backend_name, spec, args.scheduler) as backend, \
            closing(open_log(args.db)) as log:
        runner = Runner(spec, log, run_id, on_find, on_note, progress=not args.quiet,
                        backend=backend)
        if not args.json:
            action = "resuming" if run_id else "starting"
            setting = (f"{spec.rules} rules, {spec.players} players" if spec.game == "beggar"
                       else f"{spec.game}, {spec.options.key()}")
            print(f"{action} run {runner.run_id}: {spec.strategy} search, {setting}, "
                  f"{backend.describe()}, seed {spec.seed}; log {args.db}", flush=True)
        try:
            summary = runner.run()
        except sqlite3.DatabaseError as error:  # the log cannot be written: disk full, locked
            raise RunFailed(f"run {runner.run_id} failed: cannot write the log {args.db}: "
                            f"{error}") from None
    if args.json:
        print(json.dumps(summary.to_json()), flush=True)
    else:
        best = summary.best
        best_text = f"{_counts(best, spec.plugin.measures)}: {best['deal']}" if best else "none"
        rate = summary.deals / summary.seconds if summary.seconds else 0.0
        print(f"run {summary.run_id} {summary.status}: {summary.deals:,} deals, "
              f"{summary.cards:,} cards in {summary.seconds:.1f} s ({rate:,.0f} deals/s); "
              f"outcomes {summary.outcomes}; best {best_text}")
    where = "" if backend_name == "local" else " --backend dask"
    if args.scheduler is not None:
        where += f" --scheduler {args.scheduler}"
    resume = f"dealsearch search --resume {summary.run_id} --db {args.db}{where}"
    if summary.status == "failed":
        raise RunFailed(f"run {summary.run_id} failed: {summary.error}; continue with: {resume}")
    if summary.status == "interrupted":
        if not args.json:
            print(f"continue with: {resume}")
        return interrupt.exit_status(summary.signal)
    return EXIT_OK


def _counts(values: dict[str, Any], measures: tuple[str, ...], sep: str = ", ") -> str:
    """E.g. '8344 cards, 1164 tricks'."""
    return sep.join(f"{values[m]} {m}" for m in measures)


def _describe_find(find: Find) -> str:
    if find.cycle is not None:
        return (f"CYCLE {find.deal}: entry {_counts(find.entry, tuple(find.entry), ' / ')},"
                f" period {_counts(find.period, tuple(find.period), ' / ')}")
    return f"best {_counts(find.measures, tuple(find.measures))}: {find.deal}"


# ---------------------------------------------------------------- records

def add_records_parser(commands: Any) -> None:
    """The ``records`` subcommand."""
    records = commands.add_parser("records", help="list (and re-verify) the finds of a log")
    records.add_argument("--db", default=DEFAULT_DB, help=f"the log (default: {DEFAULT_DB})")
    records.add_argument("--run", type=positive_int, action="append", metavar="ID",
                         help="only finds of this run (repeatable)")
    fmt = records.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per line")
    fmt.add_argument("--csv", action="store_true", help="CSV with a header line")
    records.add_argument("--verify", action="store_true",
                         help="replay every stored deal and confirm its stored counts")
    records.add_argument("--cycles", action="store_true",
                         help="the cycle catalogue: each distinct cycle and the deals reaching it")
    add_game_choice(records)


def cmd_records(args: argparse.Namespace) -> int:
    """``dealsearch records``: the finds of a log, best first, then the cycles."""
    game = get_game(args.game)
    log = open_log(args.db, must_exist=True)
    if args.cycles:
        return _print_cycles(log, args, game)
    rows = log.finds(args.run or (), game=game.name)
    if args.verify:
        return _verify_records(log, rows)
    measures = game.measures
    if args.json:
        for line in iter_lines(rows):
            print(json.dumps(line))
    elif args.csv:
        # BMN keeps the v1 columns; other games name their options in full, so that every row
        # can be replayed (dealsearch verify --game NAME with those options).
        head, tail = ((["rules"], ["winner"]) if game.name == "beggar" else
                      (["options_key"], ["details"]))
        fields = ["deal", *head, "outcome", *tail, *measures,
                  *(f"entry_{m}" for m in measures), *(f"period_{m}" for m in measures),
                  "strategy", "run_id", *(["limits"] if game.name == "beggar" else [])]
        writer = csv.DictWriter(sys.stdout, fields, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, "details": json.dumps(row["details"])} for row in rows)
    else:
        heads = "".join(f" {m:>6}" for m in measures)
        for options_key, group in _by_setting(rows, game):
            if options_key is not None:
                print(f"{game.name}: {options_key}")
            print(f"{'outcome':<7}{heads} {'period':>12}  {'run':>4} {'strategy':<10} deal")
            for row in group:
                period = ("/".join(str(row[f"period_{m}"]) for m in measures)
                          if row["outcome"] == "cycle" else "")
                values = "".join(f" {row[m]:>{max(6, len(m))}}" for m in measures)
                print(f"{row['outcome']:<7}{values} {period:>12}  {row['run_id']:>4} "
                      f"{row['strategy']:<10} {row['deal']}")
        print(f"{len(rows)} finds in {args.db}")
        _print_other_games(log, game)
        _print_unfinished(log, args, game)
    return EXIT_OK


def _print_other_games(log: RecordLog, game: Game) -> None:
    """Say so when the log holds runs of other games: records shows one game at a time."""
    others = sorted({run["game"] for run in log.runs()} - {game.name})
    if others:
        print(f"the log also holds runs of {', '.join(others)}: add --game NAME to see them")


def _print_unfinished(log: RecordLog, args: argparse.Namespace, game: Game) -> None:
    """A line for each run of the game not done (running, interrupted or failed) and how to
    resume it."""
    for run in log.runs():
        if run["status"] == "done" or run["game"] != game.name or (
                args.run and run["id"] not in args.run):
            continue
        kind = "search" if run["strategy"] in STRATEGIES else "run"
        print(f"run {run['id']} {run['status']}: {run['strategy']} {kind}, {run['deals']:,} "
              f"deals; {_how_to_continue(run, args.db)}")


def _how_to_continue(run: dict[str, Any], db: str) -> str:
    """A search resumes; any other run (the factory, a reverse walk) starts again."""
    if run["strategy"] in STRATEGIES:
        return f"continue with: dealsearch search --resume {run['id']} --db {db}"
    again = run["options"].get("again")
    if again:
        return f"not resumable; start it again with: {again}"
    return "not resumable"


def _by_setting(rows: list[dict[str, Any]], game: Game
                ) -> list[tuple[str | None, list[dict[str, Any]]]]:
    """Rows grouped by the options they were found under, in order of first appearance, so
    that finds of different settings are never ranked together. BMN keeps its one table
    (its rows say their rules; the v1 layout is kept): key None."""
    if game.name == "beggar":
        return [(None, rows)]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["options_key"], []).append(row)
    return list(groups.items())


def _pair(values: list[Any]) -> str:
    if len(values) == 2:
        return f"{values[0]!s:>6}/{values[1]!s:<5}"
    return f"{'/'.join(map(str, values)):>12}"


def _print_cycles(log: RecordLog, args: argparse.Namespace, game: Game) -> int:
    cycles = log.cycles(game.name)
    if args.json:
        for cycle in cycles:
            print(json.dumps(cycle))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, list(cycles[0]) if cycles else ["id"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(cycles)
    else:
        what = ("smallest state (player to move first)" if game.name == "beggar"
                else "cycle key")
        for options_key, group in _by_setting(cycles, game):
            if options_key is None:
                print(f"{'cycle':<12} {'rules':<9} {'period':>12} {'entry':>12} {'deals':>6}  "
                      f"{what}")
            else:
                print(f"{game.name}: {options_key}")
                print(f"{'cycle':<12} {'period':>12} {'entry':>12} {'deals':>6}  {what}")
            for c in group:
                period = _pair([c[f"period_{m}"] for m in game.measures])
                entry = _pair([c[f"entry_{m}"] for m in game.measures])
                rules = f" {c['rules']:<9}" if options_key is None else ""
                print(f"{c['id']:<12}{rules} {period} {entry} {c['deals']:>6}  {c['key']}")
        print(f"{len(cycles)} distinct cycles in {args.db}")
    return EXIT_OK


def _find_options(log: RecordLog, row: dict[str, Any], specs: dict[int, Any]) -> Any:
    """The options a find was played under: its run's spec rebuilt (the values given), or,
    for runs that are not searches (reverse), the find's own options."""
    game = get_game(row["game"])
    if row["run_id"] not in specs:
        run = log.run(row["run_id"])
        try:
            specs[row["run_id"]] = SearchSpec.from_json(run["options"]).options if run else None
        except (ValueError, TypeError):
            specs[row["run_id"]] = None
    options = specs[row["run_id"]]
    if options is None or options.key() != row["options_key"]:
        options = game.options(**row["game_options"])
    return options


def _verify_records(log: RecordLog, rows: list[dict[str, Any]]) -> int:
    bad = 0
    specs: dict[int, Any] = {}
    for row in rows:
        try:
            game = get_game(row["game"])
            options = _find_options(log, row, specs)
            _, result = game.verify(row["deal"], options)
        except (GameError, ValueError) as error:
            print(f"MISMATCH {row['deal']}: {error}")
            bad += 1
            continue
        stored = (row["outcome"], *row["measures"].values())
        replayed = (result.outcome, *result.measures.values())
        first = game.measures[0]
        if replayed != stored or (result.outcome == "cycle" and (
                result.entry[first], result.period[first])
                != (row["entry"].get(first), row["period"].get(first))):
            print(f"MISMATCH {row['deal']}: stored {stored}, replayed {replayed}")
            bad += 1
    print(f"{len(rows)} finds replayed, {bad} mismatches")
    return EXIT_MISMATCH if bad else EXIT_OK
