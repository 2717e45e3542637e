"""Pictures of what searches found, drawn from the log alone: ``dealsearch report``.

Writes ``index.html`` and one PNG per figure (``FIGURE_SIZE`` pixels each): the length
distribution with its exponential tail, best-so-far and throughput against time, the records
next to the published ones, and the cycle catalogue. One game at a time; runs are grouped by
strategy and options (a climb's lengths say nothing about random deals, nor a 3-player run's
about 2 players), each group drawn and fitted on its own.
"""

from __future__ import annotations

import html
import itertools
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no screen is needed or wanted
import matplotlib.pyplot as plt

from .game import get_game
from .games.beggar.known import load_known
from .log import RecordLog

DPI = 100
FIGURE_SIZE = (900, 500)  # pixels
TAIL_QUANTILE = 0.75      # the tail fit starts at this quantile of the lengths
MAX_CYCLE_BARS = 15       # cycles drawn; the HTML table lists them all
PUBLISHED_SCALE = 205     # cards: the tail of random 2-player standard BMN deals (published)
COLOURS = ("#4477aa", "#cc3311", "#228833", "#aa3377", "#ee7733", "#009988", "#bbbbbb")


def standard_key() -> str:
    """The options key of random-comparable BMN: standard rules, 2 players, full deck, no
    limit (the setting of the published records and of the 205-card tail)."""
    return get_game("beggar").options().key()


@dataclass(frozen=True)
class Group:
    """Runs of one strategy under one game setting: drawn and fitted together."""

    strategy: str
    options_key: str
    runs: tuple[dict[str, Any], ...]

    @property
    def label(self) -> str:
        """E.g. 'random, standard 2p' (the key's first two options)."""
        short = " ".join(part.split("=", 1)[1] for part in self.options_key.split(";")[:2])
        return f"{self.strategy}, {short}" if short else self.strategy

    @property
    def comparable(self) -> bool:
        """Random standard 2-player BMN: comparable with the published 205-card tail."""
        return self.strategy == "random" and self.options_key == standard_key() and all(
            run["game"] == "beggar" for run in self.runs)


