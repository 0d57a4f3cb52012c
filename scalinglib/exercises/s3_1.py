"""Exercises of Section 3.1: reading the speedup table, sweeping the serial fraction, a superlinear audit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..laws import amdahl_ceiling, amdahl_efficiency, amdahl_speedup, largest_serial_fraction
from ..metrics import efficiency, speedup
from ..scaling import spill_time
from .core import Part, register

#: The sweep of Section 3.1's table: K = 1, 2, 4, ..., 512.
K_SWEEP = 2 ** np.arange(10)
#: Exercise 3.1.1 rebuilds that table for this serial fraction (the text's table has f = 0.05).
F_TABLE = 0.02
F_SWEEP = (0.01, 0.05, 0.20)


def first_drop_below(f, threshold=0.5, ks=K_SWEEP):
    """The first two consecutive K of the sweep between which E(K) falls below ``threshold``."""
    e = amdahl_efficiency(f, ks)
    i = int(np.argmax(e < threshold))
    return int(ks[i - 1]), int(ks[i])


#: The timings of exercise 3.1.3, in seconds: the spilling one-machine run, eight machines, and the
#: honest one-machine run on a machine whose memory holds everything.
T1_SPILLING, T8, T1_HONEST = 600.0, 60.0, 450.0
T1_HALF = 225.0          # exercise 3.1.3 (b): one machine, half the data, a working set that fits
#: In the exercise's spill model the working set is twice one worker's fast memory.
SPILL_RATIO = 2


def superlinear_scenario():
    """The spill scenario of exercise 3.1.3(d), fitted exactly to the timings of (a)-(c).

    With the honest time as the unit and no spill at K = 8 (the working set is only twice one
    worker's fast memory), T(8) = f + (1 - f)/8 = 60/450 fixes f = 1/105; then the one-worker
    time f + (1 - f)[1 + (slowdown - 1)(1 - 1/2)] = 600/450 fixes slowdown = 87/52. Exact
    arithmetic, converted to floats for :func:`scalinglib.spill_time`.
    """
    t8 = Fraction(int(T8)) / Fraction(int(T1_HONEST))
    t1 = Fraction(int(T1_SPILLING)) / Fraction(int(T1_HONEST))
    f = (8 * t8 - 1) / 7
    spilled_share = 1 - Fraction(1, SPILL_RATIO)
    slowdown = 1 + ((t1 - f) / (1 - f) - 1) / spilled_share
    return dict(f=float(f), working_set=float(SPILL_RATIO), fast_memory=1.0, slowdown=float(slowdown))


def superlinear_efficiency(k):
    """Efficiency against the handicapped one-worker baseline in the spill scenario of exercise 3.1.3(d)."""
    p = superlinear_scenario()
    t1 = spill_time(1, **p)
    return t1 / (np.asarray(k) * spill_time(k, **p))


register(
    Part(
        "ex-3-1-1a",
        lambda: first_drop_below(F_TABLE),
        kind="numbers",
        unit="workers",
        whole=True,
        rounding="two values of K from the rows of the table: the last row where E(K) is at least one half, and the next row",
        hint="Compute E(K) = 1/(K T(K)) for every row, find the first value under 0.5, and give the K of the row "
        "before it and the K of that row.",
    ),
    Part(
        "ex-3-1-1b",
        lambda: amdahl_ceiling(F_TABLE),
        unit="speedup",
        hint="The ceiling is the limit of S(K) as K grows without bound.",
    ),
    Part(
        "ex-3-1-1c",
        lambda: 100 * amdahl_speedup(F_TABLE, 512) / amdahl_ceiling(F_TABLE),
        unit="%",
        hint="Divide S(512) of your table by the ceiling of (b) and express it as a percentage.",
    ),
    Part(
        "ex-3-1-1d",
        lambda: amdahl_speedup(F_TABLE, 512) - amdahl_speedup(F_TABLE, 256),
        unit="speedup",
        hint="Subtract S(256) from S(512), both from your table for f = 0.02.",
    ),
    Part(
        "ex-3-1-1e",
        lambda: (amdahl_speedup(F_TABLE, 512) - amdahl_speedup(F_TABLE, 256)) / 256,
        unit="fraction",
        sig=2,
        hint="The added speedup of (d) divided by the 256 added GPUs: what each new GPU contributes, as a fraction "
        "of one GPU (not the relative gain S(512)/S(256) - 1, and not E(512)).",
    ),
    Part(
        "ex-3-1-2a",
        lambda: [amdahl_ceiling(f) for f in F_SWEEP],
        kind="numbers",
        unit="speedup",
        hint="The ceiling is 1/f for each serial fraction.",
    ),
    Part(
        "ex-3-1-2b",
        lambda: [first_drop_below(f)[1] for f in F_SWEEP],
        kind="numbers",
        unit="workers",
        whole=True,
        rounding="none",
        hint="For each f, the first K in 1, 2, 4, ..., 512 whose efficiency is under 0.5.",
    ),
    Part(
        "ex-3-1-2c",
        lambda: [largest_serial_fraction(0.8, k) for k in (8, 64, 512)],
        kind="numbers",
        unit="fraction",
        sig=3,
        share=True,
        complement="the largest parallel fraction",
        hint="Solve 1/(f K + 1 - f) = 0.8 for f: collect the terms in f first, f K - f = f (K - 1).",
    ),
    Part(
        "ex-3-1-3a",
        lambda: [speedup(T1_SPILLING, T8), efficiency(T1_SPILLING, T8, 8)],
        kind="numbers",
        unit=("speedup", "efficiency"),
        hint="S = T(1)/T(8) and E = S/8.",
    ),
    Part(
        "ex-3-1-3b",
        lambda: T1_SPILLING / (2 * T1_HALF),
        unit="factor",
        hint="Twice the half run is what the full data would take at the half run's rate; divide the full run's "
        "600 s by it. A factor above 1 means each unit of data got dearer when the working set grew.",
    ),
    Part(
        "ex-3-1-3c",
        lambda: [speedup(T1_HONEST, T8), efficiency(T1_HONEST, T8, 8)],
        kind="numbers",
        unit=("speedup", "efficiency"),
        hint="Recompute S and E with the honest T(1) = 450 s.",
    ),
    Part(
        "ex-3-1-3d",
        lambda: [float(superlinear_efficiency(8)), float(superlinear_efficiency(64))],
        kind="numbers",
        unit="efficiency",
        hint="Divide the spilling T(1) by K T(K); from K = 2 on every slice fits, so T(K) = f + (1 - f)/K.",
    ),
)
