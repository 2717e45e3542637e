"""Random search on an accelerator: a game that offers a device sampler plays chunks there.

``--device cpu`` (the default) plays chunks with the compiled players of
:func:`~dealsearch.search.random_search.play_chunk`. ``--device gpu`` asks the game for a
:class:`DeviceSampler` (a game offers one through the :class:`DeviceSearch` capability) that
plays a whole run of chunks on the device and says what it played: counts, totals and
histograms of the games it settled, each chunk's record-setting deals, and the deals it handed
back (past a cap, or maybe a cycle). :func:`play_on_device` turns that into the same
:class:`~dealsearch.search.base.Report` the CPU would have sent: hand-backs are played on the
game's exact engine, every chunk with a hand-back (or with more records than the device keeps)
is played again on the CPU for its finds, and the finds' deals are dealt again on the CPU from
their numbers. Deal ``j`` of chunk ``k`` is the same deal on either device, so a seed gives the
same counts and histograms on either, and the same finds in the log: a device reports only the
chunk records that could still be logged (:func:`task_finds`), since a GPU finds a hundred
thousand chunk records a second.

``--device emulate`` runs the device's code compiled for the CPU: slow, for tests and for
checking a kernel on a machine without the device.

Every device run checks itself: one chunk in ``check_every`` (by default one in
:data:`CHECK_EVERY`, chunk 0 always) comes back from the device on its own as well, and is
played again on the CPU; its counts, histograms and finds must be equal, or the run stops
with :class:`DeviceMismatch`. A broken driver, a miscompiled kernel or a faulty GPU then
costs minutes, not a night of wrong results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..devices import ChunkPlay, DeviceMismatch, DeviceSampler, DeviceSearch
from ..game import GameResult, finished
from .base import Report, Task, add_batch, compact, results_of, score
from .spec import SearchSpec

_samplers: dict[tuple[Any, ...], DeviceSampler] = {}


def device_sampler(spec: SearchSpec) -> DeviceSampler:
    """The spec's sampler, built once per process (a GPU kernel compiles once)."""
    key = (spec.game, spec.options.key(), spec.seed, spec.objective, spec.device)
    if key not in _samplers:
        game = spec.plugin
        assert isinstance(game, DeviceSearch)
        _samplers[key] = game.device_sampler(spec.options, spec.seed, str(spec.objective),
                                             spec.device)
    return _samplers[key]


def check_device(spec: SearchSpec) -> str:
    """The spec's device in words, once its sampler is built (in a worker: the process that
    will use it); raises :class:`DeviceUnavailable`."""
    return device_sampler(spec).name


def play_on_device(spec: SearchSpec, task: Task, chunk_deals: int,
                   play_cpu: Callable[[SearchSpec, Task], Report]) -> Report:
    """A run of chunks of random deals on the spec's device: the report ``play_cpu``
    (:func:`~dealsearch.search.random_search.play_chunk_cpu`, which plays the chunks the CPU
    must play again) gives for the same task, its finds as :func:`task_finds` keeps them."""
    game = spec.plugin
    report = Report.for_game(task.key, game)
    hists, widths = report.hist_args(game)
    deals = int(task.payload["deals"])
    played = device_sampler(spec).play(task.key, deals, chunk_deals, hists, widths,
                                       spec.device_check_every)
    for check in played.checks:
        size = min(chunk_deals, task.key * chunk_deals + deals - check.chunk * chunk_deals)
        cross_check(spec, check, play_cpu(spec, Task(check.chunk, {"deals": size})))
    report.checked = len(played.checks)
    report.deals = sum(played.counts)
    report.count(game, played.counts, played.totals)
    if played.handbacks:    # games the device did not settle: the exact engine's counts
        add_batch(report, game, game.play_batch(_rows(spec, played.handbacks), spec.options))
    replay = set(played.replay) | {chunk for chunk, _ in played.handbacks}
    ended = finished(game)
    # (chunk, deal in it or its text, score or None for a cycle, result if known), in order
    found: list[tuple[int, Any, int | None, GameResult | None]] = sorted(
        (chunk, deal, find_score, None) for chunk, deal, find_score in played.finds
        if chunk not in replay)
    for chunk in sorted(replay):    # its finds as the CPU finds them
        size = min(chunk_deals, task.key * chunk_deals + deals - chunk * chunk_deals)
        found += [(chunk, text, score(result, spec) if result.outcome in ended else None,
                   result) for text, result in
                  play_cpu(spec, Task(chunk, {"deals": size})).finds]
    found.sort(key=lambda find: find[0])    # stable: each chunk's finds keep their order
    kept = [find for find, keep in zip(found, _task_records([f[2] for f in found]),
                                       strict=True) if keep]
    # the device's finds dealt and played again on the CPU, all in one batch
    mine = [(chunk, deal) for chunk, deal, _, result in kept if result is None]
    rows = _rows(spec, mine)
    results = iter(zip(rows, results_of(spec, rows), strict=True))
    for _, deal, _, result in kept:
        if result is None:
            row, result = next(results)
            deal = compact(row, spec)
        report.finds.append((deal, result))
    return report