def groups(runs: list[dict[str, Any]]) -> list[Group]:
    """The runs by (strategy, options), in order of their first run."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs:
        by.setdefault((run["strategy"], run["options_key"]), []).append(run)
    return [Group(strategy, key, tuple(members)) for (strategy, key), members in by.items()]


@dataclass(frozen=True)
class TailFit:
    """An exponential tail: counts fall by e every ``scale`` cards beyond ``start``."""

    start: int
    scale: float
    deals: int   # how many games lie in the tail


def tail_fit(width: int, counts: dict[int, int], quantile: float = TAIL_QUANTILE
             ) -> TailFit | None:
    """Fit an exponential to the tail of a binned length histogram (maximum likelihood).

    Bins of width ``width`` beyond the ``quantile`` of the data are geometric with ratio q if
    the lengths are exponential; the maximum-likelihood q is m / (1 + m), m being the mean bin
    offset, and the scale is -width / ln q. None if the tail is too thin to fit.
    """
    total = sum(counts.values())
    if not total:
        return None
    running, first = 0, 0
    for b in sorted(counts):
        running += counts[b]
        if running >= quantile * total:
            first = b + 1
            break
    tail = {b - first: n for b, n in counts.items() if b >= first}
    deals = sum(tail.values())
    mean = sum(offset * n for offset, n in tail.items()) / deals if deals else 0.0
    if deals < 10 or mean <= 0:
        return None
    return TailFit(first * width, -width / math.log(mean / (1 + mean)), deals)


def _figure() -> tuple[Any, Any]:
    return plt.subplots(figsize=(FIGURE_SIZE[0] / DPI, FIGURE_SIZE[1] / DPI), dpi=DPI)


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _label(run: dict[str, Any]) -> str:
    return f"run {run['id']}: {run['strategy']}, {run['rules'] or run['game']}"


def draw_lengths(log: RecordLog, runs: list[dict[str, Any]], path: Path, measure: str = "cards"
                 ) -> list[tuple[Group, TailFit | None, int]]:
    """The distribution of game lengths (log scale), one line and one exponential tail fit
    per group of runs; returns (group, fit, games) of each."""
    fig, ax = _figure()
    fits: list[tuple[Group, TailFit | None, int]] = []
    width = 0
    for colour, group in zip(itertools.cycle(COLOURS), groups(runs)):
        width, counts = log.histogram([run["id"] for run in group.runs], measure)
        fit = tail_fit(width, counts) if counts else None
        games = sum(counts.values())
        fits.append((group, fit, games))
        if not counts:
            continue
        bins = sorted(counts)
        ax.stairs([counts.get(b, 0) for b in range(bins[0], bins[-1] + 1)],
                  [b * width for b in range(bins[0], bins[-1] + 2)], color=colour,
                  label=f"{group.label}: {games:,} games")
        if fit is not None:
            xs = [fit.start + i * (max(bins) * width - fit.start) / 100 for i in range(101)]
            first_bin = counts.get(fit.start // width, 1)
            ax.plot(xs, [first_bin * math.exp(-(x - fit.start) / fit.scale) for x in xs],
                    color=colour, lw=2, ls="--",
                    label=f"{group.label}: tail scale {fit.scale:.0f} {measure}")
    if any(games for _, _, games in fits):
        ax.set_yscale("log")
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "no length histogram in these runs", ha="center",
                transform=ax.transAxes)
    ax.set_title("How long the games were (each strategy and setting on its own)")
    ax.set_xlabel(f"game length ({measure})")
    ax.set_ylabel(f"games per {width or 1}-{measure[:-1] if measure.endswith('s') else measure}"
                  " bin (log scale)")
    _save(fig, path)
    return fits


def draw_best(log: RecordLog, runs: list[dict[str, Any]], path: Path, measure: str = "cards"
              ) -> None:
    """Best game so far against time, one line per run."""
    fig, ax = _figure()
    for run in runs:
        wins = sorted((f for f in log.finds([run["id"]]) if f["outcome"] != "cycle"),
                      key=lambda f: f["found"])
        best, xs, ys = 0, [], []
        for find in wins:
            if find[measure] > best:
                best = find[measure]
                xs.append((find["found"] - run["started"]) / 60)
                ys.append(best)
        if xs:
            end = ((run["ended"] or time.time()) - run["started"]) / 60
            ax.step([*xs, max(end, xs[-1])], [*ys, ys[-1]], where="post", label=_label(run))
    ax.set_title("Longest game found so far")
    ax.set_xlabel("time since the run started (minutes)")
    ax.set_ylabel(f"longest game ({measure})")
    if ax.lines:
        ax.legend()
    _save(fig, path)


def draw_throughput(log: RecordLog, runs: list[dict[str, Any]], path: Path) -> None:
    """Deals per second against time, one line per run."""
    fig, ax = _figure()
    for run in runs:
        samples = log.samples(run["id"])
        xs, ys = [], []
        for before, after in itertools.pairwise(samples):
            seconds = after["seconds"] - before["seconds"]
            if seconds > 0:
                xs.append(after["seconds"] / 60)
                ys.append((after["deals"] - before["deals"]) / seconds)
        if xs:
            ax.plot(xs, ys, marker=".", label=_label(run))
    ax.set_title("Search speed")
    ax.set_xlabel("search time (minutes)")
    ax.set_ylabel("deals per second")
    ax.set_ylim(bottom=0)
    if ax.lines:
        ax.legend()
    _save(fig, path)


def record_rows(log: RecordLog, runs: list[dict[str, Any]], game: str = "beggar"
                ) -> list[tuple[Any, ...]]:
    """(who, measures..., deal): the published records of the game (BMN: standard 2-player
    deals) and this log's five best comparable games (BMN: only finds played as the records
    were, standard 2-player full deck without a limit; other games: every setting)."""
    published: list[tuple[Any, ...]] = []
    if game == "beggar":
        published = [(f"{k.finder} {k.year}", k.cards, k.tricks, k.text) for k in load_known()
                     if k.outcome == "win" and k.rules_name == "standard"]
    measures = get_game(game).measures
    ours = [(f"run {f['run_id']} ({f['strategy']})", *(f[m] for m in measures), f["deal"])
            for f in log.finds([run["id"] for run in runs], game=game)
            if f["outcome"] != "cycle" and (game != "beggar" or f["options_key"] == standard_key())
            ][:5]
    return sorted(published + ours, key=lambda row: row[1])


def draw_records(rows: list[tuple[Any, ...]], path: Path, measure: str = "cards") -> None:
    """The published records and ours, as bars."""
    fig, ax = _figure()
    colours = ["#bbbbbb" if not who.startswith("run ") else "#228833" for who, *_ in rows]
    # A label per bar: the same finder (or run) may hold several records.
    labels = [f"{who}: {value}" for who, value, *_ in rows]
    ax.barh(range(len(rows)), [value for _, value, *_ in rows], color=colours)
    ax.set_yticks(range(len(rows)), labels)
    ax.set_title("Our best games (green) and the published records (grey)")
    ax.set_xlabel(f"game length ({measure})")
    _save(fig, path)


def _cycle_label(cycle: dict[str, Any], measures: tuple[str, ...]) -> str:
    period = " / ".join(f"{cycle[f'period_{m}']} {m}" for m in measures)
    last = measures[-1]
    return f"{cycle['id'][:6]}: period {period}, shortest entry {cycle[f'entry_{last}']} {last}"


def draw_cycles(cycles: list[dict[str, Any]], path: Path,
                measures: tuple[str, ...] = ("cards", "tricks")) -> None:
    """The cycle catalogue: one bar per distinct cycle, as long as the deals that reach it."""
    fig, ax = _figure()
    shown = cycles[:MAX_CYCLE_BARS]
    if shown:
        labels = [_cycle_label(c, measures) for c in shown]
        ax.barh(range(len(shown)), [c["deals"] for c in shown], color="#aa3377")
        ax.set_yticks(range(len(shown)), labels)
        ax.invert_yaxis()
    else:
        ax.text(0.5, 0.5, "no cycles found in this log", ha="center", transform=ax.transAxes)
    more = f" (the {len(shown)} most reached)" if len(cycles) > len(shown) else ""
    ax.set_title(f"Cycle catalogue: {len(cycles)} distinct cycles{more}")
    ax.set_xlabel("logged deals that enter the cycle")
    _save(fig, path)


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _fit_text(fits: list[tuple[Group, TailFit | None, int]], measure: str) -> str:
    lines = []
    for group, fit, games in fits:
        if fit is None:
            lines.append(f"{html.escape(group.label)}: too few games for a tail fit "
                         f"({games:,}).")
            continue
        text = (f"{html.escape(group.label)}: the tail beyond {fit.start} {measure} "
                f"({fit.deals:,} games) falls by a factor e every <b>{fit.scale:.0f} "
                f"{measure}</b>")
        if group.comparable:
            text += (f" (published simulations: about {PUBLISHED_SCALE} for random 2-player "
                     "deals)")
        lines.append(text + ".")
    return "<br>".join(lines) or "Too few games for a tail fit."


def write_report(log: RecordLog, run_ids: list[int], out: Path, game: str = "beggar") -> Path:
    """Draw every figure of the given runs (all runs of ``game`` if none) into ``out``;
    returns index.html."""
    runs = [log.run(i) for i in run_ids] if run_ids else log.runs()
    missing = [i for i, run in zip(run_ids, runs, strict=False) if run is None]
    if missing:
        raise ValueError(f"no run {missing[0]} in the log")
    chosen: list[dict[str, Any]] = [run for run in runs if run is not None
                                    and run.get("game", "beggar") == game]
    other = [run["id"] for run in runs if run is not None and run not in chosen]
    if other and run_ids:
        raise ValueError(f"run {other[0]} is not a {game} run (add --game)")
    measures = get_game(game).measures
    measure = measures[0]
    out.mkdir(parents=True, exist_ok=True)
    fits = draw_lengths(log, chosen, out / "lengths.png", measure)
    draw_best(log, chosen, out / "best.png", measure)
    draw_throughput(log, chosen, out / "throughput.png")
    records = record_rows(log, chosen, game)
    draw_records(records, out / "records.png", measure)
    cycles = log.cycles(game, [run["id"] for run in chosen] if run_ids else None)
    draw_cycles(cycles, out / "cycles.png", measures)
    fit_text = _fit_text(fits, measure)
    run_rows = [[r["id"], r["strategy"], r["rules"], r["status"], f"{r['deals']:,}",
                 f"{r['seconds']:.0f}", (r["checkpoint"].get("best") or {}).get(measure, ""),
                 r["options_key"]]
                for r in chosen]
    last = measures[-1]
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>dealsearch report</title>
<style>body{{font-family:sans-serif;max-width:960px;margin:auto}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px}}
td{{font-family:monospace}}</style></head><body>
<h1>dealsearch report</h1>
<p>{len(chosen)} {html.escape(game)} run(s) from {html.escape(log.path)}.</p>
{_table(["run", "strategy", "rules", "status", "deals", "seconds", f"best ({measure})",
         "options"], run_rows)}
<h2>Game lengths</h2><img src="lengths.png" alt="length distribution"><p>{fit_text}</p>
<h2>Best so far</h2><img src="best.png" alt="best so far against time">
<h2>Speed</h2><img src="throughput.png" alt="deals per second against time">
<h2>Records</h2><img src="records.png" alt="records">
{_table(["who", *measures, "deal"], [list(r) for r in reversed(records)])}
<h2>Cycles</h2><img src="cycles.png" alt="cycle catalogue">
{_table(["cycle", *(f"period {m}" for m in measures), f"shortest entry ({last})", "deals"],
        [[c["id"], *(c[f"period_{m}"] for m in measures), c[f"entry_{last}"], c["deals"]]
         for c in cycles])}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
