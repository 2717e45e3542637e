"""``dealsearch factory``: options, the run on a backend's workers, the log, the output.

The work is in :mod:`.factory` (moves, cycles) and :mod:`.factory_run` (rounds, checkpoint).
This process is the coordinator: it hands each round's expansions to the backend's workers
(local processes or a Dask cluster, as ``search`` does), takes the reports back in task order,
and commits the round's finds with the run's checkpoint in one transaction before it prints
them; so ``--resume`` goes on from the last commit exactly as the run left alone would have.
As a search, a run has one owner (:mod:`dealsearch.log.ownership`: a second ``--resume`` is
refused while it lives), outlives a closed standard output (:mod:`dealsearch.cli.terminal`), and
ends ``done``, ``interrupted`` or ``failed`` however it is left
(:class:`~dealsearch.log.run.ManagedRun`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from contextlib import closing
from typing import Any

from tqdm import tqdm

from ... import interrupt
from ...cli.advice import CANNOT_RESUME, how_to_continue
from ...cli.cluster import add_dask_options, chosen_backend, dask_security
from ...cli.options import (
    EXIT_OK,
    add_workers_options,
    check_log_path,
    check_workers,
    cores,
    duration,
    examples,
    open_log,
    positive_int,
    seed,
    shared,
    whole_number,
)
from ...cli.terminal import screen_optional
from ...interrupt import deferred, exit_status
from ...log import LOST, Find, ManagedRun
from ...log.ownership import Owner, claim, let_go, refuse_if_owned
from ...plugin import BadInput, BadLog, BadOption, Game, RunFailed
from ...search.backends import (
    BACKENDS,
    DASK_EXTRA,
    Backend,
    BackendError,
    MissingDask,
    open_backend,
)
from ...search.hooks import TestHooks
from ...search.runner import describe_failure
from ...text import count, progress_stream
from ...text import duration as took
from .catalogue import key_id
from .engine import play
from .factory import find_loop, seed_loops
from .factory_run import Child, Factory, Node, Settings, expand_node, task_args
from .families import family_of
from .notation import DealError, Rules, parse_deal, parse_deck
from .options import PRESETS, BeggarOptions, beggar_options

# Small decks whose exhaustive play has cycles to grow from, per (rules, players).
START_DECKS = {("standard", 2): "------JJQQK", ("italian", 2): "00000011223",
               ("standard", 3): "------JJQQK", ("italian", 3): "00000011223"}
RESUME = "dealsearch factory --resume"
COMMIT_SECONDS = 2.0  # rounds without a find are committed at most this often
# what the run's options keep besides its settings (to rebuild its seeds on --resume)
_KEPT = ("players", "start_deck", "start", "workers")


def add_parser(commands: Any, game: Game | None = None) -> argparse.ArgumentParser:
    """The ``factory`` command (the same whichever game the parser is built for)."""
    factory: argparse.ArgumentParser = commands.add_parser(
        "factory", parents=[shared("db")],
        description="Play every deal of a small deck, keep the cycles, and grow them: change "
                    "a state of a cycle by a card or two and keep the new state if its game "
                    "never ends either, until a cycle holds the whole deck; then walk "
                    "backwards to starting deals that enter it. Every such cycle is logged. "
                    "The expansions run on every core (or a Dask cluster); an interrupted "
                    "run goes on with --resume.",
        epilog=examples("dealsearch factory --time 2m",
                        "dealsearch factory --rules italian --players 3 --stop-after 1",
                        "dealsearch factory --resume 3",
                        "dealsearch records --cycles"))
    factory.add_argument("--rules", choices=sorted(PRESETS), default="standard",
                         help="payments, notation and deck")
    factory.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="hands")
    factory.add_argument("--deck", "--start-deck", dest="start_deck", metavar="DECK",
                         help="the small deck whose cycles are grown (compact notation; "
                              "default: ------JJQQK, Italian 00000011223)")
    factory.add_argument("--start", metavar="DEAL",
                         help="grow the cycle this never-ending deal enters instead")
    factory.add_argument("--seed", type=seed, default=1, help="PRNG seed")
    factory.add_argument("--time", type=duration,
                         help="budget: 90s, 3m, 1h (default 2m unless --nodes is given)")
    factory.add_argument("--nodes", type=positive_int, help="budget: cycles to expand")
    factory.add_argument("--samples", type=positive_int, default=4096,
                         help="changed states tried per cycle expanded")
    factory.add_argument("--width", type=positive_int, default=16,
                         help="cycles expanded per round, side by side (default 16); a run "
                              "is the same for a seed, width and --nodes on any workers")
    factory.add_argument("--stall", type=positive_int, default=300, metavar="N",
                         help="start again from the seeds after N cycles expanded without a "
                              "nearer (or, on the whole deck, more even) one (default 300)")
    factory.add_argument("--balance", type=float, default=0.5, metavar="W",
                         help="priority: W per card of a cycle's most even state away from a "
                              "dealt split (default 0.5) ...")
    factory.add_argument("--balance-within", type=whole_number, default=0, metavar="D",
                         help="... for cycles within D cards of the whole deck (default 0: "
                              "the whole deck only; 52: from the seeds on)")
    factory.add_argument("--max-states", type=positive_int, default=20_000, metavar="N",
                         help="states walked back from each whole-deck cycle")
    factory.add_argument("--stop-after", type=positive_int, metavar="K",
                         help="stop after the round in which K whole-deck cycles with a "
                              "starting deal are found (default: go on to the budget)")
    add_workers_options(factory)
    factory.add_argument("--backend", choices=BACKENDS,
                         help="where the expansions run: local processes or a Dask cluster "
                              "(default: local)")
    factory.add_argument("--scheduler", metavar="ADDRESS",
                         help="dask: the scheduler, e.g. tcp://host:8786 or tls://host:8786")
    add_dask_options(factory)
    factory.add_argument("--resume", type=positive_int, metavar="RUN",
                         help="continue an interrupted factory run of the log")
    factory.add_argument("--json", action="store_true",
                         help="one JSON object per whole-deck cycle, then a summary line")
    factory.add_argument("--quiet", action="store_true", help="no progress bar")
    return factory


def _seeds(args: argparse.Namespace, rules: Rules) -> list[Node]:
    if args.start:
        try:
            deal = parse_deal(args.start, rules, "any")
        except DealError as error:
            raise BadInput(f"--start: {error}") from None
        loop = find_loop(deal, rules)
        if loop is None:
            raise BadInput("--start: that deal's game ends; give a never-ending deal")
        if loop.players != args.players:
            raise BadInput(f"--start has {loop.players} hands but --players is {args.players}")
        return [Node.of(loop, rules)]
    text = args.start_deck or START_DECKS.get((rules.name, args.players))
    if text is None:
        raise BadInput(f"no default start deck for {args.players} players: give --deck")
    try:
        deck = parse_deck(text, rules)
    except DealError as error:
        raise BadInput(f"--deck: {error}") from None
    if any(have > want for have, want in zip(deck, rules.deck, strict=True)):
        raise BadInput(f"--deck {text}: more cards of a class than the {rules.name} deck")
    try:
        seeds = seed_loops(deck, rules, args.players)
    except ValueError as error:
        raise BadInput(f"--deck {text}: {error}") from None
    if not seeds:
        raise BadInput(f"--deck {text}: no deal of it never ends with {args.players} "
                       "players; choose another deck")
    return [Node.of(loop, rules) for loop in seeds]


def _finds(child: Child, rules: Rules, run_id: int, options: BeggarOptions) -> list[Find]:
    """The cycle's first state as a deal (hands of any sizes), then each starting deal; each
    says the cycle's family and most even state in its details."""
    node = child.node
    family = family_of(node.deal, rules)
    extra = {"family": family, "most_even": child.even, "imbalance": node.imbalance}
    finds = []
    for text in (node.deal, *child.starts):
        found = play(parse_deal(text, rules, "any"), rules)
        finds.append(Find(text, found.outcome, dict(found.measures), "factory", run_id,
                          dict(found.entry), dict(found.period),
                          {**found.details, **extra}, node.key, key_id(node.key, rules),
                          options.key(), options.to_json(), game="beggar"))
    return finds


