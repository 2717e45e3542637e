"""Searches on an accelerator: a game that offers a device player plays chunks there.

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

An exhaustive search's block of ranks plays on a game's :class:`DeviceBlockPlayer` the same
way (:func:`play_block_on_device`): a chunk is a shard of ranks, and the report is the one
the CPU's block player gives for the task, finds included.

Every device run checks itself: one chunk in ``check_every`` (by default one in
:data:`CHECK_EVERY`, chunk 0 always) comes back from the device on its own as well, and is
played again on the CPU; its counts, histograms and finds must be equal, or the run stops
with :class:`DeviceMismatch`. A broken driver, a miscompiled kernel or a faulty GPU then
costs minutes, not a night of wrong results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..devices import (
    ChunkPlay,
    DeviceBlockPlayer,
    DeviceBlocks,
    DeviceMismatch,
    DeviceSampler,
    DeviceSearch,
)
from ..game import GameResult, finished
from .base import Report, Task, add_batch, compact, results_of, score
from .distinct import DistinctDeals
from .spec import SearchSpec

Rows = Callable[[list[tuple[int, int]]], npt.NDArray[np.uint8]]
_samplers: dict[tuple[Any, ...], Any] = {}


def device_sampler(spec: SearchSpec) -> DeviceSampler:
    """The spec's sampler, built once per process (a GPU kernel compiles once)."""
    key = (spec.game, spec.options.key(), spec.seed, spec.objective, spec.device)
    if key not in _samplers:
        game = spec.plugin
        assert isinstance(game, DeviceSearch)
        _samplers[key] = game.device_sampler(spec.options, spec.seed, str(spec.objective),
                                             spec.device)
    return _samplers[key]  # type: ignore[no-any-return]


def device_block_player(spec: SearchSpec) -> DeviceBlockPlayer:
    """The spec's block player, built once per process."""
    key = (spec.game, spec.options.key(), "blocks", spec.objective, spec.device)
    if key not in _samplers:
        game = spec.plugin
        assert isinstance(game, DeviceBlocks)
        _samplers[key] = game.device_block_player(spec.options, str(spec.objective),
                                                  spec.device)
    return _samplers[key]  # type: ignore[no-any-return]


def check_device(spec: SearchSpec) -> str:
    """The spec's device in words, once its player is built (in a worker: the process that
    will use it); raises :class:`DeviceUnavailable`."""
    if spec.strategy == "exhaustive":
        return device_block_player(spec).name
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
        cross_check(spec, check, play_cpu(spec, Task(check.chunk, {"deals": size})),
                    lambda where: _rows(spec, where))
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


def cross_check(spec: SearchSpec, played: ChunkPlay, cpu: Report, rows: Rows,
                where: str = "") -> None:
    """Raise :class:`DeviceMismatch` unless the device's chunk (its hand-backs played on the
    exact engine) is the CPU's: counts, histograms, and its records (a chunk without
    hand-backs, whose records the device kept); ``rows`` deals (chunk, deal) pairs, ``where``
    names the chunk (default: ``chunk N``)."""
    game = spec.plugin
    mine = Report.for_game(played.chunk, game)
    mine.deals = sum(played.counts)
    mine.count(game, played.counts, played.totals)
    for hist, device_hist in zip(mine.hist_args(game)[0], played.hists, strict=True):
        hist += device_hist
    if played.handbacks:
        backs = [(played.chunk, deal) for deal in played.handbacks]
        add_batch(mine, game, game.play_batch(rows(backs), spec.options))
    differ = []
    if (mine.deals, mine.total, mine.outcomes) != (cpu.deals, cpu.total, cpu.outcomes):
        differ.append(f"counts {mine.outcomes}, CPU {cpu.outcomes}")
    differ += [f"{measure} histogram" for measure, hist in cpu.histograms.items()
               if not np.array_equal(hist, mine.histograms[measure])]
    if played.all_finds and not played.handbacks:
        dealt = rows([(played.chunk, deal) for deal, _ in played.finds])
        found = [(compact(row, spec), find_score) for row, (_, find_score)
                 in zip(dealt, played.finds, strict=True)]
        if found != [(deal, score(result, spec)) for deal, result in cpu.finds]:
            differ.append(f"finds ({len(found)} found, the CPU {len(cpu.finds)})")
    if differ:
        raise DeviceMismatch(
            f"--device {spec.device}: {where or f'chunk {played.chunk}'} differs from its "
            f"replay on the CPU ({'; '.join(differ)}): the device's results cannot be trusted")


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


