"""``dealsearch search`` and ``dealsearch records``: option parsing and printing only."""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import sys
import tomllib
from contextlib import closing
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .campaigns import config_path
from .cli_options import (
    DEFAULT_DB,
    EXIT_MISMATCH,
    EXIT_OK,
    BadInput,
    add_game_options,
    positive_int,
)
from .engine import play
from .log import Find, RecordLog, iter_lines
from .notation import DealError, parse_deal
from .rules import get_rules
from .search import STRATEGIES, Runner, SearchSpec, parse_duration
from .search.backends import BACKENDS, DASK_EXTRA, Backend, BackendError, MissingDask, open_backend
from .search.spec import ESCAPES, OBJECTIVES


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _workers(text: str) -> int:
    value = int(text) if text.isdigit() else -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: need at least 1 worker")
    return value


def add_search_parser(commands: Any) -> None:
    """The ``search`` subcommand."""
    search = commands.add_parser(
        "search", help="search for long and never-ending deals, logging finds to SQLite",
        description="Search on every core and log each new best and every cycle to SQLite. "
                    "Stop with Ctrl-C at any time; --resume RUN_ID continues.")
    search.add_argument("strategy", nargs="?", choices=STRATEGIES,
                        help="random, climb or exhaustive (or from --config / --resume)")
    search.add_argument("--config", help="a campaign file (TOML), or the name of a shipped "
                                         "one: overnight, cycles-small-decks, "
                                         "random-3-players")
    search.add_argument("--resume", type=positive_int, metavar="RUN_ID",
                        help="continue an interrupted run from its last checkpoint")
    search.add_argument("--db", default=DEFAULT_DB, help=f"the log (default: {DEFAULT_DB})")
    search.add_argument("--workers", type=_workers, help="worker processes (default: every core)")
    search.add_argument("--seed", type=int, help="PRNG seed (default: chosen and logged)")
    search.add_argument("--deals", type=positive_int, help="budget: games to play")
    search.add_argument("--time", type=_duration, help="budget: 8h, 30m, 90s, 1h30m")
    search.add_argument("--players", type=int, choices=(2, 3, 4), help="default 2")
    search.add_argument("--deck", help="the deck in compact notation (exhaustive: required; "
                                       "others: default the rules' full deck)")
    search.add_argument("--objective", choices=OBJECTIVES, help="longer means more cards "
                                                                "(default) or more tricks")
    search.add_argument("--start", help="climb: start every climber from this deal")
    search.add_argument("--escape", choices=ESCAPES,
                        help="climb: beyond pure ascent (default: anneal)")
    search.add_argument("--stall", type=positive_int,
                        help="climb: games without a new best before a restart "
                             "(default 5000)")
    search.add_argument("--reverse-every", type=positive_int, metavar="K",
                        help="climb (2 players): every K new bests of a climber, grow its deal "
                             "backwards and continue from the longest result")
    search.add_argument("--backend", choices=BACKENDS,
                        help="where the work runs: local processes (default) or a Dask "
                             "cluster (pip install 'dealsearch[dask]')")
    search.add_argument("--scheduler", metavar="ADDRESS",
                        help="dask: the scheduler, e.g. tcp://host:8786 (default: start a "
                             "cluster of --workers processes on this machine)")
    search.add_argument("--json", action="store_true",
                        help="print each find and the summary as JSON lines")
    search.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(search, default_rules=None)


_SPEC_OPTIONS = ("strategy", "rules", "players", "deck", "max_cards", "max_tricks", "seed",
                 "workers", "deals", "time", "objective", "start", "escape",
                 "stall", "reverse_every")


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
    options.update({k: getattr(args, k) for k in _SPEC_OPTIONS if getattr(args, k) is not None})
    if "strategy" not in options:
        raise BadInput("search needs a strategy (random, climb, exhaustive), --config or "
                       "--resume")
    options.setdefault("seed", int.from_bytes(os.urandom(4), "little"))
    try:
        return SearchSpec.from_json(options)
    except (ValueError, TypeError) as error:
        raise BadInput(str(error)) from None


def _backend_name(args: argparse.Namespace) -> str:
    """--backend, or dask when only --scheduler is given."""
    if args.backend == "local" and args.scheduler is not None:
        raise BadInput("--scheduler needs --backend dask")
    return args.backend or ("dask" if args.scheduler is not None else "local")


