"""Figures of Section 3.8: the cost of one message, the algorithms of a collective and which one wins,
how collectives grow with the number of processes, and the ping-pong fit of the reader's machine."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter

from ..comm import (
    algorithms_for,
    collective_lower_bound,
    collective_time,
    collective_times,
    effective_bandwidth,
    half_performance_size,
    p2p_time,
)
from ..hardware import LINKS
from ..plots import COLORS, IDEAL, log2_axis, style_axes

__all__ = ["message_cost", "collective_algorithms", "allreduce_choice", "collective_scaling", "pingpong_fit",
           "size_label", "decimal_size_label", "ALGORITHM_STYLE", "EXAMPLE_ALPHA", "EXAMPLE_BETA"]

#: The latency assumed in the section's examples: a round figure for one message between GPUs on
#: different nodes through a communication library (an assumption, not a measurement).
EXAMPLE_ALPHA = 5e-6
#: Seconds per byte of the examples' network: one InfiniBand NDR port, 50e9 bytes/s each way.
EXAMPLE_BETA = 1.0 / LINKS["InfiniBand NDR"].bandwidth

#: One colour and line style per algorithm, the same in every figure of the section.
ALGORITHM_STYLE = {
    "ring": (COLORS["blue"], "-"),
    "binomial_tree": (COLORS["orange"], "--"),
    "recursive_doubling": (COLORS["green"], "-."),
    "recursive_halving": (COLORS["green"], "-."),
    "rabenseifner": (COLORS["vermillion"], ":"),
    "scatter_allgather": (COLORS["purple"], (0, (5, 1, 1, 1))),
}
#: Message sizes the section's figures span, bytes.
SIZE_RANGE = (1.0, 2.0**30)


def size_label(nbytes: float) -> str:
    """Bytes in binary units: 8 -> '8 B', 65536 -> '64 KiB', 2**30 -> '1 GiB'."""
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.3g} B"


def decimal_size_label(nbytes: float) -> str:
    """Bytes in decimal units, as the text quotes them: 250000 -> '250 kB', 1e9 -> '1 GB'."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.3g} B"


def log_ticks(lo: float, hi: float) -> list[float]:
    """At least two tick values in ``[lo, hi]`` (0 < lo < hi) for a log axis with plain labels.

    The powers of ten if three of them fall in the range, else the 1-2-5
    values of each decade if three do, else 1-2-3-5 if three do, else 1, 2,
    ..., 9 if two do, else evenly spaced round numbers (a narrow range such as
    12 to 18 gets 12, 14, 16, 18).
    """
    decades = range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
    for subs, enough in (((1,), 3), ((1, 2, 5), 3), ((1, 2, 3, 5), 3), (range(1, 10), 2)):
        ticks = [m * 10.0**d for d in decades for m in subs if lo <= m * 10.0**d <= hi]
        if len(ticks) >= enough:
            return ticks
    return [float(v) for v in MaxNLocator(nbins=4, steps=[1, 2, 5, 10]).tick_values(lo, hi) if lo <= v <= hi]


def _size_ticks(nbytes: np.ndarray) -> list[float]:
    """Powers of two spanning the measured sizes (at most about seven), or the sizes themselves."""
    lo, hi = float(nbytes.min()), float(nbytes.max())
    powers = [2.0**k for k in range(int(np.ceil(np.log2(lo))), int(np.floor(np.log2(hi))) + 1)]
    if len(powers) < 2:
        return sorted({float(v) for v in nbytes})
    step = int(np.ceil(len(powers) / 7))
    return powers[::step]


def _seconds_label(t: float) -> str:
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "\u00b5s")):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def _bytes_axis(ax):
    from matplotlib.ticker import FixedLocator

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, 31, 5)]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
    ax.set_xlabel("message size n")


