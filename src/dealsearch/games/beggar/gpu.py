"""BMN random search on a GPU (CuPy), or on its CPU twin: the host side of ``_gpu_kernel.cu``.

:class:`GpuSampler` is what BMN offers the framework's device search
(:mod:`dealsearch.search.device`): it plays a run of chunks on a device and reports the games
the device settled, each chunk's record-setting deals and the games handed back (past
:data:`CAP_PER_CARD` cards per card, or the agreed limit: only the exact engine can tell a
cycle or a limit). Two devices run the same kernel source:

- :class:`CupyDevice`: the kernel compiled at run time by NVRTC (``cupy.RawModule``), so the
  wheel needs no CUDA; CuPy is imported only here, only when a GPU is asked for.
- :class:`EmulatedDevice`: ``_gpu_emulate``, the same C compiled into the package; it gives
  exactly the device's results (they do not depend on the order deals are played in).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...search.device import GPU_EXTRA, DevicePlay, DeviceUnavailable
from . import _gpu_emulate
from .options import BeggarOptions

KERNEL = Path(__file__).with_name("_gpu_kernel.cu")
CAP_PER_CARD = 256      # as the lanes: past this many cards per card a game is handed back
RECORD_ROOM = 64        # records a chunk keeps on the device (more: the CPU replays it)
SLICE_CHUNKS = 512      # chunks per kernel launch: its scores take 4 bytes a deal
BLOCK = 256             # threads per block
MAX_BINS = 4096         # histogram bins the kernel sums per block (DS_MAX_BINS)
I64 = npt.NDArray[np.int64]


def refusal(options: BeggarOptions) -> str | None:
    """Why the GPU engine cannot play these options (None if it can)."""
    if len(options.sizes) != 2:
        return "the GPU engine plays two players"
    if options.game_rules.deck_size > _gpu_emulate.MAX_CARDS:
        return f"the GPU engine plays decks of up to {_gpu_emulate.MAX_CARDS} cards"
    return None


@dataclass(frozen=True)
class KernelTable:
    """The kernel's arguments for one run: rules, deal, caps, objective, seed."""

    pay_word: int           # payment of class i in bits 8i..8i+7
    size0: int
    total: int
    cap_cards: int
    cap_tricks: int
    by_tricks: bool
    courts: npt.NDArray[np.uint8]   # the court cards' classes, ascending
    seed_key: int

    @classmethod
    def build(cls, options: BeggarOptions, seed: int, objective: str) -> KernelTable:
        """The table for a search of ``options`` seeded with ``seed``."""
        rules = options.game_rules
        total = rules.deck_size
        caps = 1 << 30      # the kernel counts in 32 bits
        return cls(
            pay_word=sum(p << (8 * c) for c, p in enumerate(rules.payments)),
            size0=options.sizes[0], total=total,
            cap_cards=min(options.max_cards or caps, CAP_PER_CARD * total),
            cap_tricks=min(options.max_tricks or caps, caps),
            by_tricks=objective == "tricks",
            courts=np.repeat(np.arange(len(rules.deck), dtype=np.uint8), rules.deck)
            [rules.deck[0]:],
            seed_key=_gpu_emulate.seed_key(seed))


@dataclass(frozen=True)
class Work:
    """A run of deals for a device: deals 0..n-1 of the chunks of ``chunk_deals`` deals from
    ``first_stream`` on, with histograms of ``card_bins`` bins of ``card_bin`` cards and of
    ``trick_bins`` bins of one trick."""

    first_stream: int
    n: int
    chunk_deals: int
    card_bin: int
    card_bins: int
    trick_bins: int


@dataclass
class DeviceRun:
    """A device's results for a :class:`Work`."""

    totals: I64                         # won below the caps, handed back, cards, tricks
    card_hist: I64                      # the games won below the caps
    trick_hist: I64
    handbacks: I64                      # the deals handed back, ascending
    record_counts: npt.NDArray[np.int32]    # per chunk (more than RECORD_ROOM: not all kept)
    records: npt.NDArray[np.uint32]     # per chunk, its records' positions in it ...
    record_scores: npt.NDArray[np.uint32]   # ... and their scores


