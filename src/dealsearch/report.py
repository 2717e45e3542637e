"""Pictures of what searches found, drawn from the log alone: ``dealsearch report``.

Writes ``index.html`` and one PNG per figure (``FIGURE_SIZE`` pixels each): the length
distribution, best-so-far and throughput against time, the records next to the published ones,
and the cycle catalogue. One game at a time; runs are grouped by strategy and setting (a
climb's lengths say nothing about random deals, nor a 3-player run's about 2 players), each
group drawn on its own.

The report claims no more than the data support: an exponential tail is fitted only to the
lengths of random searches, and drawn only where a chi-square goodness-of-fit test accepts it
(:mod:`dealsearch.projection`); otherwise one sentence under the figure says why there is no
fit. A figure with nothing to draw is not drawn: a sentence stands in its place.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no screen is needed or wanted
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator, NullFormatter, StrMethodFormatter

from .game import Published, PublishedRecords, describe_setting, get_game, histogram
from .log import RecordLog
from .projection import (
    ALPHA,
    MAX_TAIL,
    MIN_TAIL,
    TAIL_FRACTION,
    TailFit,
    fit_tail,
    run_projection,
)
from .strategies import find_strategy, random_deals
from .text import duration, shown, unit

DPI = 100
FIGURE_SIZE = (900, 500)  # pixels
MAX_CYCLE_BARS = 15       # cycles drawn
MAX_CYCLE_ROWS = 50       # cycles listed in the HTML table
MARKER = 5                # points: every measured point is drawn, a lone one too
MAX_LABEL = 120           # characters of a figure's label (a legend entry, a bar's name)
COLOURS = ("#4477aa", "#cc3311", "#228833", "#aa3377", "#ee7733", "#009988", "#bbbbbb")
FIGURES = ("lengths.png", "best.png", "throughput.png", "records.png", "cycles.png")

# Why a strategy's lengths get no tail fit: they are not a sample of random deals.
def published(game_name: str) -> Published | None:
    """What the game has published to compare with (:class:`~dealsearch.game.Published`)."""
    game = get_game(game_name)
    return game.published() if isinstance(game, PublishedRecords) else None


def setting_text(run: dict[str, Any]) -> str:
    """A run's game setting in words (:meth:`dealsearch.game.Game.describe_options`); the
    options key if the game cannot read the logged options any more."""
    return describe_setting(run["game"], run.get("game_options", {}), run.get("options_key", ""))


@dataclass(frozen=True)
class Group:
    """Runs of one strategy under one game setting, ranking finds by one measure (their
    objective): drawn and fitted together."""

    strategy: str
    options_key: str
    runs: tuple[dict[str, Any], ...]
    objective: str = ""

    @property
    def setting(self) -> str:
        """The setting in words, e.g. 'standard rules, 2 players'."""
        return setting_text(self.runs[0])

    @property
    def label(self) -> str:
        """E.g. 'random, standard rules, 2 players' (and 'by tricks' for a run ranked by
        another measure than its game's first)."""
        by = "" if self.objective in ("", get_game(self.game).measures[0]) else \
            f", by {self.objective}"
        return ", ".join(filter(None, (self.strategy, self.setting))) + by

    @property
    def game(self) -> str:
        """The runs' game."""
        return str(self.runs[0]["game"])

    @property
    def comparable(self) -> bool:
        """Random deals of the setting the game's records were published for."""
        known = published(self.game)
        return (random_deals(self.strategy) and known is not None
                and self.options_key == known.options.key())


def groups(runs: list[dict[str, Any]]) -> list[Group]:
    """The runs by (strategy, options, objective), in order of their first run."""
    by: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for run in runs:
        by.setdefault((run["strategy"], run["options_key"], run.get("objective", "")),
                      []).append(run)
    return [Group(strategy, key, tuple(members), objective)
            for (strategy, key, objective), members in by.items()]


@dataclass(frozen=True)
class GroupLengths:
    """A group's length histogram and what the report says about its tail."""

    group: Group
    width: int
    counts: dict[int, int]
    fit: TailFit | None     # None: not fitted (not random deals, or no games)
    sentence: str           # one sentence for the page (plain text): the fit, or why there is none

    @property
    def games(self) -> int:
        """Games in the histogram."""
        return sum(self.counts.values())


def group_lengths(log: RecordLog, group: Group, measure: str) -> GroupLengths:
    """A group's merged histogram, its tail fit (random searches only) and its sentence."""
    width, counts = log.histogram([run["id"] for run in group.runs], measure)
    label = group.label
    games = sum(counts.values())
    if not counts:
        return GroupLengths(group, width, counts, None,
                            f"{label}: no length histogram in the log.")
    if not random_deals(group.strategy):
        strategy = find_strategy(group.strategy)
        reason = ((strategy and strategy.not_random)
                  or f"a {group.strategy} search's lengths are not random deals")
        return GroupLengths(group, width, counts, None,
                            f"{label} ({games:,} games): no tail fit, because {reason}.")
    _, bins = histogram(get_game(group.game), measure)
    fit = fit_tail(width, counts, overflow=bins - 1, measure=measure)
    if not fit.accepted:
        return GroupLengths(group, width, counts, fit,
                            f"{label} ({games:,} games): no tail line, because {fit.reason}.")
    text = f"{label} ({games:,} games): {fit.describe()}"
    known = published(group.game)
    if group.comparable and known is not None and measure in known.tail_scale:
        text += (f"; published simulations give about {known.tail_scale[measure]:g} {measure} "
                 "for random deals of this setting")
    return GroupLengths(group, width, counts, fit, text + ".")


def _figure() -> tuple[Any, Any]:
    # Constrained layout: titles, labels and legends are never cut off.
    return plt.subplots(figsize=(FIGURE_SIZE[0] / DPI, FIGURE_SIZE[1] / DPI), dpi=DPI,
                        layout="constrained")


def _save(fig: Any, path: Path) -> None:
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _legend(fig: Any) -> None:
    """The figure's legend below its axes, where it hides no data (two columns for many
    short labels)."""
    labels = fig.axes[0].get_legend_handles_labels()[1]
    wide = len(labels) > 4 and max(map(len, labels)) <= 60
    fig.legend(loc="outside lower center", fontsize="small", ncols=2 if wide else 1)


def as_drawn(text: str) -> str:
    """A text of the log as a figure draws it: control characters as visible escapes
    (:func:`~dealsearch.text.shown`; drawn as written, each is a missing glyph and a warning),
    and at most :data:`MAX_LABEL` characters (matplotlib lays out every one, and a log may
    hold strategies 60,000 characters long)."""
    text = shown(text)
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 3] + "..."