def message_cost(fig, alpha, beta):
    """Left: the time of one message against its size, with the latency floor and the transfer line.
    Right: the bandwidth it achieves, with n_1/2 marked. Returns the two axes."""
    ax_t, ax_b = fig.subplots(1, 2)
    for ax in (ax_t, ax_b):
        style_axes(ax)
    n = np.geomspace(*SIZE_RANGE, 300)
    half = half_performance_size(alpha, beta)
    ax_t.plot(n, p2p_time(n, alpha, beta), color=COLORS["blue"], label="T(n) = \u03b1 + n\u03b2")
    ax_t.axhline(alpha, **IDEAL, label="\u03b1 alone")
    ax_t.plot(n, n * beta, color=COLORS["grey"], linestyle=":", linewidth=1.2, label="n\u03b2 alone")
    ax_t.axvline(half, color=COLORS["vermillion"], linestyle=":", linewidth=1.2)
    ax_t.set_yscale("log")
    ax_t.set_ylim(alpha / 5, float(p2p_time(SIZE_RANGE[1], alpha, beta)) * 2)
    ax_t.set_ylabel("time (s)")
    ax_t.legend(loc="upper left", fontsize=8)
    ax_b.plot(n, effective_bandwidth(n, alpha, beta) / 1e9, color=COLORS["blue"], label="n / T(n)")
    ax_b.axhline(1 / beta / 1e9, **IDEAL, label="link bandwidth 1/\u03b2")
    ax_b.axvline(half, color=COLORS["vermillion"], linestyle=":", linewidth=1.2,
                 label=f"n\u00bd = \u03b1/\u03b2 = {decimal_size_label(half)}")
    ax_b.plot([half], [0.5 / beta / 1e9], marker="o", color=COLORS["vermillion"], linestyle="none")
    ax_b.set_ylim(0, 1.1 / beta / 1e9)
    ax_b.set_ylabel("achieved bandwidth (GB/s)")
    ax_b.legend(loc="upper left", fontsize=8)
    for ax in (ax_t, ax_b):
        _bytes_axis(ax)
    return ax_t, ax_b


def collective_algorithms(fig, nbytes, p, alpha, beta, gamma=0.0, collective="allreduce"):
    """Left: time of every algorithm of a collective against message size at ``p`` processes, with the
    lower bound, and the chosen size marked. Right: the times at that size, the winner highlighted.
    Returns the two axes."""
    ax_c, ax_bar = fig.subplots(1, 2, width_ratios=[1.5, 1])
    for ax in (ax_c, ax_bar):
        style_axes(ax)
    n = np.geomspace(*SIZE_RANGE, 200)
    names = algorithms_for(collective, p)
    for alg in names:
        color, style = ALGORITHM_STYLE[alg]
        ax_c.plot(n, collective_time(collective, n, p, alpha, beta, gamma, algorithm=alg), color=color,
                  linestyle=style, label=alg.replace("_", " "))
    ax_c.plot(n, collective_lower_bound(collective, n, p, alpha, beta, gamma), color=COLORS["black"],
              linewidth=1.0, linestyle=(0, (1, 2)), label="lower bound")
    ax_c.axvline(nbytes, color=COLORS["grey"], linewidth=5, alpha=0.25)
    _bytes_axis(ax_c)
    ax_c.set_yscale("log")
    ax_c.set_ylabel("time (s)")
    ax_c.legend(loc="upper left", fontsize=7)
    ax_c.set_title(f"{collective}, K = {p}", fontsize=9, fontweight="normal")

    times = collective_times(collective, nbytes, p, alpha, beta, gamma)
    best = min(times, key=times.get)
    labels = [alg.replace("_", " ") for alg in times]
    values = [times[alg] * 1e3 for alg in times]
    colors = [ALGORITHM_STYLE[alg][0] if alg == best else COLORS["grey"] for alg in times]
    ax_bar.barh(labels, values, color=colors, alpha=0.9)
    for y, v in enumerate(values):
        ax_bar.annotate(_seconds_label(v / 1e3), (v, y), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=8)
    ax_bar.invert_yaxis()
    ax_bar.set_xlim(0, max(values) * 1.45)
    ax_bar.set_xlabel("time (ms)")
    ax_bar.set_title(f"n = {size_label(nbytes)}\nfastest: {best.replace('_', ' ')}", fontsize=9,
                     fontweight="bold")
    ax_bar.grid(axis="y", visible=False)
    return ax_c, ax_bar


def allreduce_choice(fig, nbytes, K):
    """:func:`collective_algorithms` for an all-reduce of ``nbytes`` over ``K`` processes on the section's
    example network (:data:`EXAMPLE_ALPHA`, :data:`EXAMPLE_BETA`, no reduction cost): the slider of Section 3.8.4."""
    return collective_algorithms(fig, nbytes, K, EXAMPLE_ALPHA, EXAMPLE_BETA, 0.0, "allreduce")