class EmulatedDevice:
    """The kernel's C compiled for the CPU (``_gpu_emulate``): exactly the GPU's results.
    :meth:`launch` does the work; :meth:`collect` hands it over."""

    name = "CPU emulation of the GPU kernel"
    asynchronous = False    # nothing to gain from launching work ahead

    def launch(self, t: KernelTable, work: Work) -> DeviceRun:
        """Play the work."""
        totals = np.zeros(4, dtype=np.int64)
        card_hist = np.zeros(work.card_bins, dtype=np.int64)
        trick_hist = np.zeros(work.trick_bins, dtype=np.int64)
        scores = _gpu_emulate.play(t.pay_word, t.size0, t.total, t.cap_cards, t.cap_tricks,
                                   t.by_tricks, t.courts, t.seed_key, work.first_stream,
                                   work.chunk_deals, work.n, work.card_bin, card_hist,
                                   trick_hist, totals)
        counts, found, found_scores = _gpu_emulate.records(scores, work.chunk_deals,
                                                           RECORD_ROOM)
        handbacks = np.flatnonzero(scores == _gpu_emulate.HANDBACK).astype(np.int64)
        return DeviceRun(totals, card_hist, trick_hist, handbacks, counts, found, found_scores)

    def collect(self, launched: DeviceRun) -> DeviceRun:
        """The results of :meth:`launch`."""
        return launched