def _label(run: dict[str, Any]) -> str:
    return as_drawn(f"run {run['id']}: {run['strategy']}, {setting_text(run)}")


def _time_unit(seconds: float) -> tuple[str, float]:
    """A unit for a time axis that spans ``seconds``: (name, seconds per unit)."""
    if seconds < 120:
        return "seconds", 1.0
    if seconds < 2 * 3600:
        return "minutes", 60.0
    return "hours", 3600.0


def draw_lengths(log: RecordLog, runs: list[dict[str, Any]], path: Path, measure: str
                 ) -> list[GroupLengths]:
    """The distribution of game lengths (log scale), one line per group of runs, with the
    fitted exponential tail where the test accepts it. Draws nothing if no group has a
    histogram; returns every group's lengths and sentence."""
    lengths = [group_lengths(log, group, measure) for group in groups(runs)]
    drawn = [g for g in lengths if g.counts]
    if not drawn:
        return lengths
    fig, ax = _figure()
    widths = {g.width for g in drawn}
    for colour, g in zip(itertools.cycle(COLOURS), drawn):
        bins = sorted(g.counts)
        edges = [b * g.width for b in range(bins[0], bins[-1] + 2)]
        ax.stairs([g.counts.get(b, 0) for b in range(bins[0], bins[-1] + 1)], edges,
                  color=colour, label=as_drawn(f"{g.group.label}: {g.games:,} games"))
        fit = g.fit
        if fit is not None and fit.accepted:
            # The fitted geometric, bin by bin: tail * q**k * (1 - q) games in bin start + k.
            q = math.exp(-g.width / fit.scale)
            start = fit.threshold // g.width
            ks = range(0, bins[-1] - start + 1)
            xs = [(start + k + 0.5) * g.width for k in ks]
            ys = [fit.tail_games * q**k * (1 - q) for k in ks]
            keep = [i for i, y in enumerate(ys) if y >= 0.3]
            tail = as_drawn(f"{g.group.strategy}: exponential tail, e-fold {fit.scale_text} "
                         f"{measure} (chi-square p = {fit.p_value:.2f})")
            ax.plot([xs[i] for i in keep], [ys[i] for i in keep], color="black", lw=1.5,
                    ls="--", zorder=3, label=tail)
    ax.set_yscale("log")
    # Plain numbers: the log scale's own labels are mathtext, which the report turns off.
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(bottom=0.5)
    _legend(fig)
    ax.set_title("How long the games were (each strategy and setting on its own)")
    ax.set_xlabel(f"game length ({measure})")
    width = widths.pop() if len(widths) == 1 else None
    ax.set_ylabel(f"games per {width}-{unit(measure, 1)} bin (log scale)" if width and width > 1
                  else "games per bin (log scale)" if width is None
                  else "games of each length (log scale)")
    _save(fig, path)
    return lengths


