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
from .cli_options import (
    EXIT_BAD_INPUT,
    EXIT_MISMATCH,
    EXIT_OK,
    BadInput,
    Parser,
    add_game_choice,
    add_game_options,
    chosen_game,
    game_options,
    option_values,
    positive_int,
)
from .cli_report import add_report_parser, cmd_report
from .cli_reverse import add_reverse_parser, cmd_reverse
from .cli_search import add_records_parser, add_search_parser, cmd_records, cmd_search
from .engine import play
from .game import Game, GameError, get_game
from .known import KnownDeal, load_known
from .result import Result

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


def build_parser(game_name: str = "beggar") -> argparse.ArgumentParser:
    """The argument parser of every subcommand, with ``game_name``'s options."""
    game = get_game(game_name)
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
    add_game_choice(verify)
    add_game_options(verify, game, exclude=game.deal_options)
    add_search_parser(commands, game)
    add_records_parser(commands)
    add_reverse_parser(commands)
    add_report_parser(commands)

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
    add_game_choice(bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dealsearch`` console script."""
    argv = _protect_deals(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(chosen_game(argv)).parse_args(argv)
        handler = {"verify": cmd_verify, "search": cmd_search, "records": cmd_records,
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


def cmd_verify(args: argparse.Namespace) -> int:
    """``dealsearch verify``: play deals and print their results."""
    game = get_game(args.game)
    options = game_options(game, option_values(args, game, game.deal_options))
    if args.known:
        if game.name != "beggar":
            raise BadInput(f"--known: there are no published deals of {game.name} yet")
        return _verify_known(args)
    if not args.deals:
        raise BadInput("verify needs a deal, '-' or a file of deals (or --known)")
    status = EXIT_OK
    for where, text in _deal_texts(args.deals):
        try:
            canonical, result = game.verify(text, options)
        except GameError as error:
            print(f"{package_name}: error: {where}{error}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        if args.json:
            print(json.dumps({"deal": canonical, **result.to_json()}), flush=True)
        else:
            print(canonical)
            print(f"  {game.describe(result)}")
        if args.trace:
            _print_trace(game, text, options)
    return status


def _print_trace(game: Game, text: str, options: object) -> None:
    for line in game.trace(text, options):  # type: ignore[arg-type]
        print(line)


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
    """``dealsearch bench``: the speed report (BMN), or another game's speed table."""
    if args.game != "beggar":
        return _bench_game(get_game(args.game), args)
    from .bench import format_bench, run_bench  # compiles the yardstick: only when asked

    report = run_bench(args.deals, args.workers, args.seed)
    print(json.dumps(report) if args.json else format_bench(report))
    checks = report["checks"]
    mismatches = sum(count for name, count in checks.items() if "mismatch" in name)
    return EXIT_MISMATCH if mismatches else EXIT_OK


def _bench_game(game: Game, args: argparse.Namespace) -> int:
    try:
        rows = game.speed_table(args.deals, args.seed)
    except NotImplementedError:
        raise BadInput(f"bench measures beggar and games with a speed table; {game.name} has "
                       "none") from None
    if args.json:
        print(json.dumps({"game": game.name, "rows": rows}))
        return EXIT_OK
    if rows:
        keys = list(rows[0])
        widths = {k: max(len(k), *(len(_cell(row[k])) for row in rows)) for k in keys}
        print("  ".join(f"{k:>{widths[k]}}" for k in keys))
        for row in rows:
            print("  ".join(f"{_cell(row[k]):>{widths[k]}}" for k in keys))
    return EXIT_OK


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if value < 1000 else f"{value:,.0f}"
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
