"""``dealsearch reverse``, one of BMN's own commands (:meth:`BeggarGame.commands`): walk a
deal's game backwards. Option parsing and printing only: the walk is in :mod:`.reverse`, and
``--along``'s run is the framework's run service playing
:class:`~.reverse_strategy.ReverseStrategy` (claimed, committed with its checkpoint, stopped
by Ctrl-C or kill as ``interrupted``, continued with ``--resume``), as ``factory``'s is.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tqdm import tqdm

from ...plugin import BadInput, BadOption, Game, get_game
from ...plugin.commands import (
    EXIT_OK,
    Backend,
    Find,
    Runner,
    SearchSpec,
    add_backend_options,
    add_game_options,
    add_workers_options,
    check_workers,
    ending,
    examples,
    interrupt,
    logged_spec,
    positive_int,
    progress_stream,
    resumable,
    serve,
    shared,
)
from .notation import format_deal, parse_deal
from .options import beggar_options, get_rules
from .reverse import MAX_CARDS, basin
from .reverse_strategy import ReverseStrategy


def add_parser(commands: Any, game: Game | None = None) -> argparse.ArgumentParser:
    """The ``reverse`` command (BMN's options whichever game the parser is built for)."""
    reverse: argparse.ArgumentParser = commands.add_parser(
        "reverse", parents=[shared("db", "game")],
        description="Walk backwards from the deal's cycle (or from the deal, if its game "
                    "ends) and report every state that leads there and every valid starting "
                    "deal among them. With --along, walk back from each state along the game "
                    "and log the starting deals whose game is longer.",
        epilog=examples(
            "dealsearch reverse ---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA",
            "dealsearch reverse --along --tricks 50 DEAL",
            "dealsearch reverse --max-states 100000 --json DEAL",
            "dealsearch reverse --resume 3"))
    reverse.add_argument("deal", metavar="DEAL", nargs="?",
                         help="a 2-player deal in any notation")
    reverse.add_argument("--along", action="store_true",
                         help="find longer terminating deals by walking back along the game")
    reverse.add_argument("--tricks", type=positive_int,
                         help="--along: how many trick boundaries to start from (default 20)")
    reverse.add_argument("--max-states", type=positive_int, metavar="N",
                         help="stop each walk after N states (default: walk it all; "
                              "--along: 100000)")
    add_workers_options(reverse, "--along: worker processes")
    add_backend_options(reverse, "--along's walks")
    reverse.add_argument("--resume", type=positive_int, metavar="RUN",
                         help="continue an interrupted --along run of the log")
    reverse.add_argument("--json", action="store_true", help="machine-readable output")
    reverse.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(reverse, get_game("beggar"), exclude=("players", "deck", "hand_sizes"))
    return reverse


def run(args: argparse.Namespace) -> int:
    """``dealsearch reverse``."""
    if args.game != "beggar":
        raise BadInput(f"reverse walks beggar games backwards; it cannot play {args.game}")
    if args.scheduler is None:   # a cluster's machines may have more cores than this one
        check_workers(args.workers or 0, args.oversubscribe)
    if args.resume is not None:
        if args.deal is not None or args.max_cards or args.max_tricks or args.rules or \
                args.max_states is not None or args.tricks is not None:
            raise BadOption("--resume continues the walk as it was started: give only "
                            "--resume, --db and where it runs (--workers, --backend, "
                            "--scheduler)")
        spec = logged_spec(resumable(args.db, args.resume, ReverseStrategy.command),
                           args.resume)
        return _along(args, spec)
    if args.deal is None:
        raise BadOption("give the DEAL to walk back from (or --resume RUN)")
    rules = get_rules(args.rules or "standard")
    deal = parse_deal(args.deal, rules, "any")  # a DealError is bad input: one line
    if deal.players != 2:
        raise BadOption(f"reverse plays 2-player deals only, this one has {deal.players} hands")
    if len(deal.cards) > MAX_CARDS:
        raise BadOption(f"reverse plays deals of at most {MAX_CARDS} cards, this one has "
                        f"{len(deal.cards)}")
    if args.max_cards or args.max_tricks:
        raise BadOption("reverse walks the unlimited game: --max-cards/--max-tricks do not apply")
    if args.along:
        settings = {"deal": format_deal(deal, rules), "tricks": args.tricks or 20,
                    "max_states": args.max_states or 100_000}
        return _along(args, SearchSpec(ReverseStrategy.name, workers=args.workers or 0,
                                       game="beggar",
                                       game_options=beggar_options(rules.name).to_json(),
                                       settings=settings))
    bar = tqdm(total=args.max_states, unit=" states", unit_scale=True, file=progress_stream(),
               disable=args.quiet or not sys.stderr.isatty())
    with interrupt.raising():   # a walk that only computes: Ctrl-C stops it at once
        found = basin(deal, rules, args.max_states, on_state=lambda n: bar.update(n - bar.n))
    bar.close()
    if args.json:
        print(json.dumps(found.to_json()))
        return EXIT_OK
    where = (f"the {found.cycle_states}-trick cycle" if found.cycle_states
             else "the deal (its game ends)")
    cut = "" if found.complete else f" (stopped at --max-states {args.max_states})"
    print(f"{found.size} states lead into {where}, up to {found.depth} tricks before it{cut}")
    print(f"{len(found.starts)} of them are starting deals:")
    for start in found.starts:
        print(f"  {start}")
    return EXIT_OK


def _along(args: argparse.Namespace, spec: SearchSpec) -> int:
    """Play the walk's run to its end; print the longer deals it committed, longest first
    (ties in the order found), then how many."""
    finds: list[Find] = []

    def started(runner: Runner, backend: Backend) -> None:
        if args.resume is not None and not args.json:
            print(f"resuming run {runner.run_id}: reverse --along, {backend.describe()}; "
                  f"log {args.db}", flush=True)

    summary = serve(args, spec, args.resume, finds.append, started)
    finds.sort(key=lambda find: -find.measures["cards"])
    for find in finds:
        print(json.dumps(find.to_json()) if args.json
              else f"{find.measures['cards']} cards, {find.measures['tricks']} tricks: "
                   f"{find.deal}")
    if not args.json and summary.status != "failed":
        print(f"{len(finds)} longer deals, logged as run {summary.run_id} in {args.db}")
    return ending(args, ReverseStrategy.command, summary, spec)