#: A line of a figure against search time: (seconds of search, values, label).
Line = tuple[list[float], list[float], str]


def best_lines(log: RecordLog, runs: list[dict[str, Any]], measure: str) -> list[Line]:
    """Each run's best game so far (in ``measure``) against its search time, the clock its
    throughput samples keep (time the run was stopped does not count), to the run's last
    search second; runs ranked by another measure, and runs without a finished game, have
    no line."""
    lines = []
    for run in runs:
        if run.get("objective", measure) != measure:
            continue
        wins = sorted((f for f in log.finds([run["id"]]) if f["outcome"] != "cycle"),
                      key=lambda f: (f["seconds"], f["id"]))
        best, xs, ys = 0, [], []
        for find in wins:
            if find[measure] > best:
                best = find[measure]
                xs.append(find["seconds"])
                ys.append(best)
        if xs:
            lines.append(([*xs, max(run["seconds"], xs[-1])], [*ys, ys[-1]], _label(run)))
    return lines


def best_figure(lines: list[Line], measure: str) -> Any:
    """The figure of :func:`best_lines` (not saved)."""
    unit, size = _time_unit(max(xs[-1] for xs, _, _ in lines))
    fig, ax = _figure()
    for xs, ys, label in lines:
        ax.step([x / size for x in xs], ys, where="post", marker="o", markersize=MARKER,
                label=label)
    ax.set_title("Longest game found so far")
    ax.set_xlabel(f"search time ({unit}; time a run was stopped does not count)")
    ax.set_ylabel(f"longest game ({measure})")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(left=0)
    _legend(fig)
    return fig


def draw_best(log: RecordLog, runs: list[dict[str, Any]], path: Path, measure: str
              ) -> bool:
    """Best game so far against search time, one line per run ranked by ``measure`` (a run
    ranked by another measure found its bests by that one); False (nothing drawn) if no such
    run logged a finished game."""
    lines = best_lines(log, runs, measure)
    if lines:
        _save(best_figure(lines, measure), path)
    return bool(lines)


def speed_lines(log: RecordLog, runs: list[dict[str, Any]]) -> list[Line]:
    """Each run's deals per second between its throughput samples, against search time
    (a run with fewer than two samples has no line)."""
    lines = []
    for run in runs:
        xs, ys = [], []
        for before, after in itertools.pairwise(log.samples(run["id"])):
            seconds = after["seconds"] - before["seconds"]
            if seconds > 0:
                xs.append(after["seconds"])
                ys.append((after["deals"] - before["deals"]) / seconds)
        if xs:
            lines.append((xs, ys, _label(run)))
    return lines


def speed_figure(lines: list[Line]) -> Any:
    """The figure of :func:`speed_lines` (not saved): every point marked, so that a run
    measured once shows as a dot."""
    unit, size = _time_unit(max(xs[-1] for xs, _, _ in lines))
    fig, ax = _figure()
    for xs, ys, label in lines:
        ax.plot([x / size for x in xs], ys, marker="o", markersize=MARKER, label=label)
    ax.set_title("Search speed")
    ax.set_xlabel(f"search time ({unit}; time a run was stopped does not count)")
    ax.set_ylabel("deals per second")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    top = max(max(ys) for _, ys, _ in lines)
    ax.set_ylim(0, 1.1 * top or None)   # room for the top point's marker
    ax.set_xlim(left=0)
    _legend(fig)
    return fig


def draw_throughput(log: RecordLog, runs: list[dict[str, Any]], path: Path) -> bool:
    """Deals per second against search time, one line per run; False (nothing drawn) unless
    some run has at least two speed measurements (a run of a few seconds has one)."""
    lines = speed_lines(log, runs)
    if not any(len(xs) >= 2 for xs, _, _ in lines):
        return False
    _save(speed_figure(lines), path)
    return True