def collective_scaling(fig, nbytes, alpha, beta, gamma=0.0, collective="allreduce", p_max=1024):
    """Time of each algorithm of a collective against the number of processes, for one message size
    (powers of two, so every algorithm applies). Returns the axes."""
    ax = style_axes(fig.subplots())
    ps = 2 ** np.arange(1, int(np.log2(p_max)) + 1)
    for alg in algorithms_for(collective):
        color, style = ALGORITHM_STYLE[alg]
        ax.plot(ps, collective_time(collective, nbytes, ps, alpha, beta, gamma, algorithm=alg), marker="o",
                markersize=3, color=color, linestyle=style, label=alg.replace("_", " "))
    log2_axis(ax, "x")
    ax.set_yscale("log")
    ax.set_xlabel("processes K")
    ax.set_ylabel("time (s)")
    ax.set_title(f"{collective} of {size_label(nbytes)}", fontsize=9, fontweight="normal")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def pingpong_fit(fig, nbytes, seconds, alpha, beta):
    """Measured one-way message times with the fitted alpha + n beta line (left) and the bandwidth
    the messages achieved (right), with the half-performance size alpha/beta marked where it falls
    inside the measured sizes (otherwise the legend says it lies outside them). Every axis carries at
    least two labelled ticks whatever range the measurement spans. Returns the two axes."""
    ax_t, ax_b = fig.subplots(1, 2)
    for ax in (ax_t, ax_b):
        style_axes(ax)
    nbytes, seconds = np.asarray(nbytes, dtype=float), np.asarray(seconds, dtype=float)
    grid = np.geomspace(nbytes.min(), nbytes.max(), 200)
    model_us = p2p_time(grid, alpha, beta) * 1e6
    ax_t.plot(nbytes, seconds * 1e6, marker="o", linestyle="none", color=COLORS["vermillion"], label="measured")
    ax_t.plot(grid, model_us, color=COLORS["blue"],
              label=f"fit: \u03b1 = {alpha * 1e6:.3g} \u00b5s, 1/\u03b2 = {1 / beta / 1e9:.3g} GB/s")
    ax_t.set_yscale("log")
    shown = np.concatenate([seconds * 1e6, model_us])
    lo, hi = float(shown.min()) / 1.15, float(shown.max()) * 1.15
    ax_t.set_ylim(lo, hi)
    ax_t.yaxis.set_major_locator(FixedLocator(log_ticks(lo, hi)))
    ax_t.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax_t.yaxis.set_minor_formatter(NullFormatter())
    ax_t.set_ylabel("one-way time (\u00b5s)")
    ax_t.legend(loc="upper left", fontsize=8)
    ax_b.plot(nbytes, nbytes / seconds / 1e9, marker="o", linestyle="none", color=COLORS["vermillion"],
              label="measured n / T")
    ax_b.plot(grid, effective_bandwidth(grid, alpha, beta) / 1e9, color=COLORS["blue"], label="model")
    ax_b.set_ylabel("achieved bandwidth (GB/s)")
    x_lo, x_hi = float(nbytes.min()) / 1.5, float(nbytes.max()) * 1.5
    # the half-performance size: a line only where the axis shows it; otherwise a legend entry that says so
    n_half = alpha / beta if beta > 0 else float("inf")
    half = f"n\u00bd = \u03b1/\u03b2 = {decimal_size_label(n_half)}" if np.isfinite(n_half) else "n\u00bd = \u03b1/\u03b2"
    if np.isfinite(n_half) and x_lo <= n_half <= x_hi:
        ax_b.axvline(n_half, color=COLORS["grey"], linestyle=":", linewidth=1.2, label=half)
    else:
        ax_b.plot([], [], linestyle="none", label=f"{half} (outside the measured sizes)")
    ax_b.legend(loc="upper left", fontsize=8)
    ticks = _size_ticks(nbytes)
    for ax in (ax_t, ax_b):
        ax.set_xscale("log", base=2)
        ax.set_xlim(x_lo, x_hi)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("message size")
    return ax_t, ax_b
