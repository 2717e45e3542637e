"""``dealsearch bench``: how fast the engines play (parsing and printing only)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..commandline.options import (
    EXIT_MISMATCH,
    EXIT_OK,
    add_workers_options,
    check_workers,
    command,
    cores,
    positive_int,
    seed,
)
from ..errors import BadInput, BadOption
from ..game import Game, Reference, Yardstick, get_game, throughput_measure
from ..text import table


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``bench`` command; its description is that of ``game``'s benchmark."""
    if isinstance(game, Yardstick):
        measure = throughput_measure(game)
        description = (f"Play the same seeded random deals of {game.title} through the "
                       "compiled engine, the game's yardstick (a plain C loop) and the "
                       f"pure-Python reference, in one run, and print deals/s, {measure}/s "
                       "and the ratios; any disagreement fails (exit 1).")
    else:
        description = (f"Play the same seeded random deals of {game.title} under each of its "
                       "settings through the compiled engine and the pure-Python reference, "
                       "and print deals/s and the ratio; any disagreement between the two "
                       "fails (exit 1).")
    bench = command(
        commands, "bench", description,
        ["dealsearch bench", "dealsearch bench --deals 1000000 --workers 2",
         "dealsearch bench --game spite --json"],
        options=["game"])
    bench.add_argument("--deals", type=positive_int, default=200_000, metavar="N",
                       help="random deals per contender")
    add_workers_options(bench, "also time the engine on this many processes (scaling)",
                        default=1)
    bench.add_argument("--seed", type=seed, default=1, metavar="N", help="seed of the deals")
    bench.add_argument("--json", action="store_true", help="the report as one JSON object")
    return bench


def run(args: argparse.Namespace) -> int:
    """``dealsearch bench``: a game's yardstick report, or its speed table."""
    game = get_game(args.game)
    args.workers = args.workers or cores()   # 0 or auto: every core, as for a search
    check_workers(args.workers, args.oversubscribe)
    if not isinstance(game, Yardstick):
        return _bench_game(game, args)
    report = game.yardstick(args.deals, args.workers, args.seed)
    print(json.dumps(report) if args.json else game.format_yardstick(report))
    checks = report["checks"]
    mismatches = sum(n for name, n in checks.items() if "mismatch" in name)
    return EXIT_MISMATCH if mismatches else EXIT_OK


def _bench_game(game: Game, args: argparse.Namespace) -> int:
    if args.workers != 1:
        raise BadOption(f"bench --game {game.name} times one core: --workers does not apply")
    rows = game.speed_table(args.deals, args.seed) if isinstance(game, Reference) else []
    if not rows:
        raise BadInput(f"bench measures games with a yardstick or a speed table; "
                       f"{game.name} has neither")
    if args.json:
        print(json.dumps({"game": game.name, "rows": rows}))
    elif rows:
        keys = list(rows[0])
        print(table([[_cell(k, row[k]) for k in keys] for row in rows],
                    [_heading(k) for k in keys]))
    # The reference replays (part of) the same deals: any disagreement is a failed check.
    return EXIT_MISMATCH if any(row.get("mismatches") for row in rows) else EXIT_OK


TIMES = "\N{MULTIPLICATION SIGN}"


def _heading(key: str) -> str:
    """A column of the speed table as the performance page heads it: ``deals/s``."""
    return key.replace("_per_s", "/s").replace("_", " ")


def _cell(key: str, value: Any) -> Any:
    """A figure as the performance page writes it: whole rates, the ratio as ``405`` and a
    multiplication sign."""
    if key == "ratio" and isinstance(value, float):
        return f"{round(value):,}{TIMES}" if value >= 100 else f"{value:.3g}{TIMES}"
    return round(value) if isinstance(value, float) else value
