"""``dealsearch factory``: the factory's options, its spec, and what it prints.

The work is in :mod:`.factory` (moves, cycles) and :mod:`.factory_run` (rounds, checkpoint);
the run is the framework's run service playing :class:`~.factory_strategy.FactoryStrategy`, as
it plays a search: the coordinator hands each round's expansions to the backend's workers (local
processes or a Dask cluster), takes the reports back in task order, and commits the round's
finds with the checkpoint before this command prints them; so ``--resume`` goes on from the
last commit exactly as the run left alone would have. As a search, a run has one owner (a
second ``--resume`` is refused while it lives), outlives a closed standard output, and ends
``done``, ``interrupted`` or ``failed`` however it is left.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, cast

from ...plugin import BadInput, BadOption, Game
from ...plugin.commands import (
    Backend,
    Find,
    Runner,
    SearchSpec,
    Summary,
    add_backend_options,
    add_workers_options,
    check_log_path,
    check_workers,
    count,
    duration,
    duration_text,
    ending,
    examples,
    logged_spec,
    positive_int,
    resumable,
    screen_optional,
    seed,
    serve,
    shared,
    whole_number,
)
from .catalogue import key_id
from .factory import find_loop, seed_loops
from .factory_run import Child, Factory, Node
from .factory_strategy import FactoryStrategy
from .families import family_of
from .notation import DealError, Rules, parse_deal, parse_deck
from .options import PRESETS, BeggarOptions, beggar_options, get_rules

# Small decks whose exhaustive play has cycles to grow from, per (rules, players).
START_DECKS = {("standard", 2): "------JJQQK", ("italian", 2): "00000011223",
               ("standard", 3): "------JJQQK", ("italian", 3): "00000011223"}
# the options a --resume may take: where the run goes on, not what it does
_NOT_ON_RESUME = ("start", "start_deck", "nodes", "time", "stop_after")


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
    add_backend_options(factory, "the expansions")
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


def _spec(args: argparse.Namespace) -> SearchSpec:
    """A new run's spec: the rules and hands as the game's options (hands of any sizes: its
    deals are states of cycles), the factory's settings and seed cycles as the strategy's."""
    if args.time is None and args.nodes is None:
        args.time = 120.0
    if args.balance < 0:
        raise BadOption("--balance must be at least 0")
    rules = get_rules(args.rules)
    options = beggar_options(rules.name, players=args.players, deck="any")
    settings = {"max_nodes": args.nodes, "width": args.width, "samples": args.samples,
                "stall": args.stall, "balance": args.balance,
                "balance_within": args.balance_within, "max_states": args.max_states,
                "stop_after": args.stop_after,
                "seeds": [node.to_json() for node in _seeds(args, rules)]}
    return SearchSpec(FactoryStrategy.name, seed=args.seed, workers=args.workers or 0,
                      time=args.time, game="beggar", game_options=options.to_json(),
                      settings=settings)


def _budget(spec: SearchSpec) -> str:
    """``2 min or 500 cycles to expand, whichever comes first``, as search's start line says
    its budget."""
    parts = [*([duration_text(spec.time)] if spec.time is not None else []),
             *FactoryStrategy.budget(spec.settings)]
    return " or ".join(parts) + (", whichever comes first" if len(parts) > 1 else "")


def run(args: argparse.Namespace) -> int:
    """``dealsearch factory``; a closed standard output or error never stops it: the run goes
    on to its budget writing to the log."""
    with screen_optional():
        return _factory(args)


def _factory(args: argparse.Namespace) -> int:
    if args.scheduler is None:   # a cluster's machines may have more cores than this one
        check_workers(args.workers or 0, args.oversubscribe)
    if args.resume is not None:
        if any(getattr(args, name) is not None for name in _NOT_ON_RESUME):
            raise BadOption("--resume continues the run as it was started: give only "
                            "--resume, --db and where it runs (--workers, --backend, "
                            "--scheduler)")
        spec = logged_spec(resumable(args.db, args.resume, FactoryStrategy.command),
                           args.resume)
    else:
        check_log_path(args.db)  # before the seeds are grown, not after
        spec = _spec(args)
    options = cast(BeggarOptions, spec.options)
    rules = get_rules(options.rules)
    runs: list[Runner] = []

    def started(runner: Runner, backend: Backend) -> None:
        runs.append(runner)
        if not args.json:
            action = "resuming" if args.resume else "starting"
            print(f"{action} run {runner.run_id}: factory, {rules.name} rules, "
                  f"{options.players} players, {backend.describe()}, seed {spec.seed}, "
                  f"width {spec.settings['width']}; budget {_budget(spec)}; log {args.db}",
                  flush=True)

    def on_find(find: Find) -> None:   # committed: one line per whole-deck cycle
        strategy = runs[0].strategy
        assert isinstance(strategy, FactoryStrategy)
        child = strategy.told(find.deal)
        if child is not None:
            _show(args, child, rules, find.run_id, strategy.factory)

    summary = serve(args, spec, args.resume, on_find, started)
    if summary.status != "failed":
        strategy = runs[0].strategy
        assert isinstance(strategy, FactoryStrategy)
        _print_summary(args, strategy.factory, summary)
    return ending(args, FactoryStrategy.command, summary, spec)


def _print_summary(args: argparse.Namespace, factory: Factory, summary: Summary) -> None:
    stats = factory.stats
    if args.json:
        print(json.dumps({
            "run_id": summary.run_id, "strategy": summary.strategy,
            "seconds": round(summary.seconds, 1), "nodes": stats.nodes,
            "played": stats.played, "cycles": stats.cycles, "nearest": stats.nearest,
            "full": stats.full, "with_starts": factory.with_starts,
            "restarts": stats.restarts, "closest": list(factory.closest),
            "periods": {str(k): v for k, v in sorted(stats.periods.items())}}), flush=True)
        return
    periods = ", ".join(f"{count(n)} of {p}" for p, n in sorted(stats.periods.items()))
    print(f"{duration_text(summary.seconds)}, {count(stats.nodes)} cycles expanded, "
          f"{count(stats.played)} games played, {count(stats.cycles)} cycles met; "
          f"{count(stats.full)} of the whole deck (periods in tricks: {periods or 'none'}), "
          f"{count(factory.with_starts)} with a starting deal; logged as run "
          f"{summary.run_id} in {args.db}", flush=True)


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
    print(f"[{duration_text(stats.seconds)}, node {stats.nodes}] cycle {cycle_id} "
          f"(family {family}): "
          f"period {node.period_cards} cards, {node.period_tricks} tricks; most even state "
          f"{node.imbalance} cards from a dealt one; {len(child.starts)} starting deals; "
          f"a state ({sizes}): {node.deal}", flush=True)
    for start in child.starts[:3]:
        print(f"  start: {start}")
