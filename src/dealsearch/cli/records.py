"""``dealsearch records``: what a log holds, a screenful at a time (parsing and printing only).

By default a person sees the best finds of each setting and the cycles most deals reach, with
counts of the rest; ``--limit N`` and ``--all`` show more. ``--json`` and ``--csv`` give every
row, for machines.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from ..commandline.advice import how_to_continue
from ..commandline.options import (
    EXIT_MISMATCH,
    EXIT_OK,
    command,
    open_log,
    positive_int,
)
from ..errors import BadOption
from ..game import (
    CycleCatalogue,
    Game,
    GameError,
    describe_setting,
    get_game,
    make_options,
)
from ..log import RecordLog, iter_lines
from ..log.ownership import shown_status
from ..projection import runs_projection
from ..search.spec import SearchSpec
from ..strategies import is_search, random_deals
from ..text import count, table

LIMIT = 10  # rows per table a person sees by default: a setting's bests, then its cycles


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``records`` command."""
    records = command(
        commands, "records",
        "The finds of a log, a screenful by default: for each setting (game options) the "
        "longest finished games, best first, then the cycles most deals reach, with how many "
        "more there are. --limit N and --all show more; --json and --csv print every find.",
        ["dealsearch records", "dealsearch records --game spite --limit 30",
         "dealsearch records --cycles --all --db overnight.sqlite", "dealsearch records --verify"],
        options=["db", "game", "target"])
    records.add_argument("--run", type=positive_int, action="append", metavar="ID",
                         help="only finds of this run (repeatable; default: every run)")
    size = records.add_mutually_exclusive_group()
    size.add_argument("--limit", type=positive_int, default=LIMIT, metavar="N",
                      help="rows per table")
    size.add_argument("--all", action="store_true", help="every find (or every cycle)")
    fmt = records.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="every find, one JSON object a line")
    fmt.add_argument("--csv", action="store_true", help="every find, CSV with a header line")
    records.add_argument("--verify", action="store_true",
                         help="replay every stored deal and confirm its stored counts")
    records.add_argument("--cycles", action="store_true",
                         help="the cycle catalogue: each distinct cycle and the deals reaching it")
    return records


def run(args: argparse.Namespace) -> int:
    """``dealsearch records``: the finds of a log, best first, then the cycles."""
    game = get_game(args.game)
    log = open_log(args.db, must_exist=True)
    for run_id in args.run or ():
        if log.run(run_id) is None:
            log.close()
            raise BadOption(f"no run {run_id} in {args.db}")
    status = _records(log, args, game)
    log.raise_skipped()   # a damaged log: what could be read was listed, then one line
    return status


def _records(log: RecordLog, args: argparse.Namespace, game: Game) -> int:
    if args.cycles:
        return _print_cycles(log, args, game)
    rows = log.finds(args.run or (), game=game.name)
    if args.verify:
        return _verify_records(log, rows)
    if args.json:
        for line in iter_lines(rows):
            print(json.dumps(line))
    elif args.csv:
        _write_csv(rows, game)
    elif args.all:
        for setting, group in _by_setting(rows, game):
            if setting is not None:
                print(_heading(game, setting, group[0]))
            print(_finds_table(group, game))
        print(f"{count(len(rows))} finds in {args.db}")
    else:
        _print_screenful(log, args, game, rows)
    if not (args.json or args.csv):
        _print_other_games(log, game)
        _print_unfinished(log, args, game)
        _print_projections(log, args, game)
    return EXIT_OK