def cross_check(spec: SearchSpec, played: ChunkPlay, cpu: Report) -> None:
    """Raise :class:`DeviceMismatch` unless the device's chunk (its hand-backs played on the
    exact engine) is the CPU's: counts, histograms, and its records (a chunk without
    hand-backs, whose records the device kept)."""
    game = spec.plugin
    mine = Report.for_game(played.chunk, game)
    mine.deals = sum(played.counts)
    mine.count(game, played.counts, played.totals)
    for hist, device_hist in zip(mine.hist_args(game)[0], played.hists, strict=True):
        hist += device_hist
    if played.handbacks:
        where = [(played.chunk, deal) for deal in played.handbacks]
        add_batch(mine, game, game.play_batch(_rows(spec, where), spec.options))
    differ = []
    if (mine.deals, mine.total, mine.outcomes) != (cpu.deals, cpu.total, cpu.outcomes):
        differ.append(f"counts {mine.outcomes}, CPU {cpu.outcomes}")
    differ += [f"{measure} histogram" for measure, hist in cpu.histograms.items()
               if not np.array_equal(hist, mine.histograms[measure])]
    if played.all_finds and not played.handbacks:
        rows = _rows(spec, [(played.chunk, deal) for deal, _ in played.finds])
        found = [(compact(row, spec), find_score) for row, (_, find_score)
                 in zip(rows, played.finds, strict=True)]
        if found != [(deal, score(result, spec)) for deal, result in cpu.finds]:
            differ.append(f"finds ({len(found)} found, the CPU {len(cpu.finds)})")
    if differ:
        raise DeviceMismatch(
            f"--device {spec.device}: chunk {played.chunk} differs from its replay on the CPU "
            f"({'; '.join(differ)}): the device's results cannot be trusted")


def _task_records(scores: list[int | None]) -> list[bool]:
    """Which of a task's finds (chunk by chunk, each chunk's records in order; None for a
    cycle) to report: every cycle, and every record not below an earlier one of the task.
    A record below an earlier, longer find of the same task could never become the run's
    best (the runner absorbs a report's finds in order, and a tie may, so ties stay), so the
    log gets exactly the finds of the CPU search, which reports every chunk's records:
    about 12 per chunk, a hundred thousand per second on a GPU, each costing the CPU a game
    and a line of text."""
    best, keep = -1, []
    for find_score in scores:
        keep.append(find_score is None or find_score >= best)
        if find_score is not None:
            best = max(best, find_score)
    return keep


def task_finds(spec: SearchSpec, finds: list[tuple[str, GameResult]]
               ) -> list[tuple[str, GameResult]]:
    """A CPU report's finds as a device reports them (see :func:`_task_records`)."""
    ended = finished(spec.plugin)
    keep = _task_records([score(result, spec) if result.outcome in ended else None
                          for _, result in finds])
    return [find for find, kept in zip(finds, keep, strict=True) if kept]


def _rows(spec: SearchSpec, where: list[tuple[int, int]]) -> npt.NDArray[np.uint8]:
    chunks = np.array([chunk for chunk, _ in where], dtype=np.uint64)
    deals = np.array([deal for _, deal in where], dtype=np.uint64)
    return device_sampler(spec).rows(chunks, deals)
