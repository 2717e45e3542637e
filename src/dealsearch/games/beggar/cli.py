"""Beggar-My-Neighbour's own commands, registered through :meth:`Beggar.commands`.

``dealsearch factory`` grows never-ending deals from small-deck cycles; ``dealsearch reverse``
walks a deal's game backwards. Option parsing and printing only: the work is in
:mod:`.factory` and :mod:`.reverse`.

Every cycle of the rules' whole deck that the factory builds is logged (strategy ``factory``),
with its starting deals when it has any, so ``dealsearch records --cycles`` lists it.
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

from ...cli.commands import Command
from ...cli.options import (
    DEFAULT_DB,
    EXIT_OK,
    add_game_choice,
    add_game_options,
    check_log_path,
    duration,
    examples,
    open_log,
    positive_int,
    seed,
)
from ...errors import BadInput, BadOption
from ...game import Game, get_game
from ...interrupt import exit_status
from ...log import Find, ManagedRun
from .catalogue import key_id
from .deal import Deal
from .engine import play
from .factory import FactoryStats, Loop, find_loop, grow, seed_loops, starting_deals
from .game import to_game_result
from .notation import DealError, format_deal, parse_deal, parse_deck
from .options import BeggarOptions, make_options
from .reverse import MAX_CARDS, basin, longer_starts
from .rules import PRESETS, Rules, get_rules

# Small decks whose exhaustive play has cycles to grow from, per (rules, players).
START_DECKS = {("standard", 2): "------JJQQK", ("italian", 2): "00000011223",
               ("standard", 3): "------JJQQK", ("italian", 3): "00000011223"}


def add_factory_parser(commands: Any, game: Game | None = None) -> argparse.ArgumentParser:
    """The ``factory`` command (the same whichever game the parser is built for)."""
    factory: argparse.ArgumentParser = commands.add_parser(
        "factory", help="build never-ending deals by growing small cycles card by card",
        description="Play every deal of a small deck, keep the cycles, and grow them: change "
                    "a state of a cycle by a card or two and keep the new state if its game "
                    "never ends either, until a cycle holds the whole deck; then walk "
                    "backwards to starting deals that enter it. Every such cycle is logged.",
        epilog=examples("dealsearch factory --time 2m",
                        "dealsearch factory --rules italian --players 3 --stop-after 1",
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
    factory.add_argument("--max-states", type=positive_int, default=20_000, metavar="N",
                         help="states walked back from each whole-deck cycle")
    factory.add_argument("--stop-after", type=positive_int, metavar="K",
                         help="stop once K whole-deck cycles with a starting deal are found "
                              "(default: go on to the budget)")
    factory.add_argument("--db", default=DEFAULT_DB, help="the log")
    factory.add_argument("--json", action="store_true",
                         help="one JSON object per whole-deck cycle, then a summary line")
    factory.add_argument("--quiet", action="store_true", help="no progress bar")
    return factory


def _seeds(args: argparse.Namespace, rules: Rules) -> list[Loop]:
    if args.start:
        try:
            deal = parse_deal(args.start, rules, "any")
        except DealError as error:
            raise BadInput(f"--start: {error}") from None
        loop = find_loop(deal, rules)
        if loop is None:
            raise BadInput("--start: that deal's game ends; give a never-ending deal")
        return [loop]
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
    return seeds


def _finds(loop: Loop, starts: list[str], rules: Rules, run_id: int,
           options: BeggarOptions) -> list[Find]:
    """The cycle's first state as a deal (hands of any sizes), then each starting deal."""
    deals = [format_deal(loop.deal(), rules), *starts]
    finds = []
    for text in deals:
        found = to_game_result(play(parse_deal(text, rules, "any"), rules))
        finds.append(Find(text, found.outcome, dict(found.measures), "factory", run_id,
                          dict(found.entry), dict(found.period), dict(found.details),
                          loop.key, key_id(loop.key, rules), "beggar", options.key(),
                          options.to_json()))
    return finds


def _summary(stats: FactoryStats, found: int, with_starts: int, run_id: int) -> dict[str, Any]:
    return {"run_id": run_id, "strategy": "factory", "seconds": round(stats.seconds, 1),
            "nodes": stats.nodes, "played": stats.played, "cycles": stats.cycles,
            "nearest": stats.nearest, "full": found, "with_starts": with_starts,
            "periods": {str(k): v for k, v in sorted(stats.periods.items())}}