def kernel_source() -> str:
    """``_gpu_kernel.cu`` with its headers pasted in: NVRTC then needs no include path, and
    CuPy's kernel cache (keyed by the source) sees a change to a header."""
    def paste(text: str, done: set[str]) -> str:
        def header(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in done:
                return ""
            done.add(name)
            return paste(KERNEL.with_name(name).read_text(encoding="utf-8"), done)

        return re.sub(r'^#include "([^"]+)"$', header, text, flags=re.MULTILINE)

    return paste(KERNEL.read_text(encoding="utf-8"), set())


NVIDIA_DRIVER = Path("/proc/driver/nvidia/version")   # there while the driver is loaded


def _why_no_gpu(error: Exception) -> str:
    """Why CuPy found no GPU, in the user's terms: CUDA says "driver version is insufficient"
    also where there is no driver at all (no GPU here)."""
    if "insufficient" in str(error).lower() and sys.platform.startswith("linux") \
            and not NVIDIA_DRIVER.exists():
        return "no NVIDIA driver is loaded (this machine has no GPU, or its driver is not " \
               "installed)"
    return f"no usable GPU ({error})"


class CupyDevice:
    """The kernel on the current CUDA device, through CuPy (imported here, and only here)."""

    def __init__(self) -> None:
        try:
            import cupy  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise DeviceUnavailable(f"--device gpu needs CuPy: {GPU_EXTRA}") from None
        self.cp: Any = cupy
        try:
            count = cupy.cuda.runtime.getDeviceCount()
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id) if count \
                else None
        except Exception as error:  # CUDARuntimeError; or no CUDA library to load at all
            raise DeviceUnavailable(f"--device gpu: {_why_no_gpu(error)}") from None
        if props is None:
            raise DeviceUnavailable("--device gpu: no GPU found")
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.sms = int(props["multiProcessorCount"])
        try:
            module = cupy.RawModule(code=kernel_source(), options=("--std=c++17",))
            self.play_fn = module.get_function("bmn_random")
            self.records_fn = module.get_function("bmn_records")
        except Exception as error:  # NVRTC's CompileException, or a driver too old
            first = str(error).strip().splitlines()[:1] or [type(error).__name__]
            raise DeviceUnavailable(f"--device gpu: the kernel did not build: {first[0]}"
                                    ) from None
        try:    # enough blocks to fill every multiprocessor once: the kernel is persistent
            function = getattr(self.play_fn, "kernel", self.play_fn)   # RawKernel's Function
            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                function.ptr, BLOCK, 0)
        except Exception:   # an older CuPy: what the kernel's 56 registers allow
            per_sm = 4
        self.grid = self.sms * max(1, int(per_sm))
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.score_buffer: Any = None

    asynchronous = True     # launch returns at once; the GPU plays while the host works

    def launch(self, t: KernelTable, work: Work) -> Launched:
        """Queue the work's kernels on the GPU and return at once: a slice of SLICE_CHUNKS
        chunks per launch of ``bmn_random`` (its scores take 4 bytes a deal), each followed
        by ``bmn_records``; the GPU plays them back to back. Only small arrays are kept."""
        cp, u64, i32 = self.cp, np.uint64, np.int32
        n, per_chunk = work.n, work.chunk_deals
        chunks = -(-n // per_chunk)
        slice_deals = SLICE_CHUNKS * per_chunk
        slices = -(-n // slice_deals)
        room = max(1 << 16, min(n, slice_deals) // 64)
        with self.stream:
            if self.score_buffer is None or len(self.score_buffer) < min(n, slice_deals):
                # one buffer for every launch: the stream runs each slice's records kernel
                # before the next slice's (or the next work's) play kernel overwrites it
                self.score_buffer = cp.empty(min(n, slice_deals), dtype=cp.uint32)
            scores = self.score_buffer
            courts = cp.asarray(np.append(t.courts, np.uint8(0)))
            out = Launched(
                work=cp.zeros(slices, dtype=cp.uint64),
                totals=cp.zeros(4, dtype=cp.uint64),
                card_hist=cp.zeros(work.card_bins, dtype=cp.uint64),
                trick_hist=cp.zeros(work.trick_bins, dtype=cp.uint64),
                handbacks=cp.zeros((slices, room), dtype=cp.uint64),
                handback_counts=cp.zeros(slices, dtype=cp.uint64),
                counts=cp.zeros(chunks, dtype=cp.int32),
                found=cp.zeros((chunks, RECORD_ROOM), dtype=cp.uint32),
                found_scores=cp.zeros((chunks, RECORD_ROOM), dtype=cp.uint32),
                room=room, done=cp.cuda.Event())
            for s in range(slices):
                start = s * slice_deals
                size = min(slice_deals, n - start)
                c0 = s * SLICE_CHUNKS
                c1 = min(chunks, c0 + SLICE_CHUNKS)
                self.play_fn((self.grid,), (BLOCK,), (
                    u64(t.pay_word), i32(t.size0), i32(t.total), i32(t.cap_cards),
                    i32(t.cap_tricks), i32(t.by_tricks), courts, i32(len(t.courts)),
                    u64(t.seed_key), u64(work.first_stream + c0), u64(per_chunk), u64(size),
                    out.work[s:s + 1], scores, out.handbacks[s], out.handback_counts[s:s + 1],
                    u64(room), u64(start), out.totals, out.card_hist, i32(work.card_bins),
                    i32(work.card_bin), out.trick_hist, i32(work.trick_bins)))
                self.records_fn((max(1, -(-(c1 - c0) // 128)),), (128,), (
                    scores, u64(size), u64(per_chunk), out.found[c0:c1],
                    out.found_scores[c0:c1], out.counts[c0:c1], i32(RECORD_ROOM)))
            out.done.record(self.stream)
        return out

    def collect(self, launched: Launched) -> DeviceRun:
        """Wait for the work's kernels (only its own: work launched after it plays on) and
        copy its small results back."""
        launched.done.synchronize()
        listed = launched.handback_counts.get().astype(np.int64)
        if (listed > launched.room).any():
            raise RuntimeError(f"more than {launched.room} games of a slice handed back to "
                               "the CPU: this deck's games cycle too often for --device gpu; "
                               "search it with --device cpu")
        kept = launched.handbacks.get()
        return DeviceRun(
            launched.totals.get().astype(np.int64),
            launched.card_hist.get().astype(np.int64),
            launched.trick_hist.get().astype(np.int64),
            np.sort(np.concatenate([kept[s, :listed[s]] for s in range(len(listed))])
                    .astype(np.int64)),
            launched.counts.get(), launched.found.get(), launched.found_scores.get())


    def scores(self, t: KernelTable, work: Work) -> npt.NDArray[np.uint32]:
        """Every deal's score (HANDBACK for a hand-back) of a work of one slice at most: for
        checking the GPU deal by deal (``benchmarks/gpu_check.py``)."""
        if work.n > SLICE_CHUNKS * work.chunk_deals:
            raise ValueError(f"at most {SLICE_CHUNKS} chunks at a time")
        self.collect(self.launch(t, work))
        self.stream.synchronize()   # nothing after it on the stream: the buffer is its
        return np.asarray(self.score_buffer[:work.n].get())


@dataclass
class Launched:
    """A work's device arrays, until :meth:`CupyDevice.collect` copies them back."""

    work: Any
    totals: Any
    card_hist: Any
    trick_hist: Any
    handbacks: Any
    handback_counts: Any
    counts: Any
    found: Any
    found_scores: Any
    room: int
    done: Any       # a CUDA event, recorded after the work's last kernel


def open_device(device: str) -> CupyDevice | EmulatedDevice:
    """The device named (``gpu`` or ``emulate``)."""
    return CupyDevice() if device == "gpu" else EmulatedDevice()


class GpuSampler:
    """BMN's random search on a device, for one run (see :mod:`dealsearch.search.device`).

    On a GPU, each call also launches the run of chunks right after its own, the size of its
    own (what the search runner hands out next), so the GPU plays on while the host turns this
    call's results into a report; a call for other chunks drops that work unused."""

    def __init__(self, options: BeggarOptions, seed: int, objective: str,
                 device: CupyDevice | EmulatedDevice) -> None:
        self.table = KernelTable.build(options, seed, objective)
        self.device = device
        self.name = device.name
        self.ahead: tuple[Work, Any] | None = None

    def play(self, first_chunk: int, deals: int, chunk_deals: int, hists: Sequence[I64],
             widths: Sequence[int]) -> DevicePlay:
        """Play ``deals`` deals from chunk ``first_chunk`` on; add into ``hists``."""
        if len(hists) != 2 or widths[1] != 1 or max(len(h) for h in hists) > MAX_BINS:
            raise ValueError(f"BMN histograms: cards and tricks (bins of 1), up to {MAX_BINS} "
                             "bins each")
        work = Work(first_chunk, deals, chunk_deals, int(widths[0]), len(hists[0]),
                    len(hists[1]))
        ahead, self.ahead = self.ahead, None
        launched: Any = ahead[1] if ahead is not None and ahead[0] == work else \
            self.device.launch(self.table, work)
        if self.device.asynchronous:
            after = replace(work, first_stream=first_chunk + -(-deals // chunk_deals))
            self.ahead = (after, self.device.launch(self.table, after))
        run = self.device.collect(launched)
        hists[0] += run.card_hist
        hists[1] += run.trick_hist
        finds: list[tuple[int, int, int]] = []
        replay: list[int] = []
        for c, count in enumerate(run.record_counts.tolist()):
            if count > RECORD_ROOM:
                replay.append(first_chunk + c)
            else:
                finds.extend((first_chunk + c, int(j), int(score)) for j, score in
                             zip(run.records[c, :count], run.record_scores[c, :count],
                                 strict=True))
        won, _, cards, tricks = (int(x) for x in run.totals)
        return DevicePlay(
            counts=[won, 0, 0], totals=[cards, tricks], finds=finds,
            handbacks=[(first_chunk + int(w) // chunk_deals, int(w) % chunk_deals)
                       for w in run.handbacks],
            replay=replay)

    def rows(self, chunks: npt.NDArray[np.uint64], deals: npt.NDArray[np.uint64]
             ) -> npt.NDArray[np.uint8]:
        """Deal ``deals[i]`` of chunk ``chunks[i]``: the CPU players' deals, and the GPU's."""
        return _gpu_emulate.deal_rows(self.table.courts, self.table.total, self.table.seed_key,
                                      chunks, deals)