def _print_projections(log: RecordLog, args: argparse.Namespace, game: Game) -> None:
    """For each setting with random runs: what its tail predicts (see :mod:`..projection`)."""
    by_setting: dict[str, list[dict[str, Any]]] = {}
    for run in log.runs():
        if run["game"] == game.name and random_deals(run["strategy"]) and (
                not args.run or run["id"] in args.run):
            by_setting.setdefault(run["options_key"], []).append(run)
    for key, runs in by_setting.items():
        projection = runs_projection(log, runs, args.target)
        if projection is not None:
            setting = describe_setting(game.name, runs[0]["game_options"], key)
            # A game without options has no setting to name (no dangling separator).
            print(f"projection for random {game.title} deals{', ' if setting else ''}"
                  f"{setting}:")
            for line in projection.summary_lines():
                print(f"  {line}")


def _write_csv(rows: list[dict[str, Any]], game: Game) -> None:
    # Each row names its options in full, so that it can be replayed (verify --game NAME).
    measures = game.measures
    fields = ["deal", "options_key", "outcome", "details", *measures,
              *(f"entry_{m}" for m in measures), *(f"period_{m}" for m in measures),
              "strategy", "run_id"]
    writer = csv.DictWriter(sys.stdout, fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({**row["details"], **row, "details": json.dumps(row["details"])}
                     for row in rows)


def _finds_table(rows: list[dict[str, Any]], game: Game) -> str:
    """Finds as a table: outcome, measures, a cycle's period, run, strategy, deal."""
    measures = game.measures
    periods = any(row["outcome"] == "cycle" for row in rows)  # else the column stays empty
    ranks = any("rank" in row["details"] for row in rows)   # exhaustive finds: their rank
    cells = []
    for row in rows:
        period = ("/".join(count(row[f"period_{m}"]) for m in measures)
                  if row["outcome"] == "cycle" else "")
        cells.append([row["outcome"], *(row[m] for m in measures), *([period] * periods),
                      row["run_id"], row["strategy"],
                      *([str(row["details"].get("rank", ""))] * ranks), row["deal"]])
    heads = ["outcome", *measures, *(["period"] * periods), "run", "strategy",
             *(["rank"] * ranks), "deal"]
    return table(cells, heads, left=(0, len(heads) - 2 - ranks, len(heads) - 1))


def _cycles_table(cycles: list[dict[str, Any]], game: Game) -> str:
    """Cycles as a table: id, (family,) period, shortest entry, deals reaching it, key."""
    what = (game if isinstance(game, CycleCatalogue) else CycleCatalogue).cycle_key_title
    families = any("family" in c for c in cycles)
    cells = [[c["id"], *([c.get("family") or "-"] if families else []),
              "/".join(count(c[f"period_{m}"]) for m in game.measures),
              "/".join(count(c[f"entry_{m}"]) for m in game.measures),
              c["deals"], c["key"]] for c in cycles]
    heads = ["cycle", *(["family"] if families else []),
             "period", "entry", "deals", what]
    return table(cells, heads, left=(*range(len(heads) - 4), len(heads) - 1))


def _by_family(cycles: list[dict[str, Any]], game: Game) -> list[dict[str, Any]]:
    """The cycles with their family (if the game names families), each family's cycles
    together, families in the order of their first cycle."""
    if not isinstance(game, CycleCatalogue):
        return cycles
    families = [_family(game, cycle) for cycle in cycles]
    if not any(families):   # the game names no families
        return cycles
    order: dict[str | None, int] = {}
    for cycle, family in zip(cycles, families, strict=True):
        cycle["family"] = family
        order.setdefault(family, len(order))
    return sorted(cycles, key=lambda c: order[c["family"]])


def _family(game: Game, cycle: dict[str, Any]) -> str | None:
    try:
        options = make_options(game, cycle["game_options"])
    except (ValueError, TypeError):   # options this version cannot read
        return None
    return game.cycle_family(cycle["key"], options) if isinstance(game, CycleCatalogue) else None


def _print_screenful(log: RecordLog, args: argparse.Namespace, game: Game,
                     rows: list[dict[str, Any]]) -> None:
    """Per setting: the best ``--limit`` finished games (by the measure they are ranked by),
    then the most reached cycles (once per setting, whatever the objective)."""
    limit = args.limit
    cycles = log.cycles(game.name, args.run or None)
    by_key = dict(_by_setting(cycles, game, rows + cycles))
    finds = _by_setting(rows, game, rows + cycles)
    reached: dict[Setting | None, int] = {}
    for key, group in finds:
        cycle_key = _cycle_setting(key)
        reached[cycle_key] = reached.get(cycle_key, 0) + sum(
            row["outcome"] == "cycle" for row in group)
    keys = [key for key, _ in finds] + [key for key in by_key if key not in reached]
    shown: set[Setting | None] = set()
    for key in keys:
        group = dict(finds).get(key, [])
        if key is not None:
            print(_heading(game, key, (group or by_key.get(_cycle_setting(key)) or [None])[0]))
        ended = [row for row in group if row["outcome"] != "cycle"]
        if ended:
            ranked = ended[0].get("objective") or game.measures[0]
            print(f"the longest of {count(len(ended))} finished games found "
                  f"(most {ranked} first):")
            print(_finds_table(ended[:limit], game))
            if len(ended) > limit:
                print(f"... and {count(len(ended) - limit)} more: --limit N or --all")
        cycle_key = _cycle_setting(key)
        families = by_key.get(cycle_key, []) if cycle_key not in shown else []
        shown.add(cycle_key)
        if families:
            print(f"{count(reached.get(cycle_key, 0))} never-ending deals reach "
                  f"{count(len(families))} distinct cycles; the most reached:")
            print(_cycles_table(families[:limit], game))
            if len(families) > limit:
                print(f"... and {count(len(families) - limit)} more cycles: records --cycles "
                      "--all")
    print(f"{count(len(rows))} finds in {args.db}")


def _cycle_setting(key: Setting | None) -> Setting | None:
    """The key cycles of a table of finds are grouped under (by options only)."""
    return None if key is None or key[0] is None else (key[0], None)


def _print_cycles(log: RecordLog, args: argparse.Namespace, game: Game) -> int:
    cycles = _by_family(log.cycles(game.name), game)
    if args.json:
        for cycle in cycles:
            print(json.dumps(cycle))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, list(cycles[0]) if cycles else ["id"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: json.dumps(v) if isinstance(v, dict) else v
                          for k, v in cycle.items()} for cycle in cycles)
    else:
        for setting, group in _by_setting(cycles, game):
            if setting is not None:
                print(_heading(game, setting, group[0]))
            shown = group if args.all else group[:args.limit]
            print(_cycles_table(shown, game))
            if len(group) > len(shown):
                print(f"... and {count(len(group) - len(shown))} more: --limit N or --all")
        families = {c["family"] for c in cycles if c.get("family")}
        among = f" of {count(len(families))} families" if families else ""
        print(f"{count(len(cycles))} distinct cycles{among} in {args.db}")
        _print_ranked_cycles(log, args, game)
    return EXIT_OK


