"""The ``dealsearch`` command: a thin layer that parses options, calls the library and prints.

Exit status: 0 when all is well, 1 when ``verify --known`` finds a mismatch, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import __name__ as package_name
from .cli_factory import add_factory_parser, cmd_factory
from .cli_options import (
    EXIT_BAD_INPUT,
    EXIT_MISMATCH,
    EXIT_OK,
    BadInput,
    Parser,
    add_game_options,
    positive_int,
)
from .cli_report import add_report_parser, cmd_report
from .cli_reverse import add_reverse_parser, cmd_reverse
from .cli_search import add_records_parser, add_search_parser, cmd_records, cmd_search
from .deal import Deal
from .engine import play
from .known import KnownDeal, load_known
from .notation import DealError, format_deal, parse_deal
from .reference import Trick, play_reference
from .result import Result
from .rules import Rules, get_rules

# Compact deals start with '-', which argparse would take for an option: such arguments are
# moved behind '--' (or glued to the option that takes them) before parsing.
_DEAL_LIKE = re.compile(r"-[-/ A-Z0-9ВДКТ]{2,}")
_DEAL_OPTIONS = {"--start", "--deck"}


def _protect_deals(argv: Sequence[str]) -> list[str]:
    kept: list[str] = []
    deals: list[str] = []
    for arg in argv:
        if _DEAL_LIKE.fullmatch(arg):
            if kept and kept[-1] in _DEAL_OPTIONS:
                kept[-1] = f"{kept[-1]}={arg}"
            else:
                deals.append(arg)
        else:
            kept.append(arg)
    if deals:
        if "--" not in kept:
            kept.append("--")
        kept.extend(deals)
    return kept


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(prog="dealsearch", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=Parser)

    verify = commands.add_parser(
        "verify", help="play deals exactly and report counts, winner or cycle",
        description="Play each deal and print its exact result. A deal is given as an "
                    "argument, '-' reads one deal per line from standard input, and a file "
                    "name reads one deal per line from that file.")
    verify.add_argument("deals", nargs="*", metavar="DEAL",
                        help="a deal in any notation, '-' or a file of deals")
    verify.add_argument("--json", action="store_true",
                        help="one JSON object per deal per line")
    verify.add_argument("--trace", action="store_true", help="print the game trick by trick")
    verify.add_argument("--known", action="store_true",
                        help="replay every published deal in data/ and compare")
    verify.add_argument("--deck", choices=("exact", "any"), default="exact",
                        help="'exact': the cards must be the rules' deck; 'any': any cards")
    add_game_options(verify)
    add_search_parser(commands)
    add_records_parser(commands)
    add_reverse_parser(commands)
    add_report_parser(commands)
    add_factory_parser(commands)

    bench = commands.add_parser(
        "bench", help="deals/s and cards/s: engine vs a plain C loop vs pure Python",
        description="Play the same seeded random 2-player deals through the engine, the "
                    "per-card C yardstick and the pure-Python reference, in one run, and "
                    "print deals/s, cards/s and the ratios.")
    bench.add_argument("--deals", type=positive_int, default=200_000,
                       help="random deals per contender (default: 200000)")
    bench.add_argument("--workers", type=positive_int, default=1,
                       help="also time the engine on this many processes (scaling)")
    bench.add_argument("--seed", type=int, default=1, help="seed of the deals (default: 1)")
    bench.add_argument("--json", action="store_true", help="the report as one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dealsearch`` console script."""
    argv = _protect_deals(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        handler = {"verify": cmd_verify, "search": cmd_search, "records": cmd_records,
                   "factory": cmd_factory,
                   "bench": cmd_bench, "reverse": cmd_reverse, "report": cmd_report}[
            args.command]
        return handler(args)
    except BadInput as error:
        print(f"{package_name}: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{package_name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        sys.stderr.close()
        return EXIT_OK


# ---------------------------------------------------------------- verify

def _deal_texts(sources: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(where, text) of every deal given: arguments, '-' (stdin) or files, one deal a line."""
    for source in sources:
        if source == "-":
            lines = enumerate(sys.stdin, 1)
            name = "stdin"
        elif Path(source).is_file():
            lines = enumerate(Path(source).read_text(encoding="utf-8").splitlines(), 1)
            name = source
        else:
            yield "", source
            continue
        for number, line in lines:
            line = line.split("#", 1)[0].strip()
            if line:
                yield f"{name}, line {number}: ", line


def describe(result: Result) -> str:
    """A result in words, e.g. 'hand 2 wins: 8344 cards, 1164 tricks'."""
    counts = f"{result.cards} cards, {result.tricks} tricks"
    out = f"; out in order: {', '.join(map(str, result.out))}" if len(result.out) > 1 else ""
    if result.outcome == "win":
        return f"hand {result.winner} wins: {counts}{out}"
    if result.outcome == "limit":
        leader = f"hand {result.winner} has most cards" if result.winner else "a draw"
        return f"limit reached at {counts}: {leader}{out}"
    cycle = result.cycle
    assert cycle is not None
    return (f"never ends: first repeat at {counts}; entry {cycle.entry_cards} cards, "
            f"{cycle.entry_tricks} tricks; period {cycle.period_cards} cards, "
            f"{cycle.period_tricks} tricks")


def _print_trace(deal: Deal, rules: Rules, args: argparse.Namespace, result: Result) -> None:
    number = 0

    def show(trick: Trick) -> None:
        nonlocal number
        number += 1
        plays = " ".join(f"{seat + 1}:{rules.symbols[card]}" for seat, card in trick.plays)
        gone = "".join(f"; hand {seat + 1} is out" for seat in trick.went_out)
        taken = (f" -> hand {trick.taker + 1} takes {len(trick.plays)}"
                 if trick.taker is not None else " -> pile left in play")
        sizes = "/".join(map(str, trick.hand_sizes))
        print(f"  trick {number}: {plays}{taken}{gone}; hands {sizes}")

    traced = play_reference(deal, rules, args.max_cards, args.max_tricks, on_trick=show)
    if traced != result:  # the two engines are tested to agree; never show a wrong trace
        raise RuntimeError(f"trace engine disagrees: {traced} != {result}")


def cmd_verify(args: argparse.Namespace) -> int:
    """``dealsearch verify``: play deals and print their results."""
    rules = get_rules(args.rules)
    if args.known:
        return _verify_known(args)
    if not args.deals:
        raise BadInput("verify needs a deal, '-' or a file of deals (or --known)")
    status = EXIT_OK
    for where, text in _deal_texts(args.deals):
        try:
            deal = parse_deal(text, rules, args.deck)
        except DealError as error:
            print(f"{package_name}: error: {where}{error}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        result = play(deal, rules, args.max_cards, args.max_tricks)
        compact = format_deal(deal, rules)
        if args.json:
            print(json.dumps({"deal": compact, **result.to_json()}), flush=True)
        else:
            print(compact)
            print(f"  {describe(result)}")
        if args.trace:
            _print_trace(deal, rules, args, result)
    return status


def _verify_known(args: argparse.Namespace) -> int:
    rows: list[tuple[KnownDeal, Result]] = []
    for known in load_known():
        rows.append((known, play(known.deal, known.rules)))
    mismatches = sum(not known.matches(result) for known, result in rows)
    if args.json:
        for known, result in rows:
            print(json.dumps({"deal": known.text, "finder": known.finder, "year": known.year,
                              "published": known.published, **result.to_json(),
                              "ok": known.matches(result)}))
    else:
        print(f"{'finder':<30} {'year':>4}  {'published':<22} {'computed':<22} ok")
        for known, result in rows:
            computed = known.summary_of(result)
            flag = "ok" if known.matches(result) else "MISMATCH"
            print(f"{known.finder[:30]:<30} {known.year:>4}  {known.published:<22} "
                  f"{computed:<22} {flag}")
        print(f"{len(rows)} published deals, {mismatches} mismatches")
    return EXIT_MISMATCH if mismatches else EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    """``dealsearch bench``: the speed report."""
    from .bench import format_bench, run_bench  # compiles the yardstick: only when asked

    report = run_bench(args.deals, args.workers, args.seed)
    print(json.dumps(report) if args.json else format_bench(report))
    checks = report["checks"]
    mismatches = sum(count for name, count in checks.items() if "mismatch" in name)
    return EXIT_MISMATCH if mismatches else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
