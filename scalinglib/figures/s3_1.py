"""Figures of Section 3.1: speedup and efficiency under a serial fraction; superlinear speedup."""

from __future__ import annotations

import numpy as np

from .._validate import check_fraction, check_scalar, single, single_whole
from ..laws import amdahl_ceiling, amdahl_efficiency, amdahl_speedup
from ..plots import COLORS, IDEAL, log2_axis, style_axes
from ..scaling import spill_time


def worker_counts(k_max):
    """The worker counts 1, 2, 4, ..., k_max of a figure's horizontal axis.

    Parameters
    ----------
    k_max : int
        The largest count, a single whole number >= 1 that is a power of two.

    Returns
    -------
    numpy.ndarray of int

    Raises
    ------
    TypeError
        If ``k_max`` is not one real number.
    ValueError
        If ``k_max`` is not a whole number >= 1 or not a power of two.

    Examples
    --------
    >>> worker_counts(16)
    array([ 1,  2,  4,  8, 16])
    >>> worker_counts(100)
    Traceback (most recent call last):
    ...
    ValueError: k_max must be a power of two (1, 2, 4, ...); got 100
    """
    k = single_whole("k_max", k_max)
    if k & (k - 1):
        raise ValueError(f"k_max must be a power of two (1, 2, 4, ...); got {k_max!r}")
    return 2 ** np.arange(k.bit_length())


def speedup_and_efficiency(fig, f, k_max):
    """Two panels for serial fraction ``f`` up to ``k_max`` workers: S(K) on log axes with the
    ideal line and the 1/f ceiling, and E(K), both curves in one colour (one f). Returns the two axes.

    ``f`` is one number in [0, 1]; ``k_max`` a power of two >= 1 (see :func:`worker_counts`)."""
    f = single(check_fraction, "f", f)
    ks = worker_counts(k_max)
    k_max = int(ks[-1])
    ax_s, ax_e = fig.subplots(1, 2)
    for ax in (ax_s, ax_e):
        style_axes(ax)
    ax_s.plot(ks, ks, label="ideal S = K", **IDEAL)
    ax_s.plot(ks, amdahl_speedup(f, ks), marker="o", markersize=3.5, color=COLORS["blue"], label=f"f = {f:g}")
    if f > 0:
        ax_s.axhline(amdahl_ceiling(f), color=COLORS["vermillion"], linestyle=":", linewidth=1.5,
                     label=f"ceiling 1/f = {amdahl_ceiling(f):g}")
    log2_axis(ax_s, "both")
    ax_s.set_ylim(0.8, k_max * 1.25)
    ax_s.set_xlabel("workers K")
    ax_s.set_ylabel("speedup S(K)")
    ax_s.legend(loc="upper left")

    ax_e.plot(ks, amdahl_efficiency(f, ks), marker="o", markersize=3.5, color=COLORS["blue"],
              label=f"f = {f:g}")              # the same colour for the same f in both panels
    ax_e.axhline(0.5, color=COLORS["grey"], linewidth=1, linestyle=":")
    log2_axis(ax_e, "x")
    ax_e.set_ylim(0, 1.05)
    ax_e.set_xlabel("workers K")
    ax_e.set_ylabel("efficiency E(K)")
    ax_e.legend(loc="upper right")
    return ax_s, ax_e


def superlinear(fig, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0, k_max=256):
    """Speedup of one run measured against two one-machine baselines, in the spill model of
    :func:`scalinglib.scaling.spill_time`: one worker of the cluster, whose data spill, and one
    machine whose memory holds the whole working set (the honest baseline). Returns the axes.

    The model's parameters are single numbers (checked by ``spill_time``); ``k_max`` is a power
    of two >= 1 (see :func:`worker_counts`)."""
    f, working_set, fast_memory, slowdown = (check_scalar(name, value) for name, value in
                                             [("f", f), ("working_set", working_set),
                                              ("fast_memory", fast_memory), ("slowdown", slowdown)])
    ks = worker_counts(k_max)
    t = spill_time(ks, f, working_set, fast_memory, slowdown)
    t1_worker = spill_time(1, f, working_set, fast_memory, slowdown)  # one worker of the cluster: it spills
    t1_big = 1.0  # the same job on one machine whose memory holds everything
    ax = style_axes(fig.subplots())
    ax.plot(ks, ks, label="ideal S = K", **IDEAL)
    ax.plot(ks, t1_worker / t, marker="o", markersize=3.5, color=COLORS["vermillion"],
            label="against one worker of the cluster (spills)")
    ax.plot(ks, t1_big / t, marker="s", markersize=3.5, color=COLORS["blue"], linestyle="--",
            label="against one machine that holds everything")
    fits_at = working_set / fast_memory
    ax.axvline(fits_at, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    ax.annotate("each slice fits\nin fast memory", (fits_at, 1.3), xytext=(6, 0), textcoords="offset points",
                fontsize=8, color=COLORS["grey"])
    log2_axis(ax, "both")
    ax.set_xlabel("workers K")
    ax.set_ylabel("speedup S(K)")
    ax.legend(loc="upper left")
    return ax
