"""BMN searches on a GPU (CuPy), or on the CPU: the host side of ``_gpu_kernel.cu``.

:class:`GpuSampler` (random deals) and :class:`GpuBlocks` (an exhaustive search's blocks of
ranks) are what BMN offers the framework's device searches (:mod:`dealsearch.devices`): each
plays a run of chunks on a device and reports the games the device settled, each chunk's
record-setting deals and the games handed back (past :data:`CAP_PER_CARD` cards per card, or
the agreed limit: only the exact engine can tell a cycle or a limit). :class:`KernelHost`
launches the kernels and collects their results on either of two devices, which run the same
kernel source:

- :class:`CupyDevice`: the kernel compiled at run time by NVRTC (``cupy.RawModule``), so the
  wheel needs no CUDA; CuPy is imported only here, only when a GPU is asked for.
- :class:`EmulatedDevice`: ``_gpu_emulate``, the kernels' own code compiled into the package
  for the CPU (a warp's lanes in lockstep), launched with the same arguments; it gives
  exactly the device's results (they do not depend on the order deals are played in).
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import factorial, prod
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...plugin import GPU_EXTRA, ChunkPlay, DevicePlay, DeviceUnavailable
from . import _gpu_emulate
from .options import BeggarOptions

KERNEL = Path(__file__).with_name("_gpu_kernel.cu")
CAP_PER_CARD = 256      # as the lanes: past this many cards per card a game is handed back
RECORD_ROOM = 64        # records a chunk keeps on the device (more: the CPU replays it)
SLICE_CHUNKS = 512      # chunks per kernel launch: its scores take 4 bytes a deal
BLOCK = _gpu_emulate.BLOCK   # threads per block (DS_BLOCK)
MAX_BINS = _gpu_emulate.MAX_BINS  # histogram bins a block sums (DS_MAX_BINS)
I64 = npt.NDArray[np.int64]
KERNELS = ("bmn_random", "bmn_unrank", "bmn_blocks", "bmn_records")  # _gpu_kernel.cu's
# CuPy, NVRTC and the CUDA runtime for a CUDA 12 driver (the gpu extra's are CUDA 13's)
CUDA12_INSTALL = "pip install cupy-cuda12x nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12"


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
    deck_word: int          # cards of class c in bits 8c..8c+7 (ranks' deck)
    space: int              # the deck's distinct orderings: ranks 0 .. space - 1

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
            seed_key=_gpu_emulate.seed_key(seed),
            deck_word=sum(count << (8 * c) for c, count in enumerate(rules.deck)),
            space=factorial(total) // prod(factorial(count) for count in rules.deck))


@dataclass(frozen=True)
class Work:
    """A run of deals for a device: deals 0..n-1 of the chunks of ``chunk_deals`` deals from
    chunk ``first_stream`` on, with histograms of ``card_bins`` bins of ``card_bin`` cards
    and of ``trick_bins`` bins of one trick. The deals are the random ones of those streams,
    or, given ``first_rank``, the deals of ranks ``first_rank`` on (chunk ``first_stream``
    then only numbers the first chunk). Each chunk whose number is a multiple of
    ``check_every`` (0: none) is played in a launch of its own, with sums of its own, for the
    host to check against the CPU."""

    first_stream: int
    n: int
    chunk_deals: int
    card_bin: int
    card_bins: int
    trick_bins: int
    check_every: int = 0
    first_rank: int | None = None

    def slices(self, most: int) -> list[tuple[int, int, bool]]:
        """The launches, as (first chunk, end chunk, checked): at most ``most`` chunks each,
        and every checked chunk alone."""
        chunks = -(-self.n // self.chunk_deals)
        out, c = [], 0
        while c < chunks:
            end = min(chunks, c + most)
            if self.check_every:    # the first checked chunk from c on
                checked = -(-(self.first_stream + c) // self.check_every) * self.check_every \
                    - self.first_stream
                if checked == c:
                    end = c + 1
                elif checked < end:
                    end = checked
            out.append((c, end, end == c + 1 and self.is_checked(c)))
            c = end
        return out

    def is_checked(self, c: int) -> bool:
        """Whether chunk c (of the work) is one to check."""
        return bool(self.check_every) and (self.first_stream + c) % self.check_every == 0


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
    checked: dict[int, tuple[I64, I64, I64]]  # chunk checked -> its totals and histograms


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


class KernelHost:
    """The host side of the kernels: a work's launches, slice by slice, and its results.

    It runs on any array module with CuPy's calls: :class:`CupyDevice` (CuPy, the kernels
    built by NVRTC) and :class:`EmulatedDevice` (numpy, the kernels compiled for the CPU with
    the same launch arguments), so what CI runs is this code and the kernel's."""

    name: str
    asynchronous: bool      # launch returns at once (worth launching work ahead)
    grid: int               # blocks of BLOCK threads
    slice_chunks = SLICE_CHUNKS
    spoil_chunk: int | None = None  # tests only: this chunk's results spoilt, as by a bad GPU

    def __init__(self, xp: Any, functions: dict[str, Any]) -> None:
        self.xp, self.functions = xp, functions
        self.score_buffer: Any = None
        self.start_buffer: Any = None

    def stream(self) -> Any:
        """The context the launches are queued in."""
        return contextlib.nullcontext()

    def event(self) -> Any:
        """A marker recorded after a work's last kernel (:meth:`collect` waits for it)."""
        return _Done()

    def host(self, array: Any) -> npt.NDArray[Any]:
        """A device array's content, in host memory."""
        return np.asarray(array)

    def launch(self, t: KernelTable, work: Work) -> Launched:
        """Queue the work's kernels and return (on a GPU, at once): a slice of
        ``slice_chunks`` chunks per launch of ``bmn_random`` (its scores take 4 bytes a
        deal), or of ``bmn_unrank`` and ``bmn_blocks`` for ranks, each followed by
        ``bmn_records``. Only small arrays are kept."""
        xp, u64, i32 = self.xp, np.uint64, np.int32
        n, per_chunk = work.n, work.chunk_deals
        chunks = -(-n // per_chunk)
        slice_deals = self.slice_chunks * per_chunk
        launches = work.slices(self.slice_chunks)
        slices = len(launches)
        sums = 1 + sum(checked for _, _, checked in launches)   # the rest's, each checked's
        room = max(1 << 16, min(n, slice_deals) // 64)
        with self.stream() as stream:
            if self.score_buffer is None or len(self.score_buffer) < min(n, slice_deals):
                # one buffer for every launch: the stream runs each slice's records kernel
                # before the next slice's (or the next work's) play kernel overwrites it
                self.score_buffer = xp.empty(min(n, slice_deals), dtype=xp.uint32)
            scores = self.score_buffer
            courts = xp.asarray(np.append(t.courts, np.uint8(0)))
            out = Launched(
                work=xp.zeros(slices, dtype=xp.uint64),
                totals=xp.zeros((sums, 4), dtype=xp.uint64),
                card_hist=xp.zeros((sums, work.card_bins), dtype=xp.uint64),
                trick_hist=xp.zeros((sums, work.trick_bins), dtype=xp.uint64),
                handbacks=xp.zeros((slices, room), dtype=xp.uint64),
                handback_counts=xp.zeros(slices, dtype=xp.uint64),
                counts=xp.zeros(chunks, dtype=xp.int32),
                found=xp.zeros((chunks, RECORD_ROOM), dtype=xp.uint32),
                found_scores=xp.zeros((chunks, RECORD_ROOM), dtype=xp.uint32),
                room=room, first_chunk=work.first_stream,
                checked=[c0 for c0, _, checked in launches if checked], done=self.event())
            seen = 0
            for s, (c0, c1, checked) in enumerate(launches):
                start = c0 * per_chunk
                size = min(c1 * per_chunk, n) - start
                seen += checked
                at = seen if checked else 0
                rules = (u64(t.pay_word), i32(t.size0), i32(t.total), i32(t.cap_cards),
                         i32(t.cap_tricks), i32(t.by_tricks))
                results = (out.work[s:s + 1], scores, out.handbacks[s],
                           out.handback_counts[s:s + 1], u64(room), u64(start), out.totals[at],
                           out.card_hist[at], i32(work.card_bins), i32(work.card_bin),
                           out.trick_hist[at], i32(work.trick_bins))
                if work.first_rank is None:
                    self.functions["bmn_random"]((self.grid,), (BLOCK,), (
                        *rules, courts, i32(len(t.courts)), u64(t.seed_key),
                        u64(work.first_stream + c0), u64(per_chunk), u64(size), *results))
                else:
                    starts = self._starts(t, work.first_rank + start, size)
                    self.functions["bmn_blocks"]((self.grid,), (BLOCK,), (
                        *rules, starts, u64(size), *results))
                self.functions["bmn_records"]((max(1, -(-(c1 - c0) // 128)),), (128,), (
                    scores, u64(size), u64(per_chunk), out.found[c0:c1],
                    out.found_scores[c0:c1], out.counts[c0:c1], i32(RECORD_ROOM)))
            out.done.record(stream)
        return out

    def _starts(self, t: KernelTable, first: int, n: int) -> Any:
        """Queue ``bmn_unrank``: the first deal of each span of n deals from rank ``first``
        on, in a buffer bmn_blocks then reads (queued after, on the same stream)."""
        u64 = np.uint64
        spans = -(-n // _gpu_emulate.SPAN)
        if self.start_buffer is None or len(self.start_buffer) < 3 * spans:
            self.start_buffer = self.xp.empty(3 * spans, dtype=self.xp.uint64)
        low = (1 << 64) - 1
        self.functions["bmn_unrank"]((max(1, -(-spans // 128)),), (128,), (
            u64(t.deck_word), np.int32(t.total), u64(t.space >> 64), u64(t.space & low),
            u64(first >> 64), u64(first & low), u64(n), self.start_buffer))
        return self.start_buffer

    def collect(self, launched: Launched) -> DeviceRun:
        """Wait for the work's kernels (only its own: work launched after it plays on) and
        copy its small results back."""
        launched.done.synchronize()
        host = self.host
        listed = host(launched.handback_counts).astype(np.int64)
        if (listed > launched.room).any():
            raise RuntimeError(f"more than {launched.room} games of a slice handed back to "
                               "the CPU: this deck's games cycle too often for --device gpu; "
                               "search it with --device cpu")
        kept = host(launched.handbacks)
        sums = [host(a).astype(np.int64) for a in (launched.totals, launched.card_hist,
                                                    launched.trick_hist)]
        spoilt = self.spoil_chunk
        if spoilt is not None and spoilt - launched.first_chunk in launched.checked:
            sums[1][1 + launched.checked.index(spoilt - launched.first_chunk), 0] += 1
        totals, card_hist, trick_hist = sums
        return DeviceRun(
            totals.sum(axis=0), card_hist.sum(axis=0), trick_hist.sum(axis=0),
            np.sort(np.concatenate([kept[s, :listed[s]] for s in range(len(listed))])
                    .astype(np.int64)),
            host(launched.counts), host(launched.found), host(launched.found_scores),
            {c: (totals[i], card_hist[i], trick_hist[i])
             for i, c in enumerate(launched.checked, start=1)})

    def scores(self, t: KernelTable, work: Work) -> npt.NDArray[np.uint32]:
        """Every deal's score (HANDBACK for a hand-back) of a work of one slice at most: for
        checking the device deal by deal (``benchmarks/gpu_check.py``, the tests)."""
        if work.n > self.slice_chunks * work.chunk_deals:
            raise ValueError(f"at most {self.slice_chunks} chunks at a time")
        self.collect(self.launch(t, work))
        # nothing after it on the stream: the buffer holds its scores
        return self.host(self.score_buffer[:work.n]).copy()


class _Done:
    """The host's stand-in for a CUDA event: the work is done when launch returns."""

    def record(self, stream: Any) -> None:
        """Nothing to record."""

    def synchronize(self) -> None:
        """Nothing to wait for."""


class EmulatedDevice(KernelHost):
    """The kernels compiled for the CPU (``_gpu_emulate``: the same source, a warp's lanes
    in lockstep) on numpy arrays: exactly the GPU's results, launch for launch."""

    name = "CPU emulation of the GPU kernel"
    asynchronous = False    # launch does the work: nothing to gain from launching ahead
    grid = 2                # two blocks, so that warps of two blocks share the work

    def __init__(self) -> None:
        super().__init__(np, {name: getattr(_gpu_emulate, name) for name in KERNELS})


class CupyDevice(KernelHost):
    """The kernel on the current CUDA device, through CuPy (imported here, and only here)."""

    asynchronous = True     # launch returns at once; the GPU plays while the host works

    def __init__(self) -> None:
        try:
            import cupy  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise DeviceUnavailable(f"--device gpu needs CuPy: {GPU_EXTRA} (a CUDA 13 "
                                    f"driver; for a CUDA 12 driver: {CUDA12_INSTALL})") from None
        self.cp: Any = cupy
        try:
            count = cupy.cuda.runtime.getDeviceCount()
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id) if count \
                else None
        except Exception as error:  # CUDARuntimeError; or no CUDA library to load at all
            raise DeviceUnavailable(no_gpu(error)) from None
        if props is None:
            raise DeviceUnavailable("--device gpu: no GPU found")
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.sms = int(props["multiProcessorCount"])
        try:
            module = cupy.RawModule(code=kernel_source(), options=("--std=c++17",))
            functions = {name: module.get_function(name) for name in KERNELS}
        except Exception as error:  # NVRTC's CompileException, or a driver too old
            first = str(error).strip().splitlines()[:1] or [type(error).__name__]
            raise DeviceUnavailable(f"--device gpu: the kernel did not build: {first[0]}"
                                    ) from None
        super().__init__(cupy, functions)
        try:    # enough blocks to fill every multiprocessor once: the kernels are persistent
            per_sm = min(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                getattr(functions[name], "kernel", functions[name]).ptr, BLOCK, 0)
                for name in ("bmn_random", "bmn_blocks"))    # RawKernel's Function
        except Exception:   # an older CuPy: what the kernels' registers allow
            per_sm = 4
        self.grid = self.sms * max(1, int(per_sm))
        self._stream = cupy.cuda.Stream(non_blocking=True)

    def stream(self) -> Any:
        """The device's own stream: its kernels run in order, the host's calls return."""
        return self._stream

    def event(self) -> Any:
        """A CUDA event."""
        return self.cp.cuda.Event()

    def host(self, array: Any) -> npt.NDArray[Any]:
        """A copy in host memory."""
        return np.asarray(array.get())


@dataclass
class Launched:
    """A work's device arrays, until :meth:`KernelHost.collect` copies them back."""

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
    first_chunk: int
    checked: list[int]      # the chunks checked, in the order of their sums (from row 1)
    done: Any       # recorded after the work's last kernel


def nvidia_driver() -> bool:
    """Whether this machine has an NVIDIA driver (its CUDA library loads)."""
    for name in ("nvcuda.dll",) if sys.platform == "win32" else ("libcuda.so.1",):
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            pass
    return False


def no_gpu(error: Exception) -> str:
    """Why CuPy found no GPU to use, in one line: no driver at all, a driver older than
    CuPy's CUDA (and what to install for it), or CUDA's own words."""
    if not nvidia_driver():
        return "--device gpu: no GPU here (no NVIDIA driver is installed)"
    text = " ".join(str(error).split())
    if "insufficient" in text.lower():     # cudaErrorInsufficientDriver
        return (f"--device gpu: the NVIDIA driver is older than CuPy's CUDA ({text}): update "
                f"the driver, or for a CUDA 12 driver: {CUDA12_INSTALL}")
    return f"--device gpu: no usable GPU ({text})"


def open_device(device: str) -> CupyDevice | EmulatedDevice:
    """The device named (``gpu`` or ``emulate``)."""
    return CupyDevice() if device == "gpu" else EmulatedDevice()


class _DevicePlayer:
    """What the random and the block players share: a run's table on a device, the next run
    launched ahead on a GPU, and the device's results as a :class:`DevicePlay`.

    On a GPU, each call also launches the run of chunks right after its own, the size of its
    own (what the search runner hands out next), so the GPU plays on while the host turns this
    call's results into a report; a call for other chunks drops that work unused."""

    def __init__(self, table: KernelTable, device: CupyDevice | EmulatedDevice) -> None:
        self.table = table
        self.device = device
        self.name = device.name
        self.ahead: tuple[Work, Any] | None = None

    def _play(self, work: Work, after: Work | None, hists: Sequence[I64]) -> DevicePlay:
        """Play ``work`` (launched ahead, or now), launch ``after`` ahead (on a GPU), and
        report the chunks' results, ``hists`` added into."""
        ahead, self.ahead = self.ahead, None
        launched: Any = ahead[1] if ahead is not None and ahead[0] == work else \
            self.device.launch(self.table, work)
        if self.device.asynchronous and after is not None:
            self.ahead = (after, self.device.launch(self.table, after))
        run = self.device.collect(launched)
        hists[0] += run.card_hist
        hists[1] += run.trick_hist
        first_chunk, chunk_deals = work.first_stream, work.chunk_deals
        finds: list[tuple[int, int, int]] = []
        replay: list[int] = []
        for c, count in enumerate(run.record_counts.tolist()):
            if count > RECORD_ROOM:
                replay.append(first_chunk + c)
            else:
                finds.extend((first_chunk + c, int(j), int(score)) for j, score in
                             zip(run.records[c, :count], run.record_scores[c, :count],
                                 strict=True))
        handbacks = [(first_chunk + int(w) // chunk_deals, int(w) % chunk_deals)
                     for w in run.handbacks]
        checks = []
        for c, (totals, card_hist, trick_hist) in run.checked.items():
            chunk = first_chunk + c
            won, _, cards, tricks = (int(x) for x in totals)
            checks.append(ChunkPlay(
                chunk, counts=[won, 0, 0], totals=[cards, tricks], hists=[card_hist, trick_hist],
                finds=[(deal, score) for k, deal, score in finds if k == chunk],
                handbacks=[deal for k, deal in handbacks if k == chunk],
                all_finds=chunk not in replay))
        won, _, cards, tricks = (int(x) for x in run.totals)
        return DevicePlay(counts=[won, 0, 0], totals=[cards, tricks], finds=finds,
                          handbacks=handbacks, replay=replay, checks=checks)


def _work(first_chunk: int, deals: int, chunk_deals: int, hists: Sequence[I64],
          widths: Sequence[int], check_every: int, first_rank: int | None = None) -> Work:
    if len(hists) != 2 or widths[1] != 1 or max(len(h) for h in hists) > MAX_BINS:
        raise ValueError(f"BMN histograms: cards and tricks (bins of 1), up to {MAX_BINS} "
                         "bins each")
    return Work(first_chunk, deals, chunk_deals, int(widths[0]), len(hists[0]), len(hists[1]),
                check_every, first_rank)


class GpuSampler(_DevicePlayer):
    """BMN's random search on a device, for one run (see :mod:`dealsearch.devices`)."""

    def __init__(self, options: BeggarOptions, seed: int, objective: str,
                 device: CupyDevice | EmulatedDevice) -> None:
        super().__init__(KernelTable.build(options, seed, objective), device)

    def play(self, first_chunk: int, deals: int, chunk_deals: int, hists: Sequence[I64],
             widths: Sequence[int], check_every: int = 0) -> DevicePlay:
        """Play ``deals`` deals from chunk ``first_chunk`` on; add into ``hists``. The chunks
        whose number is a multiple of ``check_every`` come back also one by one (``checks``)."""
        work = _work(first_chunk, deals, chunk_deals, hists, widths, check_every)
        return self._play(work, replace(work, first_stream=first_chunk + -(-deals // chunk_deals)),
                          hists)

    def rows(self, chunks: npt.NDArray[np.uint64], deals: npt.NDArray[np.uint64]
             ) -> npt.NDArray[np.uint8]:
        """Deal ``deals[i]`` of chunk ``chunks[i]``: the CPU players' deals, and the GPU's."""
        return _gpu_emulate.deal_rows(self.table.courts, self.table.total, self.table.seed_key,
                                      chunks, deals)


class GpuBlocks(_DevicePlayer):
    """BMN's exhaustive search on a device, for one run: blocks of consecutive ranks (see
    :mod:`dealsearch.devices`), the deals of the deck's orderings in rank order."""

    def __init__(self, options: BeggarOptions, objective: str,
                 device: CupyDevice | EmulatedDevice) -> None:
        super().__init__(KernelTable.build(options, 0, objective), device)

    def play(self, first_rank: int, first_chunk: int, deals: int, chunk_deals: int,
             hists: Sequence[I64], widths: Sequence[int], check_every: int = 0) -> DevicePlay:
        """Play the deals of ranks ``first_rank`` to ``first_rank + deals - 1``, in chunks of
        ``chunk_deals`` numbered from ``first_chunk`` on; add into ``hists``. The chunks whose
        number is a multiple of ``check_every`` come back also one by one (``checks``)."""
        if not 0 <= first_rank <= first_rank + deals <= self.table.space:
            raise ValueError(f"ranks {first_rank} to {first_rank + deals}: the deck has "
                             f"{self.table.space} orderings")
        work = _work(first_chunk, deals, chunk_deals, hists, widths, check_every, first_rank)
        after_rank = first_rank + deals
        after = replace(work, first_stream=first_chunk + -(-deals // chunk_deals),
                        first_rank=after_rank, n=min(deals, self.table.space - after_rank))
        return self._play(work, after if after.n > 0 else None, hists)