def _print_ranked_cycles(log: RecordLog, args: argparse.Namespace, game: Game) -> None:
    """The never-ending deals exhaustive searches found, by rank, with their cycle: a block's
    catalogue (``--run`` for one run's)."""
    rows = sorted((row for row in log.finds(args.run or (), game=game.name)
                   if row["outcome"] == "cycle" and "rank" in row["details"]),
                  key=lambda row: (row["options_key"], row["details"]["rank"]))
    if not rows:
        return
    shown = rows if args.all else rows[:args.limit]
    print(f"{count(len(rows))} never-ending deals found by exhaustive search, by rank:")
    print(table([[str(row["details"]["rank"]), row["cycle_id"] or "-",
                  "/".join(count(row[f"period_{m}"]) for m in game.measures), row["deal"]]
                 for row in shown], ["rank", "cycle", "period", "deal"], left=(1, 3)))
    if len(rows) > len(shown):
        print(f"... and {count(len(rows) - len(shown))} more: --limit N or --all")


def _print_other_games(log: RecordLog, game: Game) -> None:
    """Say so when the log holds runs of other games: records shows one game at a time."""
    others = sorted({run["game"] for run in log.runs()} - {game.name})
    if others:
        print(f"the log also holds runs of {', '.join(others)}: add --game NAME to see them")


