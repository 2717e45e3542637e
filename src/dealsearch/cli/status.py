"""``dealsearch status``: the searches running on a log, seen from another terminal.

It reads the ``runs`` table the search commits after every report (deals, search seconds,
outcomes, checkpoint with the best so far) through a read-only connection, as ``records``
does: it never takes the write lock, so watching a search never slows or blocks it, and it
reads a log on read-only storage. A run marked running whose owner is gone (killed outright,
a lost machine: :mod:`dealsearch.log.ownership`) is shown ``stale``. ``watch dealsearch status``
refreshes it.
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from ..commandline.advice import CANNOT_RESUME, how_to_continue
from ..commandline.options import EXIT_OK, check_log_path, command, open_log
from ..game import Game, GameError, describe_setting, get_game
from ..log import LOST
from ..log.damage import damaged
from ..log.ownership import describe as describe_owner
from ..log.ownership import shown_status
from ..strategies import find_strategy, is_search
from ..text import count, counted, duration, measures, outcomes, ranks_text, rate


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``status`` command."""
    status = command(
        commands, "status",
        "Show each run of the log that is running now: its rate, the time it has searched "
        "and has left, the deals played, its outcomes and its best so far. It only reads the "
        "log, so it can watch a search from another terminal without slowing it.",
        ["dealsearch status", "watch -n 2 dealsearch status --db overnight.sqlite",
         "dealsearch status --all --json"],
        options=["db"])
    status.add_argument("--all", action="store_true",
                        help="every run of the log, not only the running ones")
    status.add_argument("--json", action="store_true", help="one JSON object per run")
    return status


def read_runs(path: str | Path, everything: bool = False, skipped: list[str] | None = None
              ) -> list[dict[str, Any]]:
    """The running runs of the log at ``path`` (every run with ``everything``), decoded,
    read through a read-only connection; a running run whose owner is gone has status
    ``stale``, and ``owner`` holds the run's owner row (or None). A damaged row is left out
    (and noted in ``skipped``, if given)."""
    with closing(open_log(path, must_exist=True)) as log:
        rows = [run for run in log.runs() if everything or run["status"] == "running"]
        for run in rows:
            run["owner"] = log.owner(run["id"])
            run["status"] = shown_status(run["status"], run["owner"])
        if skipped is not None:
            skipped.extend(log.skipped)
    return rows


def _last_write(path: str | Path) -> float | None:
    """When the log was last written (the search commits after every report)."""
    times = [p.stat().st_mtime for p in (Path(path), Path(f"{path}-wal")) if p.exists()]
    return max(times) if times else None


