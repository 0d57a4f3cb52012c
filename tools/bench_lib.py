"""What the library's validation costs: library calls against the raw numpy expression they wrap.

``run()`` returns one dict per figure (name, value, unit, goal, ok, and the raw numpy time where
there is one); ``python tools/bench_lib.py`` prints them as a table. ``make bench`` (tools/bench.py)
imports ``run``. Every figure is the best of 40 repetitions, the library and the raw expression
measured alternately in the same loop so that other work on the machine slows both alike. Times are
this process's CPU time (``time.process_time``): on a shared machine the wall clock also counts the
time other programs hold the core, which says nothing about the library.

Goals (issue 14): an array call costs at most 1.25x the raw numpy expression (a ratio
raw/library >= 0.8), and a scalar call at most 10 us.
"""

from __future__ import annotations

import math
import time

import numpy as np

import scalinglib as sl

REPEATS = 40
ARRAY_GOAL = 0.8            # raw time / library time, at least
SCALAR_GOAL_US = 10.0       # microseconds per scalar call, at most
SCALAR_CALLS = 2000         # calls per timed repetition of a scalar call
N = 1_000_000               # elements of the array figures


def _best(pairs, loops=1):
    """Best-of-REPEATS seconds per call for each callable of ``pairs``, timed alternately."""
    best = [math.inf] * len(pairs)
    for _ in range(REPEATS):
        for i, fn in enumerate(pairs):
            start = time.process_time()
            for _ in range(loops):
                fn()
            best[i] = min(best[i], (time.process_time() - start) / loops)
    return best


def _array_row(name, lib, raw, loops=3):
    lib()   # warm up (first-call imports, caches)
    raw()
    t_lib, t_raw = _best([lib, raw], loops)
    ratio = t_raw / t_lib
    return {"name": name, "value": round(ratio, 3), "unit": "x raw numpy (raw time / library time)",
            "goal": f">= {ARRAY_GOAL}", "ok": bool(ratio >= ARRAY_GOAL),
            "library_ms": round(1e3 * t_lib, 3), "raw_numpy_ms": round(1e3 * t_raw, 3)}


def _scalar_row(name, lib, raw=None):
    def loop(fn):
        def run_many():
            for _ in range(SCALAR_CALLS):
                fn()
        return run_many

    lib()
    fns = [loop(lib)] + ([loop(raw)] if raw is not None else [])
    times = _best(fns)
    t_lib = times[0] / SCALAR_CALLS
    row = {"name": name, "value": round(1e6 * t_lib, 2), "unit": "us per call",
           "goal": f"<= {SCALAR_GOAL_US:g}", "ok": bool(1e6 * t_lib <= SCALAR_GOAL_US)}
    if raw is not None:
        row["raw_numpy_us"] = round(1e6 * times[1] / SCALAR_CALLS, 2)
    return row


def run() -> list[dict]:
    """Measure the library's array and scalar costs; one dict per figure."""
    workers = np.arange(1, N + 1)                      # int64 worker counts, as a reader writes them
    workers_f = workers.astype(float)
    fractions = np.linspace(0.0, 1.0, N)
    s, c, k = 0.05, 0.01, 64
    rows = [
        _array_row("strong_time, 1e6 worker counts (int64)",
                   lambda: sl.strong_time(workers, s, c),
                   lambda: s + (1.0 - s) / workers + c * np.log2(workers)),
        _array_row("strong_time, 1e6 worker counts (float64)",
                   lambda: sl.strong_time(workers_f, s, c),
                   lambda: s + (1.0 - s) / workers_f + c * np.log2(workers_f)),
        _array_row("amdahl_speedup, 1e6 serial fractions",
                   lambda: sl.amdahl_speedup(fractions, k),
                   lambda: 1.0 / (fractions + (1.0 - fractions) / k)),
        _array_row("amdahl_speedup, 1e6 worker counts (int64)",
                   lambda: sl.amdahl_speedup(s, workers),
                   lambda: 1.0 / (s + (1.0 - s) / workers)),
        _scalar_row("strong_time, one scalar call",
                    lambda: sl.strong_time(k, s, c),
                    lambda: s + (1.0 - s) / k + c * np.log2(k)),
        _scalar_row("amdahl_speedup, one scalar call",
                    lambda: sl.amdahl_speedup(s, k),
                    lambda: 1.0 / (s + (1.0 - s) / k)),
        _scalar_row("speedup, one scalar call", lambda: sl.speedup(600.0, 60.0)),
        _scalar_row("p2p_time, one scalar call", lambda: sl.p2p_time(1e6, 5e-6, 2e-11)),
        _scalar_row("collective_time, one scalar call",
                    lambda: sl.collective_time("allreduce", 1e9, 8, 5e-6, 2e-11)),
        _scalar_row("attainable_flops, one scalar call", lambda: sl.attainable_flops(10.0, 1e14, 2e12)),
        _scalar_row("mm1_mean_response, one scalar call", lambda: sl.mm1_mean_response(50.0, 100.0)),
    ]
    return rows


def main() -> None:
    rows = run()
    width = max(len(r["name"]) for r in rows)
    print(f"{'figure':<{width}}  {'value':>9}  {'goal':>8}  ok   raw numpy   unit")
    for r in rows:
        raw = r.get("raw_numpy_ms")
        raw_text = f"{raw:.3f} ms" if raw is not None else (
            f"{r['raw_numpy_us']:.2f} us" if "raw_numpy_us" in r else "")
        print(f"{r['name']:<{width}}  {r['value']:>9}  {r['goal']:>8}  {'yes' if r['ok'] else 'NO ':<3}  "
              f"{raw_text:>10}  {r['unit']}")


if __name__ == "__main__":
    main()
