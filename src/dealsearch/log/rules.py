"""The log's rules: what each row of each table must hold, in one place.

Every reader (``records``, ``status``, ``report``, ``search --resume``) holds each row it reads
to these rules, and so does ``dealsearch log check``: a row that breaks one is skipped and
counted by a reader, named by the check. The rules bound what a row may make a reader do (a
log is a file from a stranger): text and JSON lengths, JSON nesting, numbers in range,
histogram bins and widths, pids, the chunks and ranks of a checkpoint.

>>> judge("histograms", {"run_id": 1, "measure": "cards", "bin_width": 10,
...                      "counts": '{"1000000000000": 1}'})[1]
['counts is not a histogram ({bin: count}, bins 0 to 65535)']
>>> judge("finds", {"details": "[" * 100_000 + "]" * 100_000}, whole=False)[1]
['details is nested too deep']
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..game import Game, GameError, get_game
from .schema import DECLARED, columns

MAX_TEXT = 1 << 16     # characters of a text column that is not JSON
MAX_JSON = 1 << 20     # characters of a JSON column
MAX_DEPTH = 16         # nesting of a JSON value (a log of this release nests 4 deep at most)
MAX_BINS = 1 << 16     # bins of a histogram (a game bins its measures in 4,096 by default)
MAX_BIN_WIDTH = 1 << 20
MAX_PID = 2 ** 31 - 1
MAX_TIME = 253_402_300_799   # Unix time of the last second of 9999: a date a reader can show
MAX_CHUNKS_LISTED = 1 << 16   # chunks a checkpoint lists as done out of order
_INT64 = 2 ** 63
STATUSES = ("running", "done", "interrupted", "failed")
#: The JSON columns of each table (each holds an object, or is NULL where the column may be).
JSON_COLUMNS = {"runs": ("options", "outcomes", "checkpoint", "game_options", "totals"),
                "finds": ("game_options", "measures", "entry", "period", "details"),
                "cycles": ("period", "game_options"), "histograms": ("counts",),
                "samples": ("totals",)}
_KINDS = {int: "integer", float: "real", str: "text", bytes: "blob"}
_WANTED = {"INTEGER": ("integer",), "REAL": ("real", "integer"), "TEXT": ("text",)}


class DamagedRow(ValueError):
    """A row of the log that breaks its table's rules: where, and what is wrong."""

    def __init__(self, table: str, row: object, what: str) -> None:
        super().__init__(f"{table} row {row}: {what}")


class Garbled(str):
    """Text of the log that is not UTF-8 (shown with replacement characters)."""


def text_factory(data: bytes) -> str:
    """Every connection's text factory: a damaged byte makes its row bad, not the query."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Garbled(data.decode("utf-8", "replace"))


def decode_json(text: str) -> tuple[Any, str | None]:
    """(the value, None), or (None, what is wrong: too long, not JSON, nested too deep, a
    number that is not finite). A whole number has at most Python's 4,300 digits (more is not
    JSON to :func:`json.loads`); where a rule wants a count, it is checked there."""
    if len(text) > MAX_JSON:
        return None, f"is longer than {MAX_JSON:,} characters"
    try:
        value = json.loads(text)
    except RecursionError:
        return None, "is nested too deep"
    except ValueError as error:
        return None, f"is not JSON ({error})"
    stack = [(value, 1)]
    while stack:   # not recursive: the nesting is what is being bounded
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return None, "is nested too deep"
            stack.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict)
                                                   else item))
        elif isinstance(item, float) and not math.isfinite(item):
            return None, "holds a number out of range"
    return value, None


def is_count(value: Any) -> bool:
    """A whole number from 0 to 2**63 - 1 (JSON's ``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _INT64


def is_integer(value: Any) -> bool:
    """A whole number SQLite can hold (64 bits, signed): a find's measure, which finds are
    ranked by in ``find_measures`` (JSON's ``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and -_INT64 <= value < _INT64


def budget_problems(options: dict[str, Any]) -> list[str]:
    """What is wrong with a run's budget (``deals``, ``time``), which ``status`` and
    ``report`` reckon its time left by: each absent, or a count of deals and a finite number
    of seconds from 0. (A resumed run's whole spec is checked as a new run's.)"""
    problems = []
    deals, seconds = options.get("deals"), options.get("time")
    if deals is not None and not is_count(deals):
        problems.append("deals is not a count of deals")
    if seconds is not None and not (isinstance(seconds, int | float) and not isinstance(
            seconds, bool) and math.isfinite(seconds) and seconds >= 0):
        problems.append("time is not a number of seconds")
    return problems


def is_rank(value: Any) -> bool:
    """A deal's rank: a whole number from 0, of up to 30 digits (the command line's most): a
    52-card deck's ranks pass 2**63 (JSON holds them; only counts go into SQLite integers)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10 ** 30


