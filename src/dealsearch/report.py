"""Pictures of what searches found, drawn from the log alone: ``dealsearch report``.

Writes ``index.html`` and one PNG per figure (``FIGURE_SIZE`` pixels each): the length
distribution with its exponential tail, best-so-far and throughput against time, the records
next to the published ones, and the cycle catalogue.
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

from .known import load_known
from .log import RecordLog

DPI = 100
FIGURE_SIZE = (900, 500)  # pixels
TAIL_QUANTILE = 0.75      # the tail fit starts at this quantile of the lengths
MAX_CYCLE_BARS = 15       # cycles drawn; the HTML table lists them all


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
    return f"run {run['id']}: {run['strategy']}, {run['rules']}"


def draw_lengths(log: RecordLog, runs: list[dict[str, Any]], path: Path) -> TailFit | None:
    """The distribution of game lengths (log scale) with its exponential tail fit."""
    width, counts = log.histogram([run["id"] for run in runs], "cards")
    fig, ax = _figure()
    fit = tail_fit(width, counts) if counts else None
    if counts:
        bins = sorted(counts)
        ax.bar([b * width for b in bins], [counts[b] for b in bins], width=width,
               align="edge", color="#4477aa", label=f"{sum(counts.values()):,} games")
        if fit is not None:
            xs = [fit.start + i * (max(bins) * width - fit.start) / 100 for i in range(101)]
            first_bin = counts.get(fit.start // width, 1)
            ax.plot(xs, [first_bin * math.exp(-(x - fit.start) / fit.scale) for x in xs],
                    color="#cc3311", lw=2,
                    label=f"exponential tail: scale {fit.scale:.0f} cards")
        ax.set_yscale("log")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no length histogram in these runs", ha="center",
                transform=ax.transAxes)
    ax.set_title("How long the games were")
    ax.set_xlabel("game length (cards)")
    ax.set_ylabel(f"games per {width or 1}-card bin (log scale)")
    _save(fig, path)
    return fit


def draw_best(log: RecordLog, runs: list[dict[str, Any]], path: Path) -> None:
    """Best game so far against time, one line per run."""
    fig, ax = _figure()
    for run in runs:
        wins = sorted((f for f in log.finds([run["id"]]) if f["outcome"] == "win"),
                      key=lambda f: f["found"])
        best, xs, ys = 0, [], []
        for find in wins:
            if find["cards"] > best:
                best = find["cards"]
                xs.append((find["found"] - run["started"]) / 60)
                ys.append(best)
        if xs:
            end = ((run["ended"] or time.time()) - run["started"]) / 60
            ax.step([*xs, max(end, xs[-1])], [*ys, ys[-1]], where="post", label=_label(run))
    ax.set_title("Longest game found so far")
    ax.set_xlabel("time since the run started (minutes)")
    ax.set_ylabel("longest game (cards)")
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


def record_rows(log: RecordLog, runs: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    """(who, cards, tricks, deal): the published records and this log's five best games."""
    published = [(f"{k.finder} {k.year}", k.cards, k.tricks, k.text) for k in load_known()
                 if k.outcome == "win" and k.rules_name == "standard"]
    ours = [(f"run {f['run_id']} ({f['strategy']})", f["cards"], f["tricks"], f["deal"])
            for f in log.finds([run["id"] for run in runs]) if f["outcome"] == "win"][:5]
    return sorted(published + ours, key=lambda row: row[1])


def draw_records(rows: list[tuple[str, int, int, str]], path: Path) -> None:
    """The published records and ours, as bars."""
    fig, ax = _figure()
    colours = ["#bbbbbb" if not who.startswith("run ") else "#228833" for who, *_ in rows]
    # A label per bar: the same finder (or run) may hold several records.
    labels = [f"{who}: {cards}" for who, cards, *_ in rows]
    ax.barh(range(len(rows)), [cards for _, cards, *_ in rows], color=colours)
    ax.set_yticks(range(len(rows)), labels)
    ax.set_title("Our best games (green) next to the published records (grey)")
    ax.set_xlabel("game length (cards)")
    _save(fig, path)


def draw_cycles(cycles: list[dict[str, Any]], path: Path) -> None:
    """The cycle catalogue: one bar per distinct cycle, as long as the deals that reach it."""
    fig, ax = _figure()
    shown = cycles[:MAX_CYCLE_BARS]
    if shown:
        labels = [f"{c['id'][:6]}: period {c['period_cards']} cards / {c['period_tricks']} "
                  f"tricks, shortest entry {c['entry_tricks']} tricks" for c in shown]
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


def write_report(log: RecordLog, run_ids: list[int], out: Path) -> Path:
    """Draw every figure of the given runs (all runs if none) into ``out``; returns index.html."""
    runs = [log.run(i) for i in run_ids] if run_ids else log.runs()
    missing = [i for i, run in zip(run_ids, runs, strict=False) if run is None]
    if missing:
        raise ValueError(f"no run {missing[0]} in the log")
    chosen: list[dict[str, Any]] = [run for run in runs if run is not None]
    out.mkdir(parents=True, exist_ok=True)
    fit = draw_lengths(log, chosen, out / "lengths.png")
    draw_best(log, chosen, out / "best.png")
    draw_throughput(log, chosen, out / "throughput.png")
    records = record_rows(log, chosen)
    draw_records(records, out / "records.png")
    cycles = log.cycles()
    draw_cycles(cycles, out / "cycles.png")
    fit_text = (f"The tail beyond {fit.start} cards ({fit.deals:,} games) falls by a factor "
                f"e every <b>{fit.scale:.0f} cards</b> (published simulations: about 205 for "
                "random 2-player deals)." if fit else "Too few games for a tail fit.")
    run_rows = [[r["id"], r["strategy"], r["rules"], r["status"], f"{r['deals']:,}",
                 f"{r['seconds']:.0f}", (r["checkpoint"].get("best") or {}).get("cards", "")]
                for r in chosen]
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>dealsearch report</title>
<style>body{{font-family:sans-serif;max-width:960px;margin:auto}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px}}
td{{font-family:monospace}}</style></head><body>
<h1>dealsearch report</h1>
<p>{len(chosen)} run(s) from {html.escape(log.path)}.</p>
{_table(["run", "strategy", "rules", "status", "deals", "seconds", "best (cards)"], run_rows)}
<h2>Game lengths</h2><img src="lengths.png" alt="length distribution"><p>{fit_text}</p>
<h2>Best so far</h2><img src="best.png" alt="best so far against time">
<h2>Speed</h2><img src="throughput.png" alt="deals per second against time">
<h2>Records</h2><img src="records.png" alt="records">
{_table(["who", "cards", "tricks", "deal"], [list(r) for r in reversed(records)])}
<h2>Cycles</h2><img src="cycles.png" alt="cycle catalogue">
{_table(["cycle", "period cards", "period tricks", "shortest entry (tricks)", "deals"],
        [[c["id"], c["period_cards"], c["period_tricks"], c["entry_tricks"], c["deals"]]
         for c in cycles])}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
