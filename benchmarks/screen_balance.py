"""The screen of the factory's balance methods: the same budget, several seeds, side by side.

Each method runs for the same budget per seed in one process, one after the other (the
factory's methods ``--nodes``, the whole-deck methods ``--time``); the table gives
the most even whole-deck state each reached (cards from a dealt split: 26/26 standard, 20/20
Italian), the distinct whole-deck cycles it met, and its CPU seconds (so per CPU-hour figures
can be given however busy the machine was).

    python benchmarks/screen_balance.py --seeds 1 2 --nodes 400 --time 60 --cycles base1.sqlite

``--cycles LOG``: a factory log whose whole-deck cycles the whole-deck methods (shift climb,
backward play, pair climb) start from (the most even of them first; one per seed); with
``--pool`` (or ``--only pool``), the pair climbs chosen (both by default) then run once more,
for ``--time``, from all of them together (``--unbalanced``: only from those whose basin,
walked back, holds no dealt split).
``--only finish``: the deck-completing finish (factory with the imbalance objective for
``--time`` seconds, its most even sub-deck cycles at most ``--within`` cards short completed
two missing cards at a time, then the lateral pair climb for ``--climb`` seconds), per seed.
The factory's research page (docs/research/factory.md) shows the table this printed.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dealsearch.games.beggar.factory import Loop, find_loop
from dealsearch.games.beggar.factory_run import Settings
from dealsearch.games.beggar.families import family_of, known_family
from dealsearch.games.beggar.notation import Deal, format_deal, parse_deal
from dealsearch.games.beggar.options import get_rules
from dealsearch.log import RecordLog

from factory_balance import balance, finish, pair_step

FACTORY = {
    "factory (balance on the whole deck only)": [],
    "imbalance objective from the seeds on": ["--balance", "0.5", "--balance-within", "52"],
    "many short restarts (--stall 50)": ["--stall", "50"],
}


WHOLE = ("pieces moved to the short hand (shift climb)",
         "backward play toward balance, pieces changed at dead ends",
         "pieces moved, then backward play from every cycle met",
         "every pair of card moves, then backward play (pair climb)",
         "every pair of card moves, lateral ones too (lateral pair climb)")


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_factory(extra: list[str], seed: int, nodes: int, rules: str, folder: Path
                ) -> dict[str, object]:
    """One factory run; the most even state of the whole-deck cycles it built."""
    db = folder / f"f-{seed}-{abs(hash(tuple(extra)))}.sqlite"
    before = child_cpu()
    out = subprocess.run([sys.executable, "-m", "dealsearch", "factory", "--rules", rules,
                          "--seed", str(seed), "--nodes", str(nodes), "--workers", "1",
                          "--json", "--quiet", *extra, "--db", str(db)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    found = [json.loads(line) for line in out[:-1]]
    summary = json.loads(out[-1])
    return {"gap": min((f["imbalance"] for f in found), default=None),
            "cycles": summary["full"], "closest (deck, imbalance)": summary["closest"],
            "nodes": summary["nodes"], "cpu": round(child_cpu() - before, 1)}


def whole_deck_loops(log: Path, rules_name: str) -> list[Loop]:
    rules = get_rules(rules_name)
    with RecordLog(log, readonly=True) as records:
        keys = sorted({cycle["key"] for cycle in records.cycles("beggar")})
    loops = [find_loop(parse_deal(key, rules, "any"), rules) for key in keys]
    return sorted((loop for loop in loops if loop is not None), key=Loop.imbalance)


def run_whole(method: str, loop: Loop, seed: int, seconds: float, rules_name: str
              ) -> dict[str, object]:

    rules = get_rules(rules_name)
    began = time.process_time()
    if method == "pieces moved to the short hand (shift climb)":
        reached = balance.shift_climb(loop, rules, seed, seconds)
    elif method.startswith("pieces moved, then backward"):
        reached = balance.shift_then_walk(loop, rules, seed, seconds)
    elif method.startswith("every pair of card moves"):
        reached = pair_step.pair_climb([loop], rules, seconds, lateral="lateral" in method)
    else:
        reached = balance.backward_balance(loop, rules, max_states=2_000_000, seconds=seconds,
                                           changes=50, seed=seed)
    cpu = round(time.process_time() - began, 1)
    return {"gap": reached.gap, "cycles": len(reached.cycles), "from": loop.imbalance(),
            "walked": reached.walked, "played": reached.played, "cpu": cpu,
            "families": len({family_of(key, rules) for key in reached.cycles})}


def run_pool(loops: list[Loop], seconds: float, rules_name: str, lateral: bool
             ) -> dict[str, object]:
    began = time.process_time()
    reached = pair_step.pair_climb(loops, get_rules(rules_name), seconds, lateral=lateral)
    cpu = round(time.process_time() - began, 1)
    rules = get_rules(rules_name)
    return {"gap": reached.gap, "cycles": len(reached.cycles), "from": loops[0].imbalance(),
            "starts": len(loops), "rings": reached.rings, "walked": reached.walked,
            "played": reached.played, "state": format_deal(Deal(reached.state), rules),
            "cpu": cpu, "families": len({family_of(key, rules) for key in reached.cycles}),
            "new cycles": sorted(reached.cycles - {loop.key for loop in loops})}


def run_finish(seed: int, seconds: float, climb: float, rules_name: str, within: int,
               over: float = 0.0) -> dict[str, object]:
    """The deck-completing finish: the factory with the imbalance objective from the seeds
    on for ``seconds``, its most even sub-deck cycles completed two missing cards at a time,
    then the lateral pair climb from the whole-deck cycles reached for ``climb`` seconds."""
    rules = get_rules(rules_name)
    began = time.process_time()
    settings = Settings(rules_name, seed, None, seconds, balance=0.5, balance_within=52)
    loops, stats = finish.sub_deck_cycles(settings, within, over=over)
    grown = time.process_time()
    done = finish.complete(loops, rules.deck, rules, max_cycles=len(loops) * 4)
    finished = time.process_time()
    out: dict[str, object] = {
        "nodes": stats.nodes, "nearest": stats.nearest, "factory cpu": round(grown - began, 1),
        "sub-deck cycles": len(loops),
        "cards short of the deck (negative: over)": sorted(
            sum(rules.deck) - loop.cards for loop in loops),
        "most even sub-deck (imbalance)": min((loop.imbalance() for loop in loops), default=None),
        "completed": done.completed, "completions played": done.played,
        "whole-deck cycles": len(done.whole), "gap after finish": done.gap,
        "periods": sorted({loop.period_tricks for loop in done.whole.values()}),
        "finish cpu": round(finished - grown, 1)}
    if done.whole:
        climbed = pair_step.pair_climb(done.whole.values(), rules, climb, lateral=True)
        families = {family_of(key, rules) for key in climbed.cycles}
        out.update({"gap after climb": climbed.gap, "climb cycles": len(climbed.cycles),
                    "families": len(families),
                    "known families": sorted({known_family(f) or "" for f in families} - {""}),
                    "state": format_deal(Deal(climbed.state), rules),
                    "climb periods": sorted({find_loop(parse_deal(key, rules, "any"), rules)
                                             .period_tricks for key in
                                             sorted(climbed.cycles)[:200]}),
                    "climb cpu": round(time.process_time() - finished, 1)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--time", type=float, default=90.0, help="seconds per method and seed")
    parser.add_argument("--nodes", type=int, default=400, help="the factory's node budget")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--cycles", type=Path, help="a factory log of whole-deck cycles")
    parser.add_argument("--only", choices=("factory", "whole", "pool", "finish"),
                        help="one part of the screen")
    parser.add_argument("--methods", nargs="+", choices=WHOLE, help="whole-deck methods")
    parser.add_argument("--pool", action="store_true",
                        help="then the pair climb once from every whole-deck cycle of the log")
    parser.add_argument("--unbalanced", action="store_true",
                        help="start only from the cycles whose basin alone has no dealt split")
    parser.add_argument("--within", type=int, default=4,
                        help="finish: sub-deck cycles at most this many cards short")
    parser.add_argument("--over", type=float, default=0.0,
                        help="finish: the factory's penalty per card over the deck")
    parser.add_argument("--climb", type=float, default=150.0, help="finish: climb seconds")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results: dict[str, dict[int, dict[str, object]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        if args.only in (None, "factory"):
            for name, extra in FACTORY.items():
                for seed in args.seeds:
                    results.setdefault(name, {})[seed] = run_factory(
                        extra, seed, args.nodes, args.rules, Path(folder))
                    print(name, seed, results[name][seed], flush=True)
        if args.only == "finish":
            for seed in args.seeds:
                name = "complete sub-deck cycles two cards at a time, then lateral pair climb"
                results.setdefault(name, {})[seed] = run_finish(
                    seed, args.time, args.climb, args.rules, args.within, args.over)
                print(name, seed, results[name][seed], flush=True)
        if args.cycles and args.only in (None, "whole"):
            loops = whole_deck_loops(args.cycles, args.rules)
            for name in args.methods or WHOLE:
                for i, seed in enumerate(args.seeds):
                    loop = loops[i % len(loops)]
                    results.setdefault(name, {})[seed] = run_whole(name, loop, seed,
                                                                    args.time, args.rules)
                    print(name, seed, results[name][seed], flush=True)
        pool = args.cycles and (args.pool or args.only == "pool")
        for lateral in (False, True) if pool and args.only in (None, "pool") else ():
            if args.methods and not any(("lateral" in name) == lateral and "pair" in name
                                        for name in args.methods):
                continue
            name = f"{'lateral ' * lateral}pair climb from every whole-deck cycle of the log"
            loops = whole_deck_loops(args.cycles, args.rules)
            if args.unbalanced:  # a control: a balanced start the walk alone would find
                rules = get_rules(args.rules)
                loops = [loop for loop in loops
                         if balance.backward_balance(loop, rules, max_states=50_000).gap > 0]
            results[name] = {0: run_pool(loops, args.time, args.rules, lateral)}
            print(name, results[name][0], flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
