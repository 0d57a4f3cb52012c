"""Figures of Section 3.5: Amdahl against Gustafson, Gustafson's 1988 results, Karp-Flatt, the USL, a measurement."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..laws import amdahl_ceiling, amdahl_efficiency, amdahl_speedup, gustafson_speedup, karp_flatt
from ..plots import COLORS, IDEAL, log2_axis, style_axes
from ..usl import usl_peak_workers, usl_speedup
from .s3_1 import worker_counts

#: Gustafson (1988): scaled speedups measured on a 1024-processor hypercube at Sandia.
SANDIA_1988 = {
    "beam stress analysis": 1021,
    "baffled surface wave simulation": 1020,
    "unstable fluid flow": 1016,
}
SANDIA_PROCESSORS = 1024


def amdahl_vs_gustafson(fig, f, k_max=1024):
    """Left: speedup of a fixed job (Amdahl, serial fraction f of the one-worker time) and of a grown
    job (Gustafson, serial fraction s = f of the parallel run), with the ideal line and Amdahl's
    ceiling. Right: their efficiencies. Returns the two axes."""
    ks = worker_counts(k_max)
    ax_s, ax_e = fig.subplots(1, 2)
    for ax in (ax_s, ax_e):
        style_axes(ax)
    ax_s.plot(ks, ks, label="ideal S = K", **IDEAL)
    ax_s.plot(ks, gustafson_speedup(f, ks), marker="s", markersize=3.5, color=COLORS["green"],
              label=f"Gustafson, grown job, s = {f:g}")
    ax_s.plot(ks, amdahl_speedup(f, ks), marker="o", markersize=3.5, color=COLORS["vermillion"], linestyle="--",
              label=f"Amdahl, fixed job, f = {f:g}")
    if f > 0 and amdahl_ceiling(f) <= k_max:
        ax_s.axhline(amdahl_ceiling(f), color=COLORS["vermillion"], linestyle=":", linewidth=1.2,
                     label=f"Amdahl ceiling 1/f = {amdahl_ceiling(f):g}")
    log2_axis(ax_s, "both")
    ax_s.set_ylim(0.8, k_max * 1.3)
    ax_s.set_xlabel("workers K")
    ax_s.set_ylabel("speedup S(K)")
    ax_s.legend(loc="upper left", fontsize=8)

    ax_e.plot(ks, gustafson_speedup(f, ks) / ks, marker="s", markersize=3.5, color=COLORS["green"],
              label="Gustafson: E -> 1 - s")
    ax_e.plot(ks, amdahl_efficiency(f, ks), marker="o", markersize=3.5, color=COLORS["vermillion"],
              linestyle="--", label="Amdahl: E -> 0")
    log2_axis(ax_e, "x")
    ax_e.set_ylim(0, 1.05)
    ax_e.set_xlabel("workers K")
    ax_e.set_ylabel("efficiency S(K) / K")
    ax_e.legend(loc="lower left", fontsize=8)
    return ax_s, ax_e


def gustafson_1988(fig, k=SANDIA_PROCESSORS, s_max=0.01):
    """Speedup on k processors against the serial fraction, read Gustafson's way (a grown job) and,
    as the misreading of Section 3.5.4, Amdahl's way (the run's share s taken as a fixed job's f), with the three Sandia results placed at the serial fraction of
    the parallel run each implies (which puts them on the Gustafson line by construction).
    Returns the axes."""
    s = np.linspace(0.0, s_max, 201)
    ax = style_axes(fig.subplots())
    ax.plot(s * 100, gustafson_speedup(s, k), color=COLORS["green"], label="Gustafson: K + (1 - K) s")
    ax.plot(s * 100, amdahl_speedup(s, k), color=COLORS["vermillion"], linestyle="--",
            label="Amdahl, if s were the one-processor share f")
    ax.axvspan(0.4, 0.8, color=COLORS["grey"], alpha=0.12, lw=0, label="serial fraction quoted: 0.4-0.8 %")
    markers = ["o", "s", "^"]
    for (name, measured), marker in zip(SANDIA_1988.items(), markers):
        implied = (k - measured) / (k - 1)
        ax.plot([implied * 100], [measured], marker=marker, markersize=7, linestyle="none",
                color=COLORS["blue"], label=f"{name}: {measured}")
    ax.set_xlim(0, s_max * 100)
    ax.set_ylim(0, k * 1.08)
    ax.set_xlabel("serial fraction s (% of the run)")
    ax.set_ylabel(f"speedup on K = {k:,} processors")
    ax.legend(loc="center right", fontsize=8)
    return ax


def karp_flatt_trends(fig, datasets, ks):
    """The Karp-Flatt serial fraction against K for several sets of speedups ``{label: speedups}``
    measured at worker counts ``ks`` (K = 1 is skipped), on a linear K axis so that the USL's straight
    line e = sigma + kappa K shows straight. Returns the axes."""
    ks = np.asarray(ks)
    use = ks >= 2
    ax = style_axes(fig.subplots())
    markers = ["o", "s", "^", "D"]
    for (label, speedups), marker in zip(datasets.items(), markers):
        e = karp_flatt(np.asarray(speedups)[use], ks[use])
        ax.plot(ks[use], e, marker=marker, markersize=4, label=label)
    ax.set_xticks(ks[use])
    ax.set_xlim(0, ks.max() * 1.05)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("workers K")
    ax.set_ylabel("Karp-Flatt serial fraction e(K)")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def usl_curves(fig, sigma, kappa, k_max=256):
    """USL speedup for contention ``sigma`` and coherency ``kappa`` against K, with Amdahl's law for
    f = sigma (kappa = 0) and the ideal line; the peak is starred when it falls inside the plot.
    Returns the axes."""
    ks = np.unique(np.round(np.geomspace(1, k_max, 60)).astype(int))
    ax = style_axes(fig.subplots())
    ax.plot(ks, ks, label="ideal S = K", **IDEAL)
    ax.plot(ks, amdahl_speedup(min(sigma, 1.0), ks), color=COLORS["vermillion"], linestyle="--",
            label=f"Amdahl, f = {sigma:g}")
    ax.plot(ks, usl_speedup(ks, sigma, kappa), color=COLORS["blue"],
            label=f"USL, σ = {sigma:g}, κ = {kappa:g}")
    peak = usl_peak_workers(sigma, kappa)
    if np.isfinite(peak) and peak <= k_max:
        ax.plot([peak], [usl_speedup(round(peak), sigma, kappa)], marker="*", markersize=12,
                color=COLORS["black"], linestyle="none", label=f"peak at K = {peak:.0f}")
    log2_axis(ax, "x")
    ax.set_ylim(0, min(k_max, 1.15 * max(float(np.max(amdahl_speedup(min(sigma, 1.0), ks))), 1.0)) * 1.05)
    ax.set_xlabel("workers K")
    ax.set_ylabel("speedup S(K)")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def measurement(fig, workers, strong_seconds, weak_seconds, cores, amdahl_f=None, usl=None):
    """A scaling measurement and the models fitted to it.

    Left: measured strong-scaling speedup T(1)/T(K) and weak-scaling speedup K T(1)/T(K) (which is
    Gustafson's scaled speedup when the weak job is K independent copies of the one-worker job), with the best any program can do on ``cores`` cores, min(K, cores), and the Amdahl and USL fits
    when given. Right: the Karp-Flatt serial fraction of the strong-scaling runs, with a dotted line at
    K = c, the core count. Returns the two axes."""
    ks = np.asarray(workers, dtype=float)
    strong = strong_seconds[0] / np.asarray(strong_seconds)
    scaled = ks * weak_seconds[0] / np.asarray(weak_seconds)
    ax_s, ax_k = fig.subplots(1, 2)
    for ax in (ax_s, ax_k):
        style_axes(ax)
    dense = np.arange(1, int(ks.max()) + 1)
    ax_s.plot(dense, np.minimum(dense, cores), label=f"best possible on {cores} cores: min(K, {cores})", **IDEAL)
    ax_s.plot(ks, strong, marker="o", linestyle="none", color=COLORS["blue"], label="strong: T(1)/T(K)")
    ax_s.plot(ks, scaled, marker="s", linestyle="none", color=COLORS["green"], label="weak: K T(1)/T(K)")
    if amdahl_f is not None:
        ax_s.plot(dense, amdahl_speedup(amdahl_f, dense), color=COLORS["vermillion"], linestyle="--",
                  label=f"Amdahl fit, f = {amdahl_f:.3f}")
    if usl is not None:
        ax_s.plot(dense, usl_speedup(dense, *usl), color=COLORS["purple"], linestyle="-.",
                  label=f"USL fit, σ = {usl[0]:.3f}, κ = {usl[1]:.3f}")
    ax_s.set_xlabel("worker processes K")
    ax_s.set_ylabel("speedup")
    ax_s.set_ylim(0, ks.max() + 0.5)
    ax_s.legend(loc="upper left", fontsize=7)

    use = ks >= 2
    ax_k.plot(ks[use], karp_flatt(strong[use], ks[use]), marker="o", color=COLORS["blue"],
              label="strong scaling")
    ax_k.axvline(cores, color=COLORS["grey"], linestyle=":", linewidth=1.2, label=f"c = {cores} cores")
    ax_k.axhline(0, color=COLORS["grey"], linewidth=0.8)
    for ax in (ax_s, ax_k):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_k.set_xlabel("worker processes K")
    ax_k.set_ylabel("Karp-Flatt e(K)")
    ax_k.legend(loc="upper left", fontsize=8)
    return ax_s, ax_k
