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
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass
class DeviceRun:
    """A device's results for a run of deals 0..n-1 (chunks of ``chunk_deals``)."""

    totals: I64                         # won below the caps, handed back, cards, tricks
    handbacks: I64                      # the deals handed back, ascending
    record_counts: npt.NDArray[np.int32]    # per chunk (more than RECORD_ROOM: not all kept)
    records: npt.NDArray[np.uint32]     # per chunk, its records' positions in it


class EmulatedDevice:
    """The kernel's C compiled for the CPU (``_gpu_emulate``): exactly the GPU's results."""

    name = "CPU emulation of the GPU kernel"

    def run(self, t: KernelTable, first_stream: int, n: int, chunk_deals: int, card_bin: int,
            card_hist: I64, trick_hist: I64) -> DeviceRun:
        """Play deals 0..n-1 of the chunks from ``first_stream``; add to the histograms."""
        totals = np.zeros(4, dtype=np.int64)
        scores = _gpu_emulate.play(t.pay_word, t.size0, t.total, t.cap_cards, t.cap_tricks,
                                   t.by_tricks, t.courts, t.seed_key, first_stream,
                                   chunk_deals, n, card_bin, card_hist, trick_hist, totals)
        counts, found = _gpu_emulate.records(scores, chunk_deals, RECORD_ROOM)
        handbacks = np.flatnonzero(scores == _gpu_emulate.HANDBACK).astype(np.int64)
        return DeviceRun(totals, handbacks, counts, found)


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


class CupyDevice:
    """The kernel on the current CUDA device, through CuPy (imported here, and only here)."""

    def __init__(self) -> None:
        try:
            import cupy
        except ImportError:
            raise DeviceUnavailable(f"--device gpu needs CuPy: {GPU_EXTRA}") from None
        self.cp: Any = cupy
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise DeviceUnavailable("--device gpu: no GPU found")
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        except cupy.cuda.runtime.CUDARuntimeError as error:
            raise DeviceUnavailable(f"--device gpu: no usable GPU ({error})") from None
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

    def run(self, t: KernelTable, first_stream: int, n: int, chunk_deals: int, card_bin: int,
            card_hist: I64, trick_hist: I64) -> DeviceRun:
        """As :meth:`EmulatedDevice.run`. Every slice of SLICE_CHUNKS chunks is queued at
        once (the GPU plays them back to back); the host waits once, for small arrays."""
        cp, u64, i32 = self.cp, np.uint64, np.int32
        chunks = -(-n // chunk_deals)
        slice_deals = SLICE_CHUNKS * chunk_deals
        slices = -(-n // slice_deals)
        room = max(1 << 16, min(n, slice_deals) // 64)
        with self.stream:
            courts = cp.asarray(np.append(t.courts, np.uint8(0)))
            scores = cp.empty(min(n, slice_deals), dtype=cp.uint32)
            work = cp.zeros(slices, dtype=cp.uint64)
            totals = cp.zeros(4, dtype=cp.uint64)
            hists = [cp.zeros(len(h), dtype=cp.uint64) for h in (card_hist, trick_hist)]
            handbacks = cp.zeros((slices, room), dtype=cp.uint64)
            handback_counts = cp.zeros(slices, dtype=cp.uint64)
            counts = cp.zeros(chunks, dtype=cp.int32)
            found = cp.zeros((chunks, RECORD_ROOM), dtype=cp.uint32)
            for s in range(slices):
                start = s * slice_deals
                size = min(slice_deals, n - start)
                c0 = s * SLICE_CHUNKS
                c1 = min(chunks, c0 + SLICE_CHUNKS)
                self.play_fn((self.grid,), (BLOCK,), (
                    u64(t.pay_word), i32(t.size0), i32(t.total), i32(t.cap_cards),
                    i32(t.cap_tricks), i32(t.by_tricks), courts, i32(len(t.courts)),
                    u64(t.seed_key), u64(first_stream + c0), u64(chunk_deals), u64(size),
                    work[s:s + 1], scores, handbacks[s], handback_counts[s:s + 1], u64(room),
                    u64(start), totals, hists[0], i32(len(card_hist)), i32(card_bin),
                    hists[1], i32(len(trick_hist))))
                self.records_fn((max(1, -(-(c1 - c0) // 128)),), (128,), (
                    scores, u64(size), u64(chunk_deals), found[c0:c1], counts[c0:c1],
                    i32(RECORD_ROOM)))
            self.stream.synchronize()
        listed = handback_counts.get().astype(np.int64)
        if (listed > room).any():
            raise RuntimeError(f"more than {room} games of {slice_deals} handed back to the "
                               "CPU: this deck's games cycle too often for --device gpu; "
                               "search it with --device cpu")
        kept = handbacks.get()
        card_hist += hists[0].get().astype(np.int64)
        trick_hist += hists[1].get().astype(np.int64)
        return DeviceRun(totals.get().astype(np.int64),
                         np.sort(np.concatenate([kept[s, :listed[s]] for s in range(slices)])
                                 .astype(np.int64)),
                         counts.get(), found.get())


def open_device(device: str) -> CupyDevice | EmulatedDevice:
    """The device named (``gpu`` or ``emulate``)."""
    return CupyDevice() if device == "gpu" else EmulatedDevice()


class GpuSampler:
    """BMN's random search on a device, for one run (see :mod:`dealsearch.search.device`)."""

    def __init__(self, options: BeggarOptions, seed: int, objective: str,
                 device: CupyDevice | EmulatedDevice) -> None:
        self.table = KernelTable.build(options, seed, objective)
        self.device = device
        self.name = device.name

    def play(self, first_chunk: int, deals: int, chunk_deals: int, hists: Sequence[I64],
             widths: Sequence[int]) -> DevicePlay:
        """Play ``deals`` deals from chunk ``first_chunk`` on; add into ``hists``."""
        if len(hists) != 2 or widths[1] != 1 or max(len(h) for h in hists) > MAX_BINS:
            raise ValueError(f"BMN histograms: cards and tricks (bins of 1), up to {MAX_BINS} "
                             "bins each")
        run = self.device.run(self.table, first_chunk, deals, chunk_deals, int(widths[0]),
                              hists[0], hists[1])
        finds: list[tuple[int, int]] = []
        replay: list[int] = []
        for c, count in enumerate(run.record_counts.tolist()):
            if count > RECORD_ROOM:
                replay.append(first_chunk + c)
            else:
                finds.extend((first_chunk + c, int(j)) for j in run.records[c, :count])
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