def _progress(factory: Factory, found: int, checkpoint: dict[str, Any]) -> dict[str, Any]:
    return {"seconds": factory.stats.seconds, "deals": factory.stats.played,
            "totals": {"cards": 0},
            "outcomes": {"cycle": found}, "checkpoint": checkpoint}


def _summary(factory: Factory, run_id: int) -> dict[str, Any]:
    stats = factory.stats
    return {"run_id": run_id, "strategy": "factory", "seconds": round(stats.seconds, 1),
            "nodes": stats.nodes, "played": stats.played, "cycles": stats.cycles,
            "nearest": stats.nearest, "full": stats.full, "with_starts": factory.with_starts,
            "restarts": stats.restarts, "closest": list(factory.closest),
            "periods": {str(k): v for k, v in sorted(stats.periods.items())}}


def _settings(args: argparse.Namespace) -> Settings:
    if args.time is None and args.nodes is None:
        args.time = 120.0
    if args.balance < 0:
        raise BadOption("--balance must be at least 0")
    return Settings(args.rules, args.seed, args.nodes, args.time, args.width, args.samples,
                    balance=args.balance, balance_within=args.balance_within,
                    stall=args.stall, max_states=args.max_states, stop_after=args.stop_after)


def _resumed(args: argparse.Namespace) -> tuple[Settings, dict[str, Any], dict[str, Any]]:
    """The settings, options and checkpoint of the run to resume; one line if it cannot be."""
    if args.start or args.start_deck or args.nodes or args.time or args.stop_after:
        raise BadOption("--resume continues the run as it was started: give only --resume, "
                        "--db and where it runs (--workers, --backend, --scheduler)")
    check_log_path(args.db, must_exist=True)
    with closing(open_log(args.db)) as log:
        log.refuse_damage(args.resume)   # a resumed run writes into the log: it must be sound
        run = log.run(args.resume)
        if run is None:
            raise BadLog(f"no run {args.resume} in {args.db}")
        refuse_if_owned(log.db, args.resume)   # before any worker starts
    if run["strategy"] == LOST:
        raise BadOption(f"run {args.resume} {CANNOT_RESUME}")
    if run["strategy"] != "factory":
        raise BadOption(f"run {args.resume} is a {run['strategy']} run, not a factory run; "
                        f"{how_to_continue(run, args.db)}")
    if "settings" not in run["options"]:
        raise BadOption(f"run {args.resume} is not a factory run of this version: "
                        "resume it with the command that started it")
    if run["status"] == "done":
        raise BadOption(f"run {args.resume} is already done")
    options = run["options"]
    if "seeds" not in run["checkpoint"]:  # stopped before its first commit: nothing to resume
        raise BadOption(f"run {args.resume} stopped before its first checkpoint; start it "
                        f"again with: {options.get('again')}")
    return Settings(**options["settings"]), options, run["checkpoint"]