def record_rows(log: RecordLog, runs: list[dict[str, Any]], game: str
                ) -> list[tuple[Any, ...]]:
    """(who, measures..., deal): the game's published records, if it has any, and this log's
    five best games comparable with them: found by runs ranked by the game's first measure
    (as records are), played in the setting the records were (without published records:
    the setting of the longest such find)."""
    measures = get_game(game).measures
    known = published(game)
    theirs = [] if known is None else [(who, *(values[m] for m in measures), deal)
                                       for who, values, deal in known.records]
    finds = [f for f in log.finds([run["id"] for run in runs], game=game)
             if f["outcome"] != "cycle" and f["objective"] == measures[0]]
    setting = known.options.key() if known is not None else (
        finds[0]["options_key"] if finds else None)
    ours = [(f"run {f['run_id']} ({f['strategy']})", *(f[m] for m in measures), f["deal"])
            for f in finds if f["options_key"] == setting][:5]
    return sorted(theirs + ours, key=lambda row: row[1])


def draw_records(rows: list[tuple[Any, ...]], path: Path, measure: str,
                 published: bool = True) -> bool:
    """The published records and ours, as bars; False if there is nothing to draw."""
    if not rows:
        return False
    fig, ax = _figure()
    colours = ["#bbbbbb" if not who.startswith("run ") else "#228833" for who, *_ in rows]
    # A label per bar: the same finder (or run) may hold several records.
    labels = [as_drawn(f"{who}: {value:,}") for who, value, *_ in rows]
    ax.barh(range(len(rows)), [value for _, value, *_ in rows], color=colours)
    ax.set_yticks(range(len(rows)), labels)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Our best games (green) and the published records (grey)" if published
                 else "Our best games")
    ax.set_xlabel(f"game length ({measure})")
    _save(fig, path)
    return True


def _cycle_label(cycle: dict[str, Any], measures: tuple[str, ...]) -> str:
    period = " / ".join(f"{cycle[f'period_{m}']} {m}" for m in measures)
    last = measures[-1]
    return as_drawn(f"{cycle['id'][:6]}: period {period}, entry from {cycle[f'entry_{last}']} "
                 f"{last}")


def cycle_settings(cycles: list[dict[str, Any]]) -> dict[str, str]:
    """Each cycle's setting (by its id), in words (:func:`describe_setting`): cycles of
    different rules are different catalogues."""
    words: dict[tuple[str, str], str] = {}
    for c in cycles:
        if (c["game"], c["options_key"]) not in words:
            words[c["game"], c["options_key"]] = describe_setting(
                c["game"], c["game_options"], c["options_key"])
    return {c["id"]: words[c["game"], c["options_key"]] for c in cycles}


def cycle_figure(cycles: list[dict[str, Any]], measures: tuple[str, ...]) -> Any:
    """The figure of :func:`draw_cycles` (not saved): one series, in its own colour and
    named in the legend, per setting."""
    fig, ax = _figure()
    last = measures[-1]
    setting_of = cycle_settings(cycles)
    settings = list(dict.fromkeys(setting_of.values()))   # in the order of their cycles
    colours = dict(zip(settings, itertools.cycle(COLOURS), strict=False))
    if max(c["deals"] for c in cycles) > 1:
        bars = cycles[:MAX_CYCLE_BARS]
        for setting in settings:
            rows = [i for i, c in enumerate(bars) if setting_of[c["id"]] == setting]
            if rows:
                ax.barh(rows, [bars[i]["deals"] for i in rows], color=colours[setting],
                        label=as_drawn(setting))
        ax.set_yticks(range(len(bars)), [_cycle_label(c, measures) for c in bars],
                      fontsize="small")
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        more = f", the {len(bars)} most reached" if len(cycles) > len(bars) else ""
        ax.set_title(f"Cycle catalogue: {len(cycles):,} distinct cycles{more}")
        ax.set_xlabel("logged deals that enter the cycle")
    else:
        width = 0.8 / len(settings)   # the settings' bars side by side at each period
        for i, setting in enumerate(settings):
            periods: dict[int, int] = {}
            for c in cycles:
                if setting_of[c["id"]] == setting:
                    periods[c[f"period_{last}"]] = periods.get(c[f"period_{last}"], 0) + 1
            offset = (i - (len(settings) - 1) / 2) * width
            ax.bar([p + offset for p in periods], list(periods.values()), width=width,
                   color=colours[setting], label=as_drawn(setting))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"Cycle catalogue: {len(cycles):,} distinct cycles, each reached by "
                     "one logged deal")
        ax.set_xlabel(f"period ({last})")
        ax.set_ylabel("distinct cycles")
    _legend(fig)
    return fig


