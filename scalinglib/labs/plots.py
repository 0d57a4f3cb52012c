"""Figures of the labs: measured points with their spread, beside the models of 3.5 and 3.8.

Each function draws into a matplotlib figure it is given (``fig``) and returns its axes, in the
book's look (:mod:`scalinglib.plots`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator, NullLocator

from ..laws import amdahl_speedup
from ..plots import COLORS, IDEAL, style_axes
from ..usl import usl_speedup
from .ompi import CollectiveCosts
from .records import AllreduceLab, PingPongLab, ScalingLab, format_bytes

__all__ = ["scaling_figure", "pingpong_figure", "allreduce_figure", "open_mpi_allreduce_figure"]

_ALGORITHM_COLORS = [COLORS[c] for c in ("blue", "vermillion", "green", "purple", "orange", "sky")]


def _errorbar(ax, x, spread, **kw):
    ax.errorbar(x, spread.median, yerr=[spread.median - spread.low, spread.high - spread.median],
                capsize=3, linestyle="none", **kw)


def _bytes_axis(ax, nbytes):
    ax.set_xscale("log", base=2)
    ticks = nbytes[:: max(1, len(nbytes) // 5)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([format_bytes(n).replace(" ", "") for n in ticks])
    ax.minorticks_off()


def scaling_figure(fig, lab: ScalingLab):
    """Left: the strong-scaling speedup T(1)/T(K) and the weak-scaling speedup K T(1)/T(K) of the fastest
    rescaled runs (hollow: the strong speedup by the wall clock), beside the ideal line, Amdahl's law with the program's known f, and the Amdahl and USL fits
    (made on and drawn over K <= K_fit, the K with a core of their own; the SMT and oversubscribed
    ranges are shaded). Right: Karp-Flatt e(K) of the strong speedups against the known f.
    Returns the two axes."""
    ax_s, ax_e = fig.subplots(1, 2)
    for ax in (ax_s, ax_e):
        style_axes(ax)
    ks = lab.ks.astype(float)
    top = ks.max()
    dense = np.arange(1, int(top) + 1)
    for ax in (ax_s, ax_e):
        if top > lab.k_cpu:
            ax.axvspan(lab.k_cpu, top + 0.5, color=COLORS["grey"], alpha=0.12, linewidth=0)
        if lab.k_fit < min(lab.k_cpu, top):               # SMT threads past the physical cores: lighter shade
            ax.axvspan(lab.k_fit, min(lab.k_cpu, top + 0.5), color=COLORS["grey"], alpha=0.06, linewidth=0)
    ax_s.plot(dense, dense, label="ideal: K", **IDEAL)
    ax_s.plot(dense, amdahl_speedup(lab.known_f, dense), color=COLORS["black"], linestyle=":", linewidth=1.2,
              label=f"Amdahl, known f = {lab.known_f:.3f}")
    ax_s.plot(ks, lab.speedup, marker="o", linestyle="none", color=COLORS["blue"], label="strong: T(1)/T(K)")
    ax_s.plot(ks, lab.speedup_raw, marker="o", linestyle="none", markerfacecolor="none", color=COLORS["blue"],
              alpha=0.6, label="strong, wall clock (not rescaled)")
    ax_s.plot(ks, ks * lab.weak_efficiency, marker="s", linestyle="none", color=COLORS["green"],
              label="weak: K T(1)/T(K)")
    fit = lab.fit
    fitted = dense[dense <= lab.k_fit]
    if fit.f is not None:
        ax_s.plot(fitted, amdahl_speedup(fit.f, fitted), color=COLORS["vermillion"], linestyle="--",
                  label=f"Amdahl fit, f = {fit.f:.3f}")
    if fit.sigma is not None:
        ax_s.plot(fitted, usl_speedup(fitted, fit.sigma, fit.kappa), color=COLORS["purple"], linestyle="-.",
                  label=f"USL fit, sigma = {fit.sigma:.3f}, kappa = {fit.kappa:.4f}")
    ax_s.set_xlabel("MPI ranks K")
    ax_s.set_ylabel("speedup")
    ax_s.set_xlim(0.5, top + 0.5)
    ax_s.set_ylim(0, top + 0.5)
    ax_s.legend(loc="upper left", fontsize=7)

    use = lab.ks >= 2
    if use.any():
        from ..laws import karp_flatt
        e = np.atleast_1d(karp_flatt(lab.speedup[use], lab.ks[use]))
        ax_e.plot(ks[use], e, marker="o", color=COLORS["blue"], label="e(K) of the strong speedups")
    ax_e.axhline(lab.known_f, color=COLORS["black"], linestyle=":", linewidth=1.2,
                 label=f"known f = {lab.known_f:.3f}")
    ax_e.axhline(0, color=COLORS["grey"], linewidth=0.8)
    ax_e.set_xlim(0.5, top + 0.5)
    shaded = ["SMT" if lab.k_fit < min(lab.k_cpu, top) else "", "oversubscribed" if top > lab.k_cpu else ""]
    shaded = ", ".join(w for w in shaded if w)
    ax_e.set_xlabel(f"MPI ranks K (shaded: {shaded})" if shaded else "MPI ranks K")
    ax_e.set_ylabel("Karp-Flatt e(K)")
    ax_e.legend(loc="upper left", fontsize=8)
    for ax in (ax_s, ax_e):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return ax_s, ax_e


def pingpong_figure(fig, *labs: PingPongLab):
    """Left: one-way time against message size for each transport (best batch, bars up to the
    median) with its fitted alpha + n beta. Right: the effective bandwidth n / T with each fit's
    1/beta. Returns the two axes."""
    if not labs:
        raise ValueError("pingpong_figure needs at least one PingPongLab")
    ax_t, ax_b = fig.subplots(1, 2)
    for ax in (ax_t, ax_b):
        style_axes(ax)
    for i, lab in enumerate(labs):
        color = _ALGORITHM_COLORS[i % len(_ALGORITHM_COLORS)]
        n = lab.nbytes
        dense = np.geomspace(n.min(), n.max(), 200)
        ax_t.errorbar(n, lab.best * 1e6, yerr=[np.zeros_like(n), (lab.median - lab.best) * 1e6], marker="o",
                      linestyle="none", capsize=2, color=color, label=f"{lab.transport}: lab (Python)")
        ref = lab.reference_best
        if ref is not None:
            ax_t.plot(n, ref * 1e6, marker="x", linestyle="none", color=color,
                      label=f"{lab.transport}: reference (C)")
        fits = lab.protocol_fits
        if fits is not None:                            # one line per protocol, broken at the eager limit
            for side, fit in (("eager", fits.eager), ("rendezvous", fits.rendezvous)):
                if fit is None:
                    continue
                part = dense[dense < fits.eager_limit] if side == "eager" else dense[dense >= fits.eager_limit]
                ax_t.plot(part, (fit.alpha + part * fit.beta) * 1e6, color=color,
                          linestyle="--" if side == "eager" else "-.",
                          label=f"{lab.transport} {side}: alpha = {fit.alpha * 1e6:.2f} us")
            top = fits.rendezvous if fits.rendezvous is not None else fits.eager
            ax_t.axvline(fits.eager_limit, color=COLORS["grey"], linestyle=":", linewidth=1.0)
        else:
            top = lab.fit
            ax_t.plot(dense, (top.alpha + dense * top.beta) * 1e6, color=color, linestyle="--",
                      label=f"{lab.transport}: alpha = {top.alpha * 1e6:.2f} us, 1/beta = {top.bandwidth / 1e9:.2f} GB/s")
        ax_b.plot(n, n / lab.best / 1e9, marker="o", color=color, label=f"{lab.transport}: n / T")
        if ref is not None:
            ax_b.plot(n, n / ref / 1e9, marker="x", linestyle=":", color=color, label=f"{lab.transport}: reference")
        ax_b.axhline(top.bandwidth / 1e9, color=color, linestyle=":", linewidth=1.2)
    for ax in (ax_t, ax_b):
        _bytes_axis(ax, labs[0].nbytes)
        ax.set_xlabel("message size n")
    ax_t.set_yscale("log")
    ax_t.set_ylabel("one-way time (us)")
    ax_b.set_yscale("log")
    ax_b.set_ylabel("effective bandwidth (GB/s)")
    ax_t.legend(loc="upper left", fontsize=7)
    ax_b.legend(loc="upper left", fontsize=7)
    return ax_t, ax_b


def allreduce_figure(fig, lab: AllreduceLab, alpha: float, beta: float, k: int | None = None,
                     gamma: float | None = None, reference: str | None = None):
    """Left: all-reduce time against size on K ranks, measured (markers) and 3.8's model with the
    given alpha and beta and the measured gamma (lines). Right: each algorithm's time divided by the
    ``reference`` algorithm's (the ring by default), measured and modelled, so that a crossover is
    where a curve crosses 1; the measured (solid) and predicted (dotted) crossover of the first two
    algorithms are marked. The ratio axis is logarithmic and spans the model's ratios (at least 0.5 to
    2): a measured ratio beyond it, such as a size whose batches all waited for a CPU, is drawn as an
    open triangle on the edge. Returns the two axes."""
    k = int(lab.ks[0]) if k is None else int(k)
    if reference is None:
        reference = "ring" if "ring" in lab.algorithms else lab.algorithms[0]
    ax_t, ax_r = fig.subplots(1, 2)
    for ax in (ax_t, ax_r):
        style_axes(ax)
    n = lab.nbytes
    ref_best = lab.best(reference, k)
    ref_model = lab.model(reference, k, alpha, beta, gamma)
    ratios = {name: lab.best(name, k) / ref_best for name in lab.algorithms}
    model_ratios = {name: lab.model(name, k, alpha, beta, gamma) / ref_model for name in lab.algorithms}
    finite = np.concatenate([r[np.isfinite(r)] for r in model_ratios.values()] + [np.ones(1)])
    low, high = min(0.5, finite.min() / 1.5), max(2.0, finite.max() * 1.5)   # the model's range, at least 0.5-2
    off_scale = []
    for i, name in enumerate(lab.algorithms):
        color = _ALGORITHM_COLORS[i % len(_ALGORITHM_COLORS)]
        marker = "osD^v<"[i % 6]
        best = lab.best(name, k)
        model = lab.model(name, k, alpha, beta, gamma)
        ratio = ratios[name]
        inside = (ratio >= low) & (ratio <= high)
        ax_t.plot(n, best * 1e6, marker=marker, linestyle="none", color=color, label=name)
        ax_r.plot(n[inside], ratio[inside], marker=marker, linestyle="none", color=color, label=name)
        for edge, side, tip in ((high, ratio > high, "^"), (low, ratio < low, "v")):
            if side.any():
                off_scale.append((n[side], np.full(side.sum(), edge), tip, color))
        if np.all(np.isfinite(model)):
            ax_t.plot(n, model * 1e6, color=color, linestyle=("-", "--", "-.", ":")[i % 4], linewidth=1.4)
            if np.all(np.isfinite(ref_model)):
                ax_r.plot(n, model_ratios[name], color=color, linestyle=("-", "--", "-.", ":")[i % 4],
                          linewidth=1.4)
    for j, (x, y, tip, color) in enumerate(off_scale):
        ax_r.plot(x, y, marker=tip, markersize=8, linestyle="none", markerfacecolor="none", color=color,
                  clip_on=False, label="measured, off the scale" if j == 0 else None)
    ax_r.axhline(1.0, color=COLORS["grey"], linewidth=0.8)
    pairs = [c for c in lab.crossovers(alpha, beta, gamma) if c.k == k]
    if pairs:
        pair = pairs[0]
        if pair.measured is not None:
            ax_r.axvline(pair.measured, color=COLORS["black"], linewidth=1.0,
                         label=f"{pair.first} / {pair.second}, measured: {format_bytes(pair.measured)}")
        if pair.predicted is not None and n.min() / 8 <= pair.predicted <= n.max() * 8:
            ax_r.axvline(pair.predicted, color=COLORS["black"], linestyle=":", linewidth=1.2,
                         label=f"{pair.first} / {pair.second}, predicted: {format_bytes(pair.predicted)}")
    for ax in (ax_t, ax_r):
        _bytes_axis(ax, n)
        ax.set_xlabel("message size n in bytes (float32 values)")
    ax_t.set_yscale("log")
    ax_t.set_ylabel(f"all-reduce time, K = {k} (us)")
    ax_t.set_title("markers: measured; lines: model", fontsize=9, fontweight="normal")
    ax_r.set_yscale("log")
    ax_r.set_ylim(low, high)
    ticks = [v for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100) if low <= v <= high]
    ax_r.set_yticks(ticks)
    ax_r.set_yticklabels([f"{v:g}" for v in ticks])
    ax_r.yaxis.set_minor_locator(NullLocator())
    ax_r.set_ylabel(f"time / time of {reference} (log scale)")
    ax_t.legend(loc="upper left", fontsize=7)
    ax_r.legend(loc="best", fontsize=6)
    return ax_t, ax_r


def open_mpi_allreduce_figure(fig, lab: AllreduceLab, costs: CollectiveCosts, k: int | None = None):
    """Left: recursive doubling's and the ring's times on K ranks (best batch, bars to the slowest)
    with the Open MPI model's lines. Right: the ring's time minus recursive doubling's, each batch
    paired with the same batch, against the model's difference; a band marks where the batches of the
    two overlap (no winner can be read there) and a dotted line the eager limit. Returns the two axes."""
    k = int(lab.ks[0]) if k is None else int(k)
    ax_t, ax_d = fig.subplots(1, 2)
    for ax in (ax_t, ax_d):
        style_axes(ax)
    n = lab.nbytes
    for i, name in enumerate(("recursive_doubling", "ring")):
        a, j = lab._index(name, k)
        runs = lab.seconds[a, j]
        best = runs.min(axis=0)
        color = _ALGORITHM_COLORS[i]
        ax_t.errorbar(n, best * 1e6, yerr=[np.zeros_like(n), (runs.max(axis=0) - best) * 1e6], marker="os"[i],
                      linestyle="none", capsize=2, color=color, label=f"{name}: measured")
        ax_t.plot(n, lab.open_mpi_model(name, k, costs) * 1e6, color=color, linestyle=("-", "--")[i],
                  label=f"{name}: Open MPI model")
    a, j = lab._index("ring", k)
    b, _ = lab._index("recursive_doubling", k)
    diff = (lab.seconds[a, j] - lab.seconds[b, j]) * 1e6
    model = (lab.open_mpi_model("ring", k, costs) - lab.open_mpi_model("recursive_doubling", k, costs)) * 1e6
    reading = lab.reading("recursive_doubling", "ring", k, costs)
    unclear = ~(reading.clear_first | reading.clear_second)
    ax_d.axhline(0, color=COLORS["grey"], linewidth=0.8)
    ax_d.plot(n, np.median(diff, axis=0), marker="o", linestyle="none", color=COLORS["blue"],
              label="measured (median of batch pairs)")
    ax_d.vlines(n, diff.min(axis=0), diff.max(axis=0), color=COLORS["blue"], linewidth=1.0)
    ax_d.plot(n, model, color=COLORS["vermillion"], linestyle="--", label="Open MPI model")
    for x in n[unclear]:
        ax_d.axvspan(x / 2**0.5, x * 2**0.5, color=COLORS["grey"], alpha=0.15, linewidth=0)
    ax_d.axvline(costs.eager_limit, color=COLORS["grey"], linestyle=":", linewidth=1.0)
    ax_d.set_yscale("symlog", linthresh=1.0)
    ax_d.set_ylabel("ring - recursive doubling (us)")
    ax_d.set_title("above 0: recursive doubling faster; grey: batches overlap", fontsize=8, fontweight="normal")
    for ax in (ax_t, ax_d):
        _bytes_axis(ax, n)
        ax.set_xlabel("vector size n (float32)")
    ax_t.set_yscale("log")
    ax_t.set_ylabel(f"all-reduce time, K = {k} (us)")
    ax_t.legend(loc="upper left", fontsize=7)
    ax_d.legend(loc="lower left", fontsize=7)
    return ax_t, ax_d
