"""The program every MPI rank runs for the scaling lab of Section 3.5: a job with a known serial part.

Started by :func:`scalinglib.labs.scaling` as ``mpiexec -n K ... python _scaling_rank.py '<json>'``, one
job per rank count K, every rank bound to a core of its own. It is a script: it imports the helpers
and the protocol of :mod:`scalinglib.labs._rank` (beside it), and nothing of the ``scalinglib`` package.

One *step* of the program is what a data-parallel training step does, in miniature:

1. rank 0 computes ``serial_units`` kernel units while the other ranks wait (the serial part);
2. every rank computes its share of the parallel part: ``parallel_units`` split over the K ranks
   (strong scaling) or ``parallel_units`` on every rank (weak scaling);
3. every rank joins one all-reduce (MPI_SUM) of ``allreduce_bytes`` bytes of float32.

A unit is one ``size x size`` float64 matrix product on one BLAS thread; its time on one core alone
is measured first (the calibration), so that the serial fraction ``serial_units / (serial_units +
parallel_units)`` of the one-rank job is known before any speedup is measured.
"""

import os
import sys
import time

try:
    import _rank  # run as a script: _rank.py sits beside this file, first on sys.path
except ImportError:                 # imported from the package (the doctest collection)
    from . import _rank


def make_unit(size):
    """One ``size x size`` float64 matrix product (three matrices: ``24 size**2`` bytes, in cache)."""
    import numpy as np
    rng = np.random.default_rng(1)
    a, b, c = rng.random((size, size)), rng.random((size, size)), np.empty((size, size))

    def unit():
        np.matmul(a, b, out=c)
    unit()
    return unit


def run_units(unit, count):
    for _ in range(count):
        unit()


def calibrate(unit, seconds):
    """Seconds of one unit on this rank alone: the best of five batches of about ``seconds`` each."""
    trial = 4
    while True:
        start = time.perf_counter()
        run_units(unit, trial)
        took = time.perf_counter() - start
        if took >= seconds / 4 or trial >= 1 << 22:
            break
        trial *= 2
    count = max(trial, int(trial * seconds / took))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        run_units(unit, count)
        best = min(best, (time.perf_counter() - start) / count)
    return best


def my_cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:                  # not Linux
        return []


def clock_khz(cpus):
    """The current clock of this rank's CPU as Linux reports it (kHz), or None where it does not."""
    if len(cpus) != 1:
        return None
    try:
        with open(f"/sys/devices/system/cpu/cpu{cpus[0]}/cpufreq/scaling_cur_freq") as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def allreduce_alone(comm, send, recv, count, calls=30):
    """Median seconds of one all-reduce on ``comm``, timed alone on rank 0 (after three to warm up)."""
    from mpi4py import MPI
    s, d = [send, count, MPI.FLOAT], [recv, count, MPI.FLOAT]
    for _ in range(3):
        comm.Allreduce(s, d, op=MPI.SUM)
    times = []
    comm.Barrier()
    for _ in range(calls):
        start = time.perf_counter()
        comm.Allreduce(s, d, op=MPI.SUM)
        times.append(time.perf_counter() - start)
    return _rank.median(times)


def timed_run(comm, unit, steps, serial_units, my_units, send, recv, count):
    """One run of ``steps`` steps; returns (elapsed, serial, parallel, all-reduce) seconds on this rank."""
    from mpi4py import MPI
    s, d = [send, count, MPI.FLOAT], [recv, count, MPI.FLOAT]
    lead = comm.rank == 0
    serial = parallel = reduce = 0.0
    comm.Barrier()                                   # start together; bound ranks may spin here
    start = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        if lead:
            run_units(unit, serial_units)
        t1 = time.perf_counter()
        run_units(unit, my_units)
        t2 = time.perf_counter()
        comm.Allreduce(s, d, op=MPI.SUM)
        t3 = time.perf_counter()
        serial += t1 - t0
        parallel += t2 - t1
        reduce += t3 - t2
    return time.perf_counter() - start, serial, parallel, reduce


def plan(per_unit, cfg, k_largest):
    """Units of a step and steps of a run, from the measured unit time and the reader's settings."""
    step_units = max(2, round(cfg["step_seconds"] / per_unit))
    serial_units = max(1, round(cfg["serial_fraction"] * step_units))
    parallel_units = max(1, step_units - serial_units)
    lcm = cfg["lcm"]                                  # round the parallel part to split evenly over every K
    if lcm <= parallel_units:
        parallel_units = max(lcm, lcm * round(parallel_units / lcm))
    largest_share = -(-parallel_units // k_largest)
    strong_steps = max(1, -(-cfg["seconds"] // (per_unit * (serial_units + largest_share))))
    weak_steps = max(1, -(-cfg["seconds"] // (per_unit * (serial_units + parallel_units))))
    return {"serial_units": int(serial_units), "parallel_units": int(parallel_units),
            "strong_steps": int(strong_steps), "weak_steps": int(weak_steps)}


def scaling(world, cfg):
    """The scaling lab's job on K = ``world.size`` ranks: ``cfg["repeats"]`` strong and weak runs."""
    from array import array
    k = world.size
    unit = make_unit(cfg["size"])
    count = cfg["allreduce_bytes"] // 4
    send = array("f", bytes(4 * count))
    recv = array("f", bytes(4 * count))
    for i in range(count):
        send[i] = 1.0 + i % 7

    out = {}
    if "per_unit" not in cfg:                        # the first job (K = 1): calibrate, then plan the work
        per_unit = calibrate(unit, cfg["calibrate_seconds"]) if world.rank == 0 else 0.0
        per_unit = world.bcast(per_unit, root=0)
        work = plan(per_unit, cfg, cfg["k_largest"])
        out.update(work, per_unit=per_unit)
    else:
        work = {name: cfg[name] for name in ("serial_units", "parallel_units", "strong_steps", "weak_steps")}
    shares = _rank.shares(work["parallel_units"], k)

    alone = allreduce_alone(world, send, recv, count) if k > 1 else 0.0
    cpus = my_cpus()
    rows = {"strong": [], "weak": []}
    for _ in range(cfg["repeats"]):
        for mode in ("strong", "weak"):
            mine = shares[world.rank] if mode == "strong" else work["parallel_units"]
            steps = work[mode + "_steps"]
            elapsed, serial, parallel, reduce = timed_run(world, unit, steps, work["serial_units"], mine,
                                                          send, recv, count)
            clock = clock_khz(cpus)
            per_unit_now = parallel / (steps * mine) if mine else None
            units_done = steps * (mine + (work["serial_units"] if world.rank == 0 else 0))
            everyone = world.gather((elapsed, serial, parallel, reduce, per_unit_now, clock, units_done), root=0)
            if world.rank == 0:
                # the longest compute of any rank (which set the pace of the run), and the most units any rank had
                # (which would set it on a steady machine: rank 0, with the serial part)
                busiest = (max(e[1] + e[2] for e in everyone), None, None, None, None, None, max(e[6] for e in everyone))
                rows[mode].append({
                    "seconds": max(e[0] for e in everyone),
                    "serial": everyone[0][1], "parallel": everyone[0][2], "reduce": everyone[0][3],
                    "unit": _rank.median([e[4] for e in everyone if e[4] is not None]),
                    "clock": [e[5] for e in everyone],
                    "busiest": busiest[0], "busiest_units": busiest[6]})
    bound = world.gather(cpus, root=0)
    if world.rank != 0:
        return None
    out.update(rows, allreduce_alone=alone, bound=bound)
    return out


if __name__ == "__main__":
    _rank.LABS["scaling"] = scaling
    _rank.main(sys.argv)
