"""``dealsearch reverse``, one of BMN's own commands (:meth:`BeggarGame.commands`): walk a
deal's game backwards. Option parsing and printing only: the work is in :mod:`.reverse`.
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

from ...plugin import BadInput, BadOption, Game, get_game
from ...plugin.commands import (
    EXIT_OK,
    Find,
    ManagedRun,
    add_game_options,
    check_log_path,
    examples,
    open_log,
    positive_int,
    progress_stream,
    shared,
)
from .notation import parse_deal
from .options import beggar_options, get_rules
from .reverse import MAX_CARDS, basin, longer_starts


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
            "dealsearch reverse --max-states 100000 --json DEAL"))
    reverse.add_argument("deal", metavar="DEAL", help="a 2-player deal in any notation")
    reverse.add_argument("--along", action="store_true",
                         help="find longer terminating deals by walking back along the game")
    reverse.add_argument("--tricks", type=positive_int, default=20,
                         help="--along: how many trick boundaries to start from")
    reverse.add_argument("--max-states", type=positive_int, metavar="N",
                         help="stop each walk after N states (default: walk it all; "
                              "--along: 100000)")
    reverse.add_argument("--json", action="store_true", help="machine-readable output")
    reverse.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(reverse, get_game("beggar"), exclude=("players", "deck", "hand_sizes"))
    return reverse


def run(args: argparse.Namespace) -> int:
    """``dealsearch reverse``."""
    if args.game != "beggar":
        raise BadInput(f"reverse walks beggar games backwards; it cannot play {args.game}")
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
        check_log_path(args.db)  # before the walk, not after it
        return _along(args, deal, rules)
    bar = tqdm(total=args.max_states, unit=" states", unit_scale=True, file=progress_stream(),
               disable=args.quiet or not sys.stderr.isatty())
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


def _along(args: argparse.Namespace, deal: Any, rules: Any) -> int:
    started = time.time()
    longer = longer_starts(deal, rules, args.tricks, args.max_states or 100_000)
    options = {"deal": args.deal, "tricks": args.tricks, "max_states": args.max_states}
    bmn = beggar_options(rules.name)
    with closing(open_log(args.db)) as log, \
            ManagedRun.start(log, "reverse", options, None, 1, "beggar",
                             bmn.to_json(), bmn.key(), again=_again_reverse(args)) as run:
        finds = []
        for text, found in longer:
            finds.append(Find(text, found.outcome, dict(found.measures), "reverse", run.run_id,
                              details=dict(found.details), options_key=bmn.key(),
                              game_options=bmn.to_json(), game="beggar"))
        progress = {"seconds": time.time() - started, "deals": len(longer),
                    "totals": {"cards": sum(f.measures["cards"] for f in finds)},
                    "outcomes": {"win": len(finds)},
                    "checkpoint": {}}
        run.save(finds, progress)
    run_id = run.run_id
    for find in finds:
        print(json.dumps(find.to_json()) if args.json
              else f"{find.measures['cards']} cards, {find.measures['tricks']} tricks: "
                   f"{find.deal}")
    if not args.json:
        print(f"{len(finds)} longer deals, logged as run {run_id} in {args.db}")
    return EXIT_OK


def _again_reverse(args: argparse.Namespace) -> str:
    """The command that walks this deal again (a reverse run is one step: nothing to resume)."""
    words = ["dealsearch", "reverse", args.deal, "--along", "--tricks", str(args.tricks)]
    if args.max_states is not None:
        words += ["--max-states", str(args.max_states)]
    if args.rules:
        words += ["--rules", args.rules]
    return shlex.join([*words, "--db", str(args.db)])