def draw_cycles(cycles: list[dict[str, Any]], path: Path,
                measures: tuple[str, ...]) -> bool:
    """The cycle catalogue, each setting's cycles in their own colour, named; False (nothing
    drawn) without cycles. If some cycle is reached by several logged deals: one bar per
    distinct cycle, as long as the deals that reach it (the most reached). If each is
    reached by one deal (a random search's cycles): how many distinct cycles have each
    period."""
    if cycles:
        _save(cycle_figure(cycles, measures), path)
    return bool(cycles)


def _table(headers: list[str], rows: list[list[Any]], wrap: int | None = None) -> str:
    """An HTML table; column ``wrap`` (a deal's text) may break anywhere, the rest never."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(('<td class="wrap">' if i == wrap else "<td>")
                         + f"{html.escape(str(v))}</td>" for i, v in enumerate(row)) + "</tr>"
        for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _figure_html(drawn: bool, name: str, alt: str, absent: str) -> str:
    """The image if it was drawn, else the sentence that stands in for it."""
    if drawn:
        return f'<img src="{name}" alt="{html.escape(alt)}" width="{FIGURE_SIZE[0]}">'
    return f'<p class="absent">{html.escape(absent)}</p>'


def _projection_html(log: RecordLog, runs: list[dict[str, Any]], measure: str,
                     target: int | None) -> str:
    """One paragraph per random run: what its own tail says, or why it says nothing."""
    parts = []
    for run in runs:
        projection = run_projection(log, run, target, measure)
        if projection is None:
            continue
        # The tail sentence is under the lengths figure already (for the run's group).
        lines = projection.summary_lines()[1:] if projection.fit.accepted else \
            projection.summary_lines()
        parts.append(f"<p><b>Run {run['id']}</b> ({html.escape(setting_text(run))}): "
                     + " ".join(html.escape(line) for line in lines) + "</p>")
    if not parts:
        return ("<p>No random search among these runs: a projection needs the lengths of "
                "random deals.</p>")
    target_text = "" if target is None else f" and the cost of {target:,} {measure}"
    return (f"<p>From each random run's own lengths: the expected longest deal{target_text}, "
            "if its tail is exponential. Counts are deals on average; core-hours and wall "
            "time are at the run's measured speed.</p>" + "".join(parts))


def write_report(log: RecordLog, run_ids: list[int], out: Path, game: str,
                 target: int | None = None) -> Path:
    """Draw every figure of the given runs (all runs of ``game`` if none) into ``out``;
    returns index.html. ``target``: a length (in the game's first measure) whose cost in
    deals, core-hours and wall time the projection section gives."""
    # The figures' labels hold texts of the log (a strategy, a setting): drawn as written,
    # never read as mathtext ('$\\frac{$' would stop the drawing).
    with matplotlib.rc_context({"text.parse_math": False}):
        return _write_report(log, run_ids, out, game, target)


def _write_report(log: RecordLog, run_ids: list[int], out: Path, game: str,
                  target: int | None) -> Path:
    runs = [log.run(i) for i in run_ids] if run_ids else log.runs()
    missing = [i for i, run in zip(run_ids, runs, strict=False) if run is None]
    if missing:
        raise ValueError(f"no run {missing[0]} in the log")
    chosen: list[dict[str, Any]] = [run for run in runs if run is not None
                                    and run["game"] == game]
    other = [run["id"] for run in runs if run is not None and run["game"] != game]
    if other and run_ids:
        raise ValueError(f"run {other[0]} is not a {game} run (add --game)")
    plugin = get_game(game)
    measures = plugin.measures
    # The runs' objective if they share one (report --run of a climb on tricks draws tricks),
    # else the game's first measure: a figure of best games is drawn in one measure.
    objectives = {run.get("objective") or measures[0] for run in chosen}
    measure = objectives.pop() if len(objectives) == 1 else measures[0]
    out.mkdir(parents=True, exist_ok=True)
    for name in FIGURES:   # a figure not drawn this time must not linger from an earlier one
        (out / name).unlink(missing_ok=True)
    lengths = draw_lengths(log, chosen, out / "lengths.png", measure)
    drew: dict[str, bool] = {"lengths.png": any(g.counts for g in lengths)}
    drew["best.png"] = draw_best(log, chosen, out / "best.png", measure)
    drew["throughput.png"] = draw_throughput(log, chosen, out / "throughput.png")
    records = record_rows(log, chosen, game)
    drew["records.png"] = draw_records(records, out / "records.png", measures[0],
                                       published=published(game) is not None)
    cycles = log.cycles(game, [run["id"] for run in chosen] if run_ids else None)
    drew["cycles.png"] = draw_cycles(cycles, out / "cycles.png", measures)
    fit_text = ("".join(f"<li>{html.escape(g.sentence)}</li>" for g in lengths)
                or "<li>No runs to draw.</li>")
    run_rows = [[r["id"], r["strategy"], setting_text(r), r["status"], f"{r['deals']:,}",
                 duration(r["seconds"]),
                 f"{r['deals'] / r['seconds']:,.0f}" if r["seconds"] else "",
                 r["workers"], _best(r, measure, measures[0])]
                for r in chosen]
    last = measures[-1]
    setting_of = cycle_settings(cycles[:MAX_CYCLE_ROWS])
    figure: Callable[[str, str, str], str] = lambda name, alt, absent: _figure_html(  # noqa: E731
        drew[name], name, alt, absent)
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>dealsearch report: {html.escape(plugin.title)}</title>
<style>body{{font-family:sans-serif;max-width:960px;margin:auto;padding:0 8px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px}}
td{{font-family:monospace}}td.wrap{{overflow-wrap:anywhere}}img{{max-width:100%;height:auto}}
p.absent{{color:#555;font-style:italic}}</style></head><body>
<h1>dealsearch report: {html.escape(plugin.title)}</h1>
<p>{len(chosen)} {html.escape(plugin.title)} run(s) from {html.escape(log.path)}.</p>
{_table(["run", "strategy", "setting", "status", "deals", "search time", "deals/s", "workers",
         f"best ({measure})"], run_rows)}
<h2>Game lengths</h2>{figure("lengths.png", "length distribution",
                              "No run logged a length histogram.")}
<ul class="fits">{fit_text}</ul>
<p>The tail test: the longest {TAIL_FRACTION:.0%} of a random search's games (at most
{MAX_TAIL:,}, at least {MIN_TAIL}) are compared with the fitted exponential by a chi-square
goodness-of-fit test; the line is drawn only if the test accepts it at the {ALPHA:.0%}
level. Other strategies' lengths are not random deals and get no fit.</p>
<h2>Projection</h2>{_projection_html(log, chosen, measure, target)}
<h2>Best so far</h2>{figure("best.png", "best so far against time",
                            "No finished game was logged, so there is no best to follow.")}
<h2>Speed</h2>{figure("throughput.png", "deals per second against time",
                      "The runs were too short for a speed curve (it needs two speed "
                      "samples); the runs table gives each run's overall deals/s.")}
<h2>Records</h2>{figure("records.png", "records", "No finished game to compare.")}
{_table(["who", *measures, "deal"], [[who, *(f"{v:,}" for v in values), deal]
                                     for who, *values, deal in reversed(records)],
        wrap=len(measures) + 1)
 if records else ""}
<h2>Cycles</h2>{figure("cycles.png", "cycle catalogue",
                       "No never-ending deal was found in these runs.")}
{_table(["cycle", "setting", *(f"period {m}" for m in measures), f"shortest entry ({last})",
         "deals"],
        [[c["id"], setting_of[c["id"]], *(c[f"period_{m}"] for m in measures),
          c[f"entry_{last}"], f"{c['deals']:,}"] for c in cycles[:MAX_CYCLE_ROWS]])
 if cycles else ""}
{_more_cycles(len(cycles))}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def _more_cycles(count: int) -> str:
    if count <= MAX_CYCLE_ROWS:
        return ""
    return (f"<p>The table shows the {MAX_CYCLE_ROWS} most reached of {count:,} cycles; "
            "<code>dealsearch records --cycles</code> lists them all.</p>")


def _best(run: dict[str, Any], measure: str, first: str) -> str:
    """The run's best so far in ``measure``, or in its own objective (named) if it ranks by
    another one."""
    objective = run.get("objective") or first
    value = (run["checkpoint"].get("best") or {}).get(objective)
    if value is None:
        return ""
    return f"{value:,}" if objective == measure else f"{value:,} {objective}"