def describe(run: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """A run's live figures: rate, elapsed, remaining (None when unknown), best so far."""
    seconds, deals = float(run["seconds"]), int(run["deals"])
    per_second = deals / seconds if seconds > 0 else 0.0
    spec = run["options"]
    remaining = None
    if spec.get("time") is not None:
        remaining = max(0.0, float(spec["time"]) - seconds)
    if spec.get("deals") is not None and per_second > 0:
        by_deals = max(0, int(spec["deals"]) - deals) / per_second
        remaining = by_deals if remaining is None else min(remaining, by_deals)
    return {"run_id": run["id"], "status": run["status"], "game": run["game"],
            "strategy": run["strategy"], "options_key": run["options_key"],
            "setting": describe_setting(run["game"], run["game_options"], run["options_key"]),
            "workers": run["workers"], "deals": deals, "seconds": round(seconds, 3),
            "deals_per_s": round(per_second, 1), "remaining_seconds": remaining,
            "budget_deals": spec.get("deals"), "budget_seconds": spec.get("time"),
            "budget_own": _own_budget(run),
            "outcomes": run["outcomes"], "objective": run["objective"],
            "best": run["checkpoint"].get("best"),
            **_played_ranks(run), **_gone_owner(run)}


def _own_budget(run: dict[str, Any]) -> list[str]:
    """The budgets a run's strategy keeps in its settings (the factory's --nodes), in words."""
    strategy = find_strategy(run["strategy"])
    settings = run["options"].get("settings")
    if strategy is None or not isinstance(settings, dict):
        return []
    return strategy.budget(settings)


def _played_ranks(run: dict[str, Any]) -> dict[str, Any]:
    """An exhaustive search's ranks: the block asked for and the spans played so far."""
    played = (run["checkpoint"].get("strategy") or {}).get("ranks")
    if played is None:
        return {}
    return {"ranks": (run["options"].get("settings") or {}).get("ranks"),
            "ranks_played": played}


def _gone_owner(run: dict[str, Any]) -> dict[str, Any]:
    """A stale run's owner that is gone: its pid, machine and since when."""
    owner = run.get("owner")
    if run["status"] != "stale" or owner is None:
        return {}
    return {"owner": {key: owner[key] for key in ("pid", "host", "since")}}


def run(args: argparse.Namespace) -> int:
    """``dealsearch status``."""
    skipped: list[str] = []
    check_log_path(args.db, must_exist=True)
    last = _last_write(args.db)   # before reading: opening the log may make its -wal file
    runs = read_runs(args.db, args.all, skipped)
    status = _show(args, runs, last)
    if skipped:   # a damaged log: the runs that could be read were shown, then one line
        raise damaged(args.db, f"{counted(len(skipped), 'rows')} that cannot be read left out, "
                               f"the first: {skipped[0]}")
    return status


def _show(args: argparse.Namespace, runs: list[dict[str, Any]], last: float | None) -> int:
    figures = [describe(r) for r in runs]
    advice = [how_to_continue(r, args.db) for r in runs]
    if args.json:
        for line in figures:
            print(json.dumps(line))
        return EXIT_OK
    if not figures:
        print(f"no search is running on {args.db}" + ("" if args.all else
              " (dealsearch status --all lists every run)"))
        return EXIT_OK
    for f, then in zip(figures, advice, strict=True):
        print(_text(f, then, args.db))
    if last is not None and any(f["status"] == "running" for f in figures):
        print(f"the log was last written {duration(time.time() - last)} ago")
    return EXIT_OK


def _text(f: dict[str, Any], then: str, db: str) -> str:
    """A run's figures as a few plain lines (``then``: how to continue it, if it is stale;
    ``db``: the log, for the command that lists a run's finds)."""
    try:
        game: Game | None = get_game(f["game"])
    except GameError:  # a run of a game this installation does not have
        game = None
    # A game without options has no setting to show; a run of the game's defaults says so.
    setting = f.get("setting") or f["options_key"] or (
        "default" if game is None or game.option_specs else "")
    kind = "search" if is_search(f["strategy"]) else "run"   # e.g. a factory run
    lines = [f"run {f['run_id']} {f['status']}: {f['strategy']} {kind} of {f['game']}"
             f"{f' ({setting})' if setting else ''}, {counted(f['workers'], 'workers')}"]
    if f["status"] == "stale":
        lines.append(f"  its owner, {describe_owner(f['owner'])}, is gone: {then}")
    lost = f["strategy"] == LOST   # log recover kept its finds and counts, not its checkpoint
    if lost:
        lines.append(f"  {CANNOT_RESUME}")
    budget = []
    if f["budget_deals"] is not None:
        budget.append(f"{count(f['budget_deals'])} deals")
    if f["budget_seconds"] is not None:
        budget.append(duration(f["budget_seconds"]))
    budget += f["budget_own"]
    left = ("no budget: runs until stopped" if not budget else
            f"{duration(f['remaining_seconds'])} left of {' or '.join(budget)}"
            if f["remaining_seconds"] is not None else f"budget {' or '.join(budget)}")
    if f["status"] not in ("running", "stale"):
        left = f"budget {' or '.join(budget)}" if budget else (
            "its budget was not kept" if lost else "no budget")
    lines.append(f"  {count(f['deals'])} deals in {duration(f['seconds'])} "
                 f"({rate(f['deals'], f['seconds'])}); {left}")
    strategy = find_strategy(f["strategy"])
    if strategy is not None and not strategy.counts_games:   # the factory: its finds only
        lines.append(f"  a {f['strategy']} run keeps no outcomes nor a best game: "
                     f"dealsearch records --run {f['run_id']} --db {db} lists what it found")
        return "\n".join(lines)
    lines.append(f"  outcomes: {outcomes(f['outcomes'])}")
    if "ranks_played" in f:
        block = f" of the block {ranks_text([f['ranks']])}" if f["ranks"] else ""
        lines.append(f"  ranks played{block}: {ranks_text(f['ranks_played'])}")
    best = f["best"]
    names = game.measures if game is not None else [k for k in (best or {}) if k != "deal"]
    # the best is chosen by the run's objective: said when it is not the game's first measure
    by = f" by {f['objective']}" if names and f.get("objective") not in ("", names[0]) else ""
    lines.append(f"  best so far{by}: {measures(best, names)}: {best['deal']}" if best
                 else f"  best so far{by}: not kept (dealsearch records lists its finds)"
                 if lost else f"  best so far{by}: none yet")
    return "\n".join(lines)