def _print_unfinished(log: RecordLog, args: argparse.Namespace, game: Game) -> None:
    """A line for each run of the game not done (running, interrupted or failed) and how to
    resume it."""
    for run in log.runs():
        if run["status"] == "done" or run["game"] != game.name or (
                args.run and run["id"] not in args.run):
            continue
        kind = "search" if is_search(run["strategy"]) else "run"
        status = shown_status(run["status"], log.owner(run["id"]))
        print(f"run {run['id']} {status}: {run['strategy']} {kind}, "
              f"{count(run['deals'])} deals; {how_to_continue(run, args.db)}")




Setting = tuple[str | None, str | None]   # (options key, objective) of a table; None: any


def _heading(game: Game, setting: Setting, row: dict[str, Any] | None = None) -> str:
    """The heading of one setting's table: the game and its options (none: the game alone),
    and the measure its finds are ranked by unless the game's first."""
    options_key, objective = setting
    words = options_key and describe_setting(game.name, (row or {}).get("game_options", {}),
                                             options_key)
    heading = f"{game.name}: {words}" if words else game.name
    if objective and objective != game.measures[0]:
        heading += f" (ranked by {objective})"
    return heading


def _by_setting(rows: list[dict[str, Any]], game: Game,
                among: list[dict[str, Any]] | None = None
                ) -> list[tuple[Setting | None, list[dict[str, Any]]]]:
    """Rows grouped by the options they were found under and the measure they are ranked by
    (their run's objective), in order of first appearance, so that finds of different
    settings or objectives are never ranked together (cycles are grouped by options only)."""
    groups: dict[Setting, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["options_key"], row.get("objective")), []).append(row)
    return [(None if key == (None, None) else key, group) for key, group in groups.items()]


def _find_options(log: RecordLog, row: dict[str, Any], specs: dict[int, Any]) -> Any:
    """The options a find was played under: its run's spec rebuilt (the values given), or,
    for runs that are not searches (reverse), the find's own options."""
    game = get_game(row["game"])
    if row["run_id"] not in specs:
        run = log.run(row["run_id"])
        try:
            specs[row["run_id"]] = SearchSpec.from_json(run["options"]).options if run else None
        except (ValueError, TypeError):
            specs[row["run_id"]] = None
    options = specs[row["run_id"]]
    if options is None or options.key() != row["options_key"]:
        options = make_options(game, row["game_options"])
    return options


def _verify_records(log: RecordLog, rows: list[dict[str, Any]]) -> int:
    bad = 0
    specs: dict[int, Any] = {}
    for row in rows:
        try:
            game = get_game(row["game"])
            options = _find_options(log, row, specs)
            _, result = game.verify(row["deal"], options)
        except (GameError, ValueError) as error:
            print(f"MISMATCH {row['deal']}: {error}")
            bad += 1
            continue
        stored = (row["outcome"], *row["measures"].values())
        replayed = (result.outcome, *result.measures.values())
        first = game.measures[0]
        if replayed != stored or (result.outcome == "cycle" and (
                result.entry[first], result.period[first])
                != (row["entry"].get(first), row["period"].get(first))):
            print(f"MISMATCH {row['deal']}: stored {_result(stored)}, replayed "
                  f"{_result(replayed)}")
            bad += 1
    print(f"{count(len(rows))} finds replayed, {count(bad)} mismatches")
    return EXIT_MISMATCH if bad else EXIT_OK


def _result(values: tuple[Any, ...]) -> str:
    """An outcome and its counts, e.g. ``win 8,344/1,164``."""
    return f"{values[0]} " + "/".join(count(v) for v in values[1:])