def cmd_factory(args: argparse.Namespace) -> int:
    """``dealsearch factory``."""
    rules = get_rules(args.rules)
    check_log_path(args.db)  # before the search, not after it
    if args.time is None and args.nodes is None:
        args.time = 120.0
    seeds = _seeds(args, rules)
    if args.start and seeds[0].players != args.players:
        raise BadInput(f"--start has {seeds[0].players} hands but --players is {args.players}")
    log = open_log(args.db)
    # Its deals have hands of any sizes: they are logged under the rules' deck dealt any way.
    bmn = make_options(rules.name, players=args.players, deck="any")
    options = {k: getattr(args, k) for k in ("players", "start_deck", "start", "time", "nodes",
                                             "samples", "max_states", "stop_after")}
    run = ManagedRun.start(log, "factory", options, rules.name, args.seed, 1, "beggar",
                           bmn.to_json(), bmn.key(), again=_again(args))
    run_id = run.run_id
    bar = tqdm(total=None, unit=" cycles", disable=args.quiet or not sys.stderr.isatty())
    last = FactoryStats()

    def on_node(stats: FactoryStats, loop: Loop) -> None:
        bar.set_postfix(nearest=stats.nearest, full=stats.full, refresh=False)
        bar.update(stats.cycles - bar.n)

    found = with_starts = 0
    started = time.time()

    def progress() -> dict[str, Any]:
        return {"seconds": time.time() - started, "deals": last.played, "cards": 0,
                "outcomes": {"cycle": found}, "checkpoint": {}}

    stop: KeyboardInterrupt | None = None
    with closing(log), run:
        try:
            for loop in grow(seeds, rules.deck, rules, args.seed, args.nodes, args.time,
                             args.samples, on_node=on_node, stats=last):
                found += 1
                starts = starting_deals(loop, rules, args.max_states)
                with_starts += bool(starts)
                run.save(_finds(loop, starts, rules, run_id, bmn), progress())
                _show(args, loop, starts, rules, run_id, last)
                if args.stop_after and with_starts >= args.stop_after:
                    break
        except KeyboardInterrupt as interrupted:  # what was found stays; the summary follows
            stop = interrupted
        finally:
            bar.close()
        run.finish("interrupted" if stop else "done", progress())
    summary = _summary(last, found, with_starts, run_id)
    if args.json:
        print(json.dumps(summary))
    else:
        periods = ", ".join(f"{n} of {p}" for p, n in sorted(last.periods.items())) or "none"
        print(f"{summary['seconds']}s, {last.nodes} cycles expanded, {last.played} games played,"
              f" {last.cycles} cycles met; {found} of the whole deck (periods in tricks: "
              f"{periods}), {with_starts} with a starting deal; logged as run {run_id} in "
              f"{args.db}")
    if stop is not None:
        if not args.json:
            print(f"a factory run cannot be resumed; start it again with: {_again(args)}")
        return exit_status(stop)
    return EXIT_OK


def _again(args: argparse.Namespace) -> str:
    """The command that starts this factory run again (factory runs cannot be resumed)."""
    words = ["dealsearch", "factory", "--rules", args.rules, "--players", str(args.players),
             "--seed", str(args.seed)]
    for option in ("start_deck", "start", "nodes", "samples", "max_states", "stop_after"):
        value = getattr(args, option)
        if value is not None:
            words += [f"--{option.replace('_', '-')}", str(value)]
    if args.time is not None:
        words += ["--time", f"{args.time:g}s"]
    return shlex.join([*words, "--db", str(args.db)])


def _show(args: argparse.Namespace, loop: Loop, starts: list[str], rules: Rules,
          run_id: int, stats: FactoryStats) -> None:
    cycle_id = key_id(loop.key, rules)
    if args.json:
        print(json.dumps({"cycle_id": cycle_id, "key": loop.key,
                          "period_cards": loop.period_cards,
                          "period_tricks": loop.period_tricks,
                          "deal": format_deal(loop.deal(), rules), "starts": starts,
                          "run_id": run_id, "seconds": round(stats.seconds, 1),
                          "nodes": stats.nodes}), flush=True)
        return
    sizes = "/".join(str(len(hand)) for hand in Deal(loop.states[0]).hands)
    print(f"[{stats.seconds:.0f}s, node {stats.nodes}] "
          f"cycle {cycle_id}: period {loop.period_cards} cards, {loop.period_tricks} tricks; "
          f"{len(starts)} starting deals; a state ({sizes}): "
          f"{format_deal(loop.deal(), rules)}", flush=True)
    for start in starts[:3]:
        print(f"  start: {start}")


# ---------------------------------------------------------------- reverse


def add_reverse_parser(commands: Any, game: Game | None = None) -> argparse.ArgumentParser:
    """The ``reverse`` command (BMN's options whichever game the parser is built for)."""
    reverse: argparse.ArgumentParser = commands.add_parser(
        "reverse", help="play a 2-player deal backwards: a cycle's basin, or longer deals",
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
    reverse.add_argument("--db", default=DEFAULT_DB, help="--along: the log")
    reverse.add_argument("--json", action="store_true", help="machine-readable output")
    reverse.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_choice(reverse)
    add_game_options(reverse, get_game("beggar"), exclude=("players", "deck", "hand_sizes"))
    return reverse


def cmd_reverse(args: argparse.Namespace) -> int:
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
    bar = tqdm(total=args.max_states, unit=" states", unit_scale=True,
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
    bmn = make_options(rules.name)
    with closing(open_log(args.db)) as log, \
            ManagedRun.start(log, "reverse", options, rules.name, None, 1, "beggar",
                             bmn.to_json(), bmn.key(), again=_again_reverse(args)) as run:
        finds = []
        for text, result in longer:
            found = to_game_result(result)
            finds.append(Find(text, found.outcome, dict(found.measures), "reverse", run.run_id,
                              details=dict(found.details), options_key=bmn.key(),
                              game_options=bmn.to_json()))
        progress = {"seconds": time.time() - started, "deals": len(longer),
                    "cards": sum(f.measures["cards"] for f in finds),
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


#: BMN's own commands, which :meth:`Beggar.commands` hands to the CLI.
COMMANDS = (Command("factory", add_factory_parser, cmd_factory),
            Command("reverse", add_reverse_parser, cmd_reverse))
