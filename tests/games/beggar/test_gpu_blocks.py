"""An exhaustive search's block of ranks on the GPU engine, without a GPU: the rank kernels
(``_gpu_blocks.h``: unranking and next-permutation on bit-planes; ``bmn_unrank`` and
``bmn_blocks`` in ``_gpu_kernel.cu``) compiled for the CPU as ``_gpu_emulate`` number deals as
the CPU does, and a block played on them gives the very report, log and records of the CPU's
block player, at any offset, across kernel launches, with cycles, limits and hand-backs."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.game import get_game, make_options
from dealsearch.games.beggar import _gpu_emulate, gpu
from dealsearch.log import RecordLog
from dealsearch.orderings import count_deals
from dealsearch.search import device as device_module
from dealsearch.search.base import Task
from dealsearch.search.distinct import DistinctDeals
from dealsearch.search.exhaustive import play_shard
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find, search_json

ZANOTTO = 90016849133615    # a never-ending deal of the Italian deck (N1k06's rank)
ITALIAN_DEALS = 193_584_473_082_000
U64 = np.uint64


def numbering(**options):
    game = get_game("beggar")
    return DistinctDeals(game.layout(make_options(game, options)))


def rows_of_planes(planes, cards):
    return [tuple(int(((planes[3 * x] >> U64(j)) & U64(1))
                      | (((planes[3 * x + 1] >> U64(j)) & U64(1)) << U64(1))
                      | (((planes[3 * x + 2] >> U64(j)) & U64(1)) << U64(2)))
                  for j in range(cards)) for x in range(len(planes) // 3)]


@pytest.mark.parametrize(("options", "counts"), [({}, (36, 4, 4, 4, 4)),
                                                 ({"rules": "italian"}, (28, 4, 4, 4)),
                                                 ({"deck": "------JJQQK"}, (6, 2, 2, 1))])
def test_the_kernel_numbers_deals_as_the_cpu(options, counts) -> None:
    """bmn_unrank's span starts are the CPU's deals of those ranks (past 2^64 on the 52-card
    deck), and a step of the kernel's next-permutation is the next rank, up to the last."""
    deals = numbering(**options)
    space = count_deals(counts)
    assert deals.total == space and deals.plain
    word = sum(c << (8 * i) for i, c in enumerate(counts))
    rng = random.Random(5)
    for first in (0, space // 3, space - 3 * _gpu_emulate.SPAN - 5,
                  rng.randrange(space // 2, space - 300)):
        n = min(3 * _gpu_emulate.SPAN + 5, space - first)
        starts = np.zeros(3 * -(-n // _gpu_emulate.SPAN), dtype=U64)
        _gpu_emulate.bmn_unrank((1,), (128,), (
            U64(word), np.int32(sum(counts)), U64(space >> 64), U64(space & (2**64 - 1)),
            U64(first >> 64), U64(first & (2**64 - 1)), U64(n), starts))
        assert rows_of_planes(starts, sum(counts)) == [
            tuple(deals.row(first + x * _gpu_emulate.SPAN).tolist())
            for x in range(len(starts) // 3)]
    ranks = [rng.randrange(space - 1) for _ in range(300)] + [space - 2]
    stepped = _gpu_emulate.next_rows(np.array([deals.row(r) for r in ranks], dtype=np.uint8))
    assert [deals.number(row) for row in stepped] == [r + 1 for r in ranks]
    last = deals.row(space - 1)[None, :]
    assert (_gpu_emulate.next_rows(last) == last).all()


def test_the_unrank_kernel_refuses_ranks_past_the_last() -> None:
    starts = np.zeros(3, dtype=U64)
    with pytest.raises(ValueError, match="past the last rank"):
        _gpu_emulate.bmn_unrank((1,), (128,), (U64(11 | 2 << 8), np.int32(13), U64(0),
                                               U64(78), U64(0), U64(70), U64(9), starts))


def spec(device, **values):
    return SearchSpec.from_json({"strategy": "exhaustive", "game": "beggar", "device": device,
                                 "workers": 1, "deals": 10**6, **values})


def same_block(values, start, deals, shard, key=3):
    """A task of the block played by the CPU's block player and by the emulated kernels:
    the same report, finds (with their ranks) included."""
    task = Task(key, {"start": start, "deals": deals, "shard": shard})
    cpu, emulated = play_shard(spec("cpu", **values), task), play_shard(
        spec("emulate", **values), task)
    assert (emulated.deals, emulated.total, emulated.outcomes) == (cpu.deals, cpu.total,
                                                                   cpu.outcomes)
    assert emulated.deals == deals
    for measure, hist in cpu.histograms.items():
        assert (hist == emulated.histograms[measure]).all(), measure
    assert [(deal, r.to_json()) for deal, r in emulated.finds] == [
        (deal, r.to_json()) for deal, r in cpu.finds]
    return emulated


@pytest.mark.parametrize(("values", "start"), [
    ({}, 0), ({}, 10**12 + 7), ({}, 6 * 10**20), ({"rules": "italian"}, 193 * 10**12),
    ({"objective": "tricks"}, 3 * 10**19), ({"hand_sizes": "30/22", "max_tricks": 60}, 10**20)],
    ids=str)
def test_a_block_on_the_kernel_is_the_cpus(values, start) -> None:
    assert same_block(values, start, 60_000, 7_000).finds     # at least the longest game


def test_a_block_across_launches_is_the_cpus(monkeypatch) -> None:
    """Two chunks a launch: 9 launches, each unranking its own spans, the last one short and
    ending on the space's last deal."""
    monkeypatch.setattr(gpu.EmulatedDevice, "slice_chunks", 2)
    same_block({"rules": "italian"}, ITALIAN_DEALS - 85_000, 85_000, 5_000)


def test_a_block_with_a_never_ending_deal_reports_it_with_its_rank() -> None:
    report = same_block({"rules": "italian"}, ZANOTTO - 30_001, 70_000, 20_000)
    cycles = [(deal, r) for deal, r in report.finds if r.outcome == "cycle"]
    assert [r.details["rank"] for _, r in cycles] == [ZANOTTO]
    assert cycles[0][0] == "00302020303100000310/00100200002000000010"


def test_a_block_of_cycles_and_limits_is_the_cpus() -> None:
    """A small deck's whole space: 42 cycles handed back; and limits, handed back too."""
    report = same_block({"deck": "------JJQQK"}, 0, 13_860, 1_000, key=0)
    assert report.outcomes[1] == 42
    report = same_block({"max_cards": 900}, 5 * 10**17, 50_000, 10_000)
    assert report.outcomes[2] > 0


def test_chunks_past_the_record_room_are_replayed_for_their_finds(monkeypatch) -> None:
    monkeypatch.setattr(gpu, "RECORD_ROOM", 2)
    same_block({}, 10**15, 40_000, 8_000)
    same_block({"rules": "italian"}, ZANOTTO - 30_001, 70_000, 20_000)


def cycles_listed(capsys, db):
    """``records --cycles --all``, the log's name left out."""
    assert main(["records", "--cycles", "--all", "--db", db]) == 0
    return capsys.readouterr().out.replace(db, "LOG")


def search_logs(capsys, tmp_path, *argv):
    """The same search on the CPU and on the emulated device: their finds, summaries and
    records of never-ending deals."""
    runs = {}
    for device in ("cpu", "emulate"):
        db = str(tmp_path / f"{device}.sqlite")
        finds, summary = search_json(capsys, "exhaustive", *argv, "--device", device,
                                     "--workers", "1", "--db", db)
        runs[device] = finds, summary, cycles_listed(capsys, db)
    return runs


def test_a_search_on_the_emulated_device_logs_the_cpus_block(capsys, tmp_path) -> None:
    runs = search_logs(capsys, tmp_path, "--rules", "italian", "--ranks",
                       f"{ZANOTTO - 100_000}:{ZANOTTO + 100_000}")
    (cpu_finds, cpu, cpu_cycles), (finds, summary, cycles) = runs["cpu"], runs["emulate"]
    assert finds == cpu_finds and summary["deals"] == 200_000
    for key in ("deals", "cards", "outcomes", "best", "ranks"):
        assert summary[key] == cpu[key], key
    assert cycles == cpu_cycles and str(ZANOTTO) in cycles
    assert summary["checked_chunks"] == 1    # shard 0, replayed on the CPU


def test_an_interrupted_device_block_resumes_to_the_block_left_alone(capsys, tmp_path) -> None:
    db = str(tmp_path / "device.sqlite")
    block = (ZANOTTO - 150_000, ZANOTTO + 50_000)
    spec_ = SearchSpec.from_json({"game": "beggar", "strategy": "exhaustive",
                                  "ranks": list(block), "workers": 1,
                                  "device": "emulate", "game_options": {"rules": "italian"}})
    log = RecordLog(db)
    interrupted = Runner(spec_, log, on_find=ctrl_c_after_first_find(), progress=False).run()
    log.close()
    assert interrupted.status == "interrupted" and interrupted.deals < 200_000
    _, resumed = search_json(capsys, "--resume", str(interrupted.run_id), "--db", db)
    _, alone = search_json(capsys, "exhaustive", "--rules", "italian", "--ranks",
                           f"{block[0]}:{block[1]}", "--workers", "1", "--db",
                           str(tmp_path / "cpu.sqlite"))
    for key in ("deals", "cards", "outcomes", "best", "ranks"):
        assert resumed[key] == alone[key], key
    listed = cycles_listed(capsys, str(tmp_path / "cpu.sqlite"))
    assert cycles_listed(capsys, db) == listed and str(ZANOTTO) in listed


def test_verify_blocks_on_a_device_plays_each_task_again_on_the_cpu(capsys, tmp_path,
                                                                     monkeypatch) -> None:
    argv = ["exhaustive", "--ranks", "7000000000:7000090000", "--device", "emulate",
            "--workers", "1", "--verify-blocks", "--quiet"]
    _, summary = search_json(capsys, *argv[:-1], "--db", str(tmp_path / "good.sqlite"))
    assert summary["deals"] == 90_000
    real = gpu._DevicePlayer._play

    def wrong(self, work, after, hists):   # a device that loses a card of every game
        played = real(self, work, after, hists)
        played.totals[0] -= 1
        return played

    monkeypatch.setattr(gpu._DevicePlayer, "_play", wrong)
    monkeypatch.setattr(device_module, "_samplers", {})
    assert main(["search", *argv, "--db", str(tmp_path / "bad.sqlite")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gave different results on --device emulate and the CPU" in err[0]
    assert "(ranks 7,000,000,000 to " in err[0] and "the device plays wrongly" in err[0]


def test_a_spoilt_shard_stops_the_block_in_one_line(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(gpu.KernelHost, "spoil_chunk", 2)
    monkeypatch.setattr(device_module, "_samplers", {})
    code = main(["search", "exhaustive", "--ranks", "100:100100", "--device", "emulate",
                 "--workers", "1", "--gpu-check-every", "2", "--quiet", "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and "--device emulate: shard 2 (ranks 25100:37600) differs from its " \
        "replay on the CPU (cards histogram)" in err[0], err


def test_a_spoilt_shard_with_a_hand_back_is_named_by_its_ranks(capsys, monkeypatch,
                                                               tmp_path) -> None:
    monkeypatch.setattr(gpu.KernelHost, "spoil_chunk", 4)     # Zanotto's deal's shard
    monkeypatch.setattr(device_module, "_samplers", {})
    code = main(["search", "exhaustive", "--rules", "italian", "--ranks",
                 f"{ZANOTTO - 30_000}:{ZANOTTO + 20_000}", "--device", "emulate", "--workers",
                 "1", "--gpu-check-every", "1", "--quiet", "--db", str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and f"shard 4 (ranks {ZANOTTO - 5_000}:{ZANOTTO + 1_250}) differs" \
        in err[0], err


@pytest.mark.parametrize(("argv", "words"), [
    (["--players", "3"], "--device emulate: the GPU engine plays two players"),
    (["--game", "spite"], "spite has no engine for exhaustive searches on --device emulate"),
])
def test_a_device_that_cannot_play_the_block_says_so_in_one_line(capsys, tmp_path, argv,
                                                                 words) -> None:
    code = main(["search", "exhaustive", *argv, "--ranks", "0:1000", "--device", "emulate",
                 "--db", str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0], err
    assert not (tmp_path / "log.sqlite").exists()


@pytest.mark.parametrize("device", ["emulate", "gpu"])
def test_a_device_space_too_big_to_finish_is_refused_in_one_line(capsys, tmp_path,
                                                                 device) -> None:
    """The projection is measured on the CPU (a traceback before: the device's task), and
    says so: no device's rate is known before its run (--device gpu is refused before CuPy
    is imported, so this needs no GPU)."""
    code = main(["search", "exhaustive", "--device", device, "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "6.54e+20 deals would never end" in err[0], err
    assert f"would never end (on the CPU, not --device {device}: at " in err[0], err
    assert "deals/s a core, measured here: " in err[0], err


def test_without_cupy_a_gpu_block_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)     # import cupy raises ImportError
    monkeypatch.setattr(device_module, "_samplers", {})
    code = main(["search", "exhaustive", "--ranks", "0:1000", "--device", "gpu", "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--device gpu needs CuPy" in err[0], err
    assert not (tmp_path / "log.sqlite").exists()


def test_the_block_player_refuses_ranks_past_the_space() -> None:
    player = gpu.GpuBlocks(make_options(get_game("beggar"), {"deck": "------JJQQK"}), "cards",
                           gpu.EmulatedDevice())
    hists = [np.zeros(2048, np.int64), np.zeros(4096, np.int64)]
    with pytest.raises(ValueError, match="13860 orderings"):
        player.play(13_000, 0, 1_000, 100, hists, [10, 1])
    played = player.play(12_860, 0, 1_000, 100, hists, [10, 1])    # the space's last deals
    assert sum(played.counts) + len(played.handbacks) == 1_000