def _open_backend(name: str, spec: SearchSpec, scheduler: str | None) -> Backend:
    """The backend, started and with a worker; every failure is one line of bad input."""
    try:
        backend = open_backend(name, spec.worker_count, scheduler)
    except MissingDask:
        raise BadInput(f"--backend dask needs Dask: {DASK_EXTRA}") from None
    except BackendError as error:
        raise BadInput(str(error)) from None
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
        given = [f"--{k.replace('_', '-')}" for k in _SPEC_OPTIONS if getattr(args, k) is not None]
        if given or args.config:
            raise BadInput(f"--resume continues the run as it was started: drop "
                           f"{(given or ['--config'])[0]}")
        with closing(RecordLog(args.db)) as log:
            run = log.run(args.resume)
        if run is None:
            raise BadInput(f"no run {args.resume} in {args.db}")
        if run["status"] == "done":
            raise BadInput(f"run {args.resume} is already done")
        spec = SearchSpec.from_json(run["options"])
        run_id: int | None = args.resume
    else:
        spec = _spec(args)
        run_id = None

    def on_find(find: Find) -> None:
        if args.json:
            print(json.dumps(find.to_json()), flush=True)
        else:
            tqdm.write(_describe_find(find))

    def on_note(note: str) -> None:
        if not args.json and not args.quiet:
            tqdm.write(note)

    # kill (SIGTERM) stops as cleanly as Ctrl-C: summary printed, run marked interrupted.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    # The backend is up before the log is touched: a missing package or an unreachable
    # scheduler leaves no run behind.
    with _open_backend(backend_name, spec, args.scheduler) as backend, \
            closing(RecordLog(args.db)) as log:
        runner = Runner(spec, log, run_id, on_find, on_note, progress=not args.quiet,
                        backend=backend)
        if not args.json:
            action = "resuming" if run_id else "starting"
            print(f"{action} run {runner.run_id}: {spec.strategy} search, {spec.rules} rules, "
                  f"{spec.players} players, {backend.describe()}, seed {spec.seed}; "
                  f"log {args.db}", flush=True)
        summary = runner.run()
    if args.json:
        print(json.dumps(summary.to_json()), flush=True)
    else:
        best = summary.best
        best_text = f"{best['cards']} cards, {best['tricks']} tricks: {best['deal']}" if best \
            else "none"
        rate = summary.deals / summary.seconds if summary.seconds else 0.0
        print(f"run {summary.run_id} {summary.status}: {summary.deals:,} deals, "
              f"{summary.cards:,} cards in {summary.seconds:.1f} s ({rate:,.0f} deals/s); "
              f"outcomes {summary.outcomes}; best {best_text}")
        if summary.status == "interrupted":
            where = "" if backend_name == "local" else " --backend dask"
            if args.scheduler is not None:
                where += f" --scheduler {args.scheduler}"
            print(f"continue with: dealsearch search --resume {summary.run_id} --db {args.db}"
                  f"{where}")
    return EXIT_OK


def _describe_find(find: Find) -> str:
    if find.cycle is not None:
        return (f"CYCLE {find.deal}: entry {find.cycle.entry_cards} cards / "
                f"{find.cycle.entry_tricks} tricks, period {find.cycle.period_cards} cards / "
                f"{find.cycle.period_tricks} tricks")
    return f"best {find.cards} cards, {find.tricks} tricks: {find.deal}"


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


def _limits(text: str) -> dict[str, int]:
    return {key: int(value) for key, value in
            (part.split("=") for part in text.split(",") if part)}


def cmd_records(args: argparse.Namespace) -> int:
    """``dealsearch records``: the finds of a log, best first, then the cycles."""
    if not Path(args.db).exists():
        raise BadInput(f"no log at {args.db}")
    log = RecordLog(args.db)
    if args.cycles:
        return _print_cycles(log, args)
    rows = log.finds(args.run or ())
    if args.verify:
        return _verify_records(rows)
    if args.json:
        for line in iter_lines(rows):
            print(json.dumps(line))
    elif args.csv:
        fields = ["deal", "rules", "outcome", "winner", "cards", "tricks", "entry_cards",
                  "entry_tricks", "period_cards", "period_tricks", "strategy", "run_id",
                  "limits"]
        writer = csv.DictWriter(sys.stdout, fields, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        print(f"{'outcome':<7} {'cards':>6} {'tricks':>6} {'period':>12}  {'run':>4} "
              f"{'strategy':<10} deal")
        for row in rows:
            period = (f"{row['period_cards']}/{row['period_tricks']}"
                      if row["outcome"] == "cycle" else "")
            print(f"{row['outcome']:<7} {row['cards']:>6} {row['tricks']:>6} {period:>12}  "
                  f"{row['run_id']:>4} {row['strategy']:<10} {row['deal']}")
        print(f"{len(rows)} finds in {args.db}")
    return EXIT_OK


def _print_cycles(log: RecordLog, args: argparse.Namespace) -> int:
    cycles = log.cycles()
    if args.json:
        for cycle in cycles:
            print(json.dumps(cycle))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, list(cycles[0]) if cycles else ["id"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(cycles)
    else:
        print(f"{'cycle':<12} {'rules':<9} {'period':>12} {'entry':>12} {'deals':>6}  "
              "smallest state (player to move first)")
        for c in cycles:
            print(f"{c['id']:<12} {c['rules']:<9} {c['period_cards']:>6}/{c['period_tricks']:<5} "
                  f"{c['entry_cards']:>6}/{c['entry_tricks']:<5} {c['deals']:>6}  {c['key']}")
        print(f"{len(cycles)} distinct cycles in {args.db}")
    return EXIT_OK


def _verify_records(rows: list[dict[str, Any]]) -> int:
    bad = 0
    for row in rows:
        try:
            rules = get_rules(row["rules"])
            deal = parse_deal(row["deal"], rules, deck="any")
        except (DealError, ValueError) as error:
            print(f"MISMATCH {row['deal']}: {error}")
            bad += 1
            continue
        result = play(deal, rules, **_limits(row["limits"]))
        stored = (row["outcome"], row["cards"], row["tricks"])
        if (result.outcome, result.cards, result.tricks) != stored or (
                result.cycle and (result.cycle.entry_cards, result.cycle.period_cards)
                != (row["entry_cards"], row["period_cards"])):
            print(f"MISMATCH {row['deal']}: stored {stored}, replayed "
                  f"{(result.outcome, result.cards, result.tricks)}")
            bad += 1
    print(f"{len(rows)} finds replayed, {bad} mismatches")
    return EXIT_MISMATCH if bad else EXIT_OK
