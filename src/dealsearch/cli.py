"""The ``dealsearch`` command: a thin layer that parses options, calls the library and prints.

Exit status: 0 when all is well, 1 when ``verify --known`` finds a mismatch or a search run
fails, 2 on bad input. :func:`main` is the one place that turns an expected failure (a
:class:`dealsearch.errors.DealsearchError`, a deal or game error) into one line and its status.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from . import __name__ as package_name
from .cli_options import (
    EXIT_BAD_INPUT,
    EXIT_MISMATCH,
    EXIT_OK,
    Parser,
    add_game_choice,
    add_game_options,
    chosen_game,
    game_options,
    option_values,
    positive_int,
    seed,
)
from .cli_report import add_report_parser, cmd_report
from .cli_search import add_records_parser, add_search_parser, cmd_records, cmd_search
from .errors import BadInput, BadOption, DealsearchError, NoSuchFile, NotAFile, NotATextFile
from .game import Game, GameError, SpeedTable, get_game
from .games.beggar.cli_factory import add_factory_parser, cmd_factory
from .games.beggar.cli_reverse import add_reverse_parser, cmd_reverse
from .games.beggar.engine import play
from .games.beggar.known import KnownDeal, load_known
from .games.beggar.notation import DealError
from .games.beggar.result import Result
from .interrupt import exit_status

# Compact deals start with '-', which argparse would take for an option: such arguments are
# moved behind '--' (or glued to the option that takes them) before parsing. Option names hold
# lower-case letters no compact deal uses, so a lower-case deal is told from an option.
_DEAL_LIKE = re.compile(r"-[-/\sA-Z0-9akqjВДКТвдкт]{2,}")


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string, of every subcommand, that takes a value."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _value_options(sub)
        elif action.option_strings and action.nargs != 0:
            found.update(action.option_strings)
    return found


def _protect_deals(argv: Sequence[str], value_options: set[str]) -> list[str]:
    kept: list[str] = []
    deals: list[str] = []
    for arg in argv:
        if _DEAL_LIKE.fullmatch(arg):
            if kept and kept[-1] in value_options:  # the option's value: --start, --seed -12
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
    bench.add_argument("--seed", type=seed, default=1, help="seed of the deals (default: 1)")
    bench.add_argument("--json", action="store_true", help="the report as one JSON object")
    add_game_choice(bench)
    parser.set_defaults(parsed_for_game=game.name)  # whose option groups the parser holds
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dealsearch`` console script: the exit status.

    Every expected failure ends here as one line on stderr (``dealsearch: error: ...``) and its
    exit status: 2 for bad input, 1 for a failed run.
    """
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(chosen_game(argv))
        args = parser.parse_args(_protect_deals(argv, _value_options(parser)))
        handler = {"verify": cmd_verify, "search": cmd_search, "records": cmd_records,
                   "factory": cmd_factory,
                   "bench": cmd_bench, "reverse": cmd_reverse, "report": cmd_report}[
            args.command]
        return handler(args)
    except (DealsearchError, DealError, GameError) as error:
        sys.stdout.flush()  # what was printed before the failure comes first
        print(f"{package_name}: error: {_one_line(error)}", file=sys.stderr)
        return getattr(error, "exit_status", EXIT_BAD_INPUT)
    except KeyboardInterrupt as stop:
        print(f"{package_name}: interrupted", file=sys.stderr)
        return exit_status(stop)
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        sys.stderr.close()
        return EXIT_OK


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


# ---------------------------------------------------------------- verify

# An argument that does not parse as a deal is taken for a misspelt file name when it holds
# something no deal notation uses: '.', '_', '~', a backslash or a letter that is not a card or
# suit letter; an argument starting with '-' (a compact deal), holding a space (hands written
# card by card) or a character of a position ('{', '=', ';': Durak and Spite and Malice) is
# always reported as a deal or position.
_PATH_LIKE = re.compile(r"[._~\\]|[BEFGILMNOPRUVWXYZ]", re.IGNORECASE)


def _looks_like_path(text: str) -> bool:
    return not text.startswith("-") and not any(c.isspace() or c in "{=;" for c in text) and bool(
        _PATH_LIKE.search(text))


def _read_deal_file(source: str) -> list[str]:
    path = Path(source)
    if path.is_dir():
        raise NotAFile(f"{source} is a directory, not a file of deals")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise NoSuchFile(f"cannot read {source}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:  # NUL is valid UTF-8 but never in text
        raise NotATextFile(f"{source} is not a text file (not UTF-8 text)")
    return text.splitlines()


def _stdin_lines() -> Iterator[str]:
    try:
        yield from sys.stdin
    except UnicodeDecodeError:
        raise NotATextFile("standard input is not text (not UTF-8 text)") from None


def _deal_texts(sources: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(where, text) of every deal given: arguments, '-' (stdin) or files, one deal a line."""
    for source in sources:
        if source == "-":
            lines: Iterator[tuple[int, str]] = enumerate(_stdin_lines(), 1)
            name = "stdin"
        elif Path(source).exists():
            lines = enumerate(_read_deal_file(source), 1)
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
        raise BadOption("verify needs a deal, '-' or a file of deals (or --known)")
    status = EXIT_OK
    for where, text in _deal_texts(args.deals):
        try:
            canonical, result = game.verify(text, options)
        except (DealError, GameError) as error:
            if not where and _looks_like_path(text):
                raise NoSuchFile(f"no such file: {text}") from None
            print(f"{package_name}: error: {where}{error}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        if args.json:
            print(json.dumps({"deal": canonical, **result.to_json()}), flush=True)
        else:
            print(canonical)
            print(f"  {game.describe(result)}")
        if args.trace:
            # --json: stdout holds JSON lines only, so the trace goes to stderr.
            _print_trace(game, text, options, sys.stderr if args.json else sys.stdout)
    return status


def _print_trace(game: Game, text: str, options: object, out: TextIO) -> None:
    for line in game.trace(text, options):  # type: ignore[arg-type]
        print(line, file=out)


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
    if args.workers != 1:
        raise BadOption(f"bench --game {game.name} times one core: --workers does not apply")
    if not isinstance(game, SpeedTable):
        raise BadInput(f"bench measures games with a speed table; {game.name} has none")
    rows = game.speed_table(args.deals, args.seed)
    if args.json:
        print(json.dumps({"game": game.name, "rows": rows}))
    elif rows:
        keys = list(rows[0])
        widths = {k: max(len(k), *(len(_cell(row[k])) for row in rows)) for k in keys}
        print("  ".join(f"{k:>{widths[k]}}" for k in keys))
        for row in rows:
            print("  ".join(f"{_cell(row[k]):>{widths[k]}}" for k in keys))
    # The reference replays (part of) the same deals: any disagreement is a failed check.
    return EXIT_MISMATCH if any(row.get("mismatches") for row in rows) else EXIT_OK


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if value < 1000 else f"{value:,.0f}"
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