def _open_backend(args: argparse.Namespace) -> Backend:
    name = chosen_backend(args)
    try:
        backend = open_backend(name, args.workers or cores(), args.scheduler,
                               dask_security(args), args.dashboard)
    except MissingDask:
        raise BadOption(f"--backend dask needs Dask: {DASK_EXTRA}") from None
    except BackendError as error:
        raise BadOption(str(error)) from None
    if not backend.slots:
        print(f"waiting for a worker to join {args.scheduler} (Ctrl-C to give up)",
              file=sys.stderr, flush=True)
        try:
            backend.wait_for_workers()
        except BaseException:
            backend.close()
            raise
    return backend


def run(args: argparse.Namespace) -> int:
    """``dealsearch factory``; a closed standard output or error never stops it
    (:mod:`dealsearch.cli.terminal`): the run goes on to its budget writing to the log."""
    with screen_optional():
        return _factory(args)


def _factory(args: argparse.Namespace) -> int:
    if args.scheduler is None:   # a cluster's machines may have more cores than this one
        check_workers(args.workers or 0, args.oversubscribe)
    if args.resume is not None:
        settings, options, checkpoint = _resumed(args)
        args.rules, args.players = settings.rules, options["players"]
    else:
        check_log_path(args.db)  # before the search, not after it
        settings = _settings(args)
        seeds = _seeds(args, settings.rules_object)
        # "time": the budget, where ``status`` reads a run's (the settings keep it too)
        options = {"settings": settings.to_json(), "time": settings.max_seconds,
                   **{k: getattr(args, k) for k in _KEPT}}
    rules = settings.rules_object
    owner = Owner.this_process()   # the run's one owner from here to its end
    backend = _open_backend(args)   # (stop signals are noted: safe points, cli.main)
    stop: KeyboardInterrupt | None = None
    finished = False
    try:
        with closing(open_log(args.db)) as log:
            # Its deals have hands of any sizes: they are logged under the rules' deck dealt
            # any way.
            bmn = beggar_options(rules.name, players=args.players, deck="any")
            if args.resume is None:
                factory = Factory(settings, seeds, None)
                # "resume": how records says to go on (the run's id and log appended)
                run = ManagedRun.start(log, "factory", {**options, "resume": RESUME},
                                       settings.seed, backend.slots, "beggar",
                                       bmn.to_json(), bmn.key(), again=_again(args),
                                       owner=owner)
            else:
                claim(log.db, args.resume, owner)   # (the log was checked: _resumed)
                # read once the run is this process's: its last owner may have written it
                checkpoint = (log.run(args.resume) or {}).get("checkpoint", checkpoint)
                seeds = [Node.from_json(node) for node in checkpoint["seeds"]]
                factory = Factory(settings, seeds, checkpoint["factory"])
                run = ManagedRun(log, args.resume, owner.token)
            with run:   # however this block is left, the run ends (never left 'running')
                if not args.json:
                    action = "resuming" if args.resume else "starting"
                    print(f"{action} run {run.run_id}: factory, {rules.name} rules, "
                          f"{args.players} players, {backend.describe()}, seed "
                          f"{settings.seed}, width {settings.width}; log {args.db}",
                          flush=True)
                stop = _run(factory, backend, run, args, rules, bmn,
                            args.hooks or TestHooks())
        finished = stop is None
    finally:
        let_go(owner.token)
        # Stopped: the round in flight is redone on --resume, so its running tasks are not
        # waited for. Futures are never cancelled one by one: a pool whose workers died of
        # the same signal would fail setting their errors (InvalidStateError); the backend
        # cancels what has not started itself.
        with deferred(reraise=False):
            backend.close(wait=finished)
    summary = _summary(factory, run.run_id)
    if args.json:
        print(json.dumps(summary))
    else:
        periods = ", ".join(f"{count(n)} of {p}" for p, n in
                            sorted(factory.stats.periods.items()))
        print(f"{took(summary['seconds'])}, {count(summary['nodes'])} cycles "
              f"expanded, {count(summary['played'])} games played, {count(summary['cycles'])} "
              f"cycles met; {count(summary['full'])} of the whole deck (periods in tricks: "
              f"{periods or 'none'}), {count(summary['with_starts'])} with a starting deal; "
              f"logged as run {run.run_id} in {args.db}")
    if stop is not None:
        if not args.json:
            print(f"continue with: {_resume(run.run_id, args.db)}")
        return exit_status(stop)
    return EXIT_OK