def installed_game(name: object) -> Game[Any] | None:
    """The game called ``name``, or None if it is not installed here (or ``name`` is not a
    game's name: a damaged row's)."""
    try:
        return get_game(name) if isinstance(name, str) else None
    except GameError:
        return None


def measures_problem(game: Any, measures: dict[str, Any], every: bool = True) -> str | None:
    """What is wrong with the names of ``measures`` of a find or cycle of ``game``: None if
    they are the game's measures (``every``: all of them, else some; or the game is not
    installed here, so cannot tell)."""
    plugin = installed_game(game)
    names = None if plugin is None else plugin.measures
    if measures and names is not None and (set(measures) != set(names) if every
                                           else not set(measures) <= set(names)):
        return f"names {', '.join(sorted(measures))}, not the measures of {game}"
    return None


def judge(table: str, values: dict[str, Any], whole: bool = True
          ) -> tuple[dict[str, Any], list[str]]:
    """Hold a row of ``table`` (its values as SQLite returns them, text through
    :func:`text_factory`) to the rules: its JSON columns decoded, and every problem (none:
    the row is sound). ``whole``: the row holds every column of its table."""
    problems: list[str] = []
    if whole:
        missing = [c for c in columns(table) if c not in values]
        if missing:
            return {}, [f"no column {', '.join(missing)}"]
    decoded: dict[str, Any] = {}
    for name, value in values.items():
        problem = _typed(table, name, value)
        if problem is None and value is not None and name in JSON_COLUMNS.get(table, ()):
            decoded[name], why = decode_json(value)
            if why is None and not isinstance(decoded[name], dict):
                why = "is not a JSON object"
            problem = None if why is None else f"{name} {why}"
        if problem is not None:
            problems.append(problem)
    if not problems:
        problems.extend(_values(table, values, decoded))
    return decoded, problems


def _typed(table: str, name: str, value: Any) -> str | None:
    """What is wrong with the type or size of one value, if anything."""
    if isinstance(value, Garbled):
        return f"{name} is not UTF-8 text"
    nullable, declared = DECLARED.get((table, name), (True, ""))
    kind = "null" if value is None else _KINDS.get(type(value), "blob")
    if kind == "null":
        return None if nullable else f"{name} is empty (NULL)"
    wanted = _WANTED.get(declared)
    if wanted is not None and kind not in wanted:
        return f"{name} is {kind}, not {' or '.join(wanted)}"
    if kind == "real" and not math.isfinite(value):
        return f"{name} is not a finite number"
    if kind == "text" and name not in JSON_COLUMNS.get(table, ()) and len(value) > MAX_TEXT:
        return f"{name} is longer than {MAX_TEXT:,} characters"
    return None


def _values(table: str, v: dict[str, Any], json_: dict[str, Any]) -> list[str]:
    """The rules of a table beyond types: what its values must hold (those of the row)."""
    problems = []
    if table == "runs":
        if "status" in v and v["status"] not in STATUSES:
            problems.append(f"status is {v['status']!r}, not one of {', '.join(STATUSES)}")
        for name in ("deals", "seconds"):
            if name in v and v[name] < 0:
                problems.append(f"{name} is negative")
        if "workers" in v and v["workers"] < 1:
            problems.append("workers is not a count of workers")
        for name in ("outcomes", "totals"):
            if name in json_ and not all(is_count(n) for n in json_[name].values()):
                problems.append(f"{name} holds something other than counts")
        named = [("totals", json_.get("totals", {})), ("objective", {v.get("objective"): 0})]
        for name, measures in named:
            problem = measures_problem(v.get("game"), measures, every=False)
            if problem and name in v:
                problems.append(f"{name} {problem}")
        if "checkpoint" in json_:
            problem = chunks_problem(json_["checkpoint"].get("strategy")) or best_problem(
                json_["checkpoint"].get("best"))
            if problem:
                problems.append(f"checkpoint {problem}")
        settings = json_.get("options", {}).get("settings")
        ranks = settings.get("ranks") if isinstance(settings, dict) else None
        if ranks is not None and not is_spans([ranks], 1):
            problems.append("options settings ranks is not a block of ranks [start, end]")
        objective = json_.get("options", {}).get("objective")
        if objective is not None and not isinstance(objective, str):
            problems.append("options objective is not the name of a measure")
        problems.extend(f"options {p}" for p in budget_problems(json_.get("options", {})))
    elif table in ("finds", "cycles"):
        if table == "finds" and v.get("seconds", 0) < 0:
            problems.append("seconds is negative")
        if table == "finds" and json_.get("measures") == {}:
            problems.append("measures is empty")
        if table == "finds" and "rank" in (json_.get("details") or {}) and \
                not is_rank(json_["details"]["rank"]):
            problems.append("details rank is not a rank (a whole number from 0)")
        if table == "finds" and v.get("outcome") == "cycle" and "entry" in v and (
                json_.get("entry") is None or json_.get("period") is None):
            problems.append("a cycle without its entry and period")
        for name in ("measures", "entry", "period"):
            measures = json_.get(name) or {}
            if not all(is_integer(n) for n in measures.values()):
                problems.append(f"{name} holds something other than whole numbers (of up "
                                "to 64 bits)")
            elif problem := measures_problem(v.get("game"), measures):
                problems.append(f"{name} {problem}")
    elif table == "samples":
        if "deals" in v and v["deals"] < 0:
            problems.append("deals is negative")
        if "totals" in json_ and not all(is_count(n) for n in json_["totals"].values()):
            problems.append("totals holds something other than counts")
    elif table == "histograms":
        counts = json_.get("counts", {})
        if "bin_width" in v and not 1 <= v["bin_width"] <= MAX_BIN_WIDTH:
            problems.append(f"bin_width is not from 1 to {MAX_BIN_WIDTH:,}")
        if len(counts) > MAX_BINS or not all(
                key.isdigit() and len(key) < 8 and int(key) < MAX_BINS and is_count(n)
                for key, n in counts.items()):
            problems.append(f"counts is not a histogram ({{bin: count}}, bins 0 to "
                            f"{MAX_BINS - 1})")
    elif table == "owners":
        if "pid" in v and not 0 < v["pid"] <= MAX_PID:
            problems.append(f"pid is not a process id (1 to {MAX_PID:,})")
        if "since" in v and not 0 <= v["since"] <= MAX_TIME:   # shown as a date
            problems.append("since is not a time from 1970 to 9999")
    return problems