class _Block:
    """A task's ranks for a device: chunk ``k``'s deal ``j`` (chunks of ``chunk_deals``, the
    task's key the first's number) is rank ``start + (k - key) * chunk_deals + j``."""

    def __init__(self, spec: SearchSpec, task: Task, chunk_deals: int) -> None:
        self.numbering = DistinctDeals(spec.layout)
        self.key, self.chunk_deals = task.key, chunk_deals
        self.start, self.deals = int(task.payload["start"]), int(task.payload["deals"])

    def rank(self, chunk: int, deal: int) -> int:
        """The rank of a chunk's deal."""
        return self.start + (chunk - self.key) * self.chunk_deals + deal

    def rows(self, where: list[tuple[int, int]]) -> npt.NDArray[np.uint8]:
        """The rows of (chunk, deal) pairs."""
        dealt = [self.numbering.row(self.rank(chunk, deal)) for chunk, deal in where]
        return np.array(dealt, dtype=np.uint8).reshape(len(where), self.numbering.width)

    def chunk_task(self, chunk: int) -> Task:
        """A chunk alone, as a task of the CPU's block player."""
        first = self.rank(chunk, 0)
        return Task(chunk, {"start": first,
                            "deals": min(self.chunk_deals, self.start + self.deals - first)})


def play_block_on_device(spec: SearchSpec, task: Task, chunk_deals: int,
                         play_cpu: Callable[[SearchSpec, Task], Report]) -> Report:
    """A run of shards of ranks (chunks of ``chunk_deals``, the task's key the first's number)
    on the spec's device: the report ``play_cpu`` (the CPU's block player) gives for the same
    task. Its finds are each cycle and each win longer than every one before it in the task:
    every such win not handed back is a record of its chunk, which the device lists, and the
    hand-backs are played on the exact engine; so the device's chunk records and the
    hand-backs, in rank order, filtered as the CPU filters its games, are the CPU's finds."""
    game = spec.plugin
    block = _Block(spec, task, chunk_deals)
    report = Report.for_game(task.key, game)
    hists, widths = report.hist_args(game)
    played = device_block_player(spec).play(block.start, task.key, block.deals, chunk_deals,
                                            hists, widths, spec.device_check_every)
    for check in played.checks:
        shard = block.chunk_task(check.chunk)
        end = shard.payload["start"] + shard.payload["deals"]
        cross_check(spec, check, play_cpu(spec, shard), block.rows,
                    f"shard {check.chunk} (ranks {shard.payload['start']}:{end})")
    report.checked = len(played.checks)
    report.deals = sum(played.counts)
    report.count(game, played.counts, played.totals)
    ended = finished(game)
    objective = game.measures.index(spec.objective or game.measures[0])
    # (rank, score or None for a cycle, its find if known): the candidates, in rank order
    found: list[tuple[int, int | None, tuple[str, GameResult] | None]] = [
        (block.rank(chunk, deal), find_score, None) for chunk, deal, find_score in played.finds
        if chunk not in played.replay]
    if played.handbacks:    # games the device did not settle: the exact engine's
        batch = game.play_batch(block.rows(played.handbacks), spec.options)
        add_batch(report, game, batch)
        for (chunk, deal), outcome, measures in zip(played.handbacks, batch.outcome,
                                                    batch.measures, strict=True):
            name = game.outcomes[outcome]
            if chunk not in played.replay and (name == "cycle" or name in ended):
                found.append((block.rank(chunk, deal),
                              None if name == "cycle" else int(measures[objective]), None))
    for chunk in played.replay:     # more records than the device keeps: the CPU's
        found += [(int(result.details["rank"]),
                   score(result, spec) if result.outcome in ended else None, (text, result))
                  for text, result in play_cpu(spec, block.chunk_task(chunk)).finds]
    report.finds = _block_finds(spec, block, sorted(found, key=lambda find: find[0]))
    return report


def _block_finds(spec: SearchSpec, block: _Block,
                 found: list[tuple[int, int | None, tuple[str, GameResult] | None]]
                 ) -> list[tuple[str, GameResult]]:
    """The finds the CPU's block player keeps of candidates in rank order (every cycle, and
    each win longer than every one before it: see ``tally``), those not known yet played
    again on the CPU for their full results, each with its rank."""
    best, kept = 0, []
    for find in found:
        if find[1] is None or find[1] > best:
            best = best if find[1] is None else find[1]
            kept.append(find)
    mine = [number for number, _, known in kept if known is None]
    dealt = block.rows([(block.key, number - block.start) for number in mine])
    results = dict(zip(mine, zip(dealt, results_of(spec, dealt), strict=True), strict=True))
    finds = []
    for number, _, known in kept:
        if known is None:
            row, result = results[number]
            known = (compact(row, spec), replace(result, details={**result.details,
                                                                  "rank": number}))
        finds.append(known)
    return finds