def _run(factory: Factory, backend: Backend, run: ManagedRun, args: argparse.Namespace,
         rules: Rules, bmn: BeggarOptions, hooks: TestHooks) -> KeyboardInterrupt | None:
    """Round after round to the budget; each round's finds are committed with the
    checkpoint after it before they are printed (``hooks``: a test's, e.g. to hold after
    a find). Returns the interrupt that stopped it."""
    bar = tqdm(total=None, unit=" cycles", disable=args.quiet or not sys.stderr.isatty(),
               file=progress_stream())
    seeds = [node.to_json() for node in factory.seeds]

    def checkpoint() -> dict[str, Any]:
        return {"seeds": seeds, "factory": factory.checkpoint()}

    saved = checkpoint()       # the state between rounds last committed (or to commit)
    found = factory.stats.full
    run.save([], _progress(factory, found, saved))
    last_commit = time.monotonic()
    stop: KeyboardInterrupt | None = None
    told = 0
    try:
        while True:
            tasks = factory.next_round()
            if not tasks:
                break
            futures = [backend.submit(expand_node, *task_args(factory.settings, task))
                       for task in tasks]
            reports = interrupt.results(futures)
            with deferred():
                whole = factory.absorb(reports)
                found = factory.stats.full
                finds = [find for child in whole
                         for find in _finds(child, rules, run.run_id, bmn)]
                if finds or time.monotonic() - last_commit >= COMMIT_SECONDS:
                    saved = checkpoint()
                    run.save(finds, _progress(factory, found, saved))
                    last_commit = time.monotonic()
            for child in whole:
                _show(args, child, rules, run.run_id, factory)
                told += 1
                hooks.after_find(told)   # a test may kill it here
            bar.set_postfix(nearest=factory.stats.nearest, full=found, refresh=False)
            bar.update(factory.stats.cycles - bar.n)
        saved = checkpoint()
    except KeyboardInterrupt as interrupted:  # the last commit stands; --resume goes on
        stop = interrupted
    except Exception as error:  # a worker raised or died: the run fails, --resume redoes
        with deferred(reraise=False):
            run.finish("failed")
        why = backend.explain(error) or describe_failure(error)   # e.g. a scheduler gone
        raise RunFailed(f"run {run.run_id} failed: {why}; continue "
                        f"with: {_resume(run.run_id, args.db)}") from error
    finally:
        bar.close()
    with deferred(reraise=False):
        if stop is None:
            run.finish("done", _progress(factory, found, saved))
        else:
            run.finish("interrupted")
    return stop