def chunks_problem(strategy: Any) -> str | None:
    """What is wrong with the chunks a strategy's checkpoint says are done (the
    :class:`~dealsearch.search.base.ChunkSet` every chunked strategy keeps), if anything:
    ``{"prefix": count, "extra": [chunk, ...], "spans": [[start, stop], ...]}``, and with the
    ranks an exhaustive search says it played (``"ranks": [[start, end], ...]``)."""
    if strategy is None:
        return None
    if not isinstance(strategy, dict):
        return "strategy is not a JSON object"
    if "ranks" in strategy and not is_spans(strategy["ranks"], MAX_CHUNKS_LISTED):
        return "ranks is not a list of the spans of ranks played ([start, end], ...)"
    chunks = strategy.get("chunks")
    if chunks is None:
        return None
    if not isinstance(chunks, dict) or not is_count(chunks.get("prefix", 0)):
        return "chunks has no count of chunks done (prefix)"
    extra, spans = chunks.get("extra", []), chunks.get("spans", [])
    if not isinstance(extra, list) or not all(is_count(n) for n in extra):
        return "chunks lists something other than chunks done (extra)"
    if not isinstance(spans, list) or not all(
            isinstance(s, list) and len(s) == 2 and all(is_count(n) for n in s) and s[0] <= s[1]
            for s in spans):
        return "chunks lists something other than spans of chunks done (spans)"
    if len(extra) + sum(stop - start for start, stop in spans) > MAX_CHUNKS_LISTED:
        return f"chunks lists more than {MAX_CHUNKS_LISTED:,} chunks done out of order"
    return None


def best_problem(best: Any) -> str | None:
    """What is wrong with a run's best so far (``{"deal": text, measure: count, ...}``, or
    none yet), if anything."""
    if best is None:
        return None
    if not isinstance(best, dict) or not isinstance(best.get("deal"), str) or \
            len(best["deal"]) > MAX_TEXT:
        return "best is not a deal with its measures"
    if not all(is_count(n) for name, n in best.items() if name != "deal"):
        return "best holds something other than counts"
    return None


def is_spans(value: Any, most: int) -> bool:
    """Whether ``value`` is a list of at most ``most`` spans ``[start, end]`` of ranks, each
    whole numbers with ``start < end`` (the exhaustive search's block and ranks played)."""
    return isinstance(value, list) and len(value) <= most and all(
        isinstance(s, list) and len(s) == 2 and all(is_rank(n) for n in s) and s[0] < s[1]
        for s in value)


def decode(table: str, row: Any, whole: bool = True) -> dict[str, Any]:
    """A row read by a reader (an ``sqlite3.Row``), as a dict with its JSON columns decoded;
    :class:`DamagedRow` (its first problem) if it breaks a rule."""
    values = dict(row)
    decoded, problems = judge(table, values, whole)
    if problems:
        raise DamagedRow(table, values.get("id", values.get("run_id", "?")), problems[0])
    return values | decoded