def _resume(run_id: int, db: str) -> str:
    return f"{RESUME} {run_id} --db {shlex.quote(str(db))}"


def _again(args: argparse.Namespace) -> str:
    """The command that starts this factory run again."""
    words = ["dealsearch", "factory", "--rules", args.rules, "--players", str(args.players),
             "--seed", str(args.seed), "--width", str(args.width)]
    for option in ("start_deck", "start", "nodes", "samples", "stall", "balance",
                   "balance_within", "max_states", "stop_after"):
        value = getattr(args, option)
        if value is not None:
            words += [f"--{option.replace('_', '-')}", str(value)]
    if args.time is not None:
        words += ["--time", f"{args.time:g}s"]
    return shlex.join([*words, "--db", str(args.db)])


def _show(args: argparse.Namespace, child: Child, rules: Rules, run_id: int,
          factory: Factory) -> None:
    node, stats = child.node, factory.stats
    cycle_id = key_id(node.key, rules)
    family = family_of(node.deal, rules)
    if args.json:
        print(json.dumps({"cycle_id": cycle_id, "key": node.key,
                          "period_cards": node.period_cards,
                          "period_tricks": node.period_tricks, "family": family,
                          "most_even": child.even, "imbalance": node.imbalance,
                          "deal": node.deal, "starts": child.starts, "run_id": run_id,
                          "seconds": round(stats.seconds, 1), "nodes": stats.nodes}),
              flush=True)
        return
    sizes = "/".join(str(len(hand)) for hand in parse_deal(node.deal, rules, "any").hands)
    print(f"[{took(stats.seconds)}, node {stats.nodes}] cycle {cycle_id} (family {family}): "
          f"period {node.period_cards} cards, {node.period_tricks} tricks; most even state "
          f"{node.imbalance} cards from a dealt one; {len(child.starts)} starting deals; "
          f"a state ({sizes}): {node.deal}", flush=True)
    for start in child.starts[:3]:
        print(f"  start: {start}")
