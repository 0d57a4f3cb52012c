"""Figures of Section 3.3: strong against weak scaling, the critical batch size, the data-parallel cap."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..batchsize import examples_to_target, steps_to_target
from ..layout import layout_sweep
from ..plots import COLORS, IDEAL, log2_axis, style_axes
from ..scaling import best_worker_count, strong_model_efficiency, strong_time, weak_model_efficiency, weak_time
from .s3_1 import worker_counts


def _count(x: float) -> str:
    """1.3e9 -> '1.3B', 4e6 -> '4M', 1e12 -> '1T'."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


def strong_and_weak(fig, f, c, k_max=1024):
    """Left: time per step of the fixed job (strong) and of the growing job (weak), with the best K of
    the fixed job marked, on a logarithmic time axis so that the fixed job's turn upwards past the best K
    shows. Right: both efficiencies. f is the serial fraction, c the communication coefficient. Returns the
    two axes."""
    ks = worker_counts(k_max)
    ax_t, ax_e = fig.subplots(1, 2)
    for ax in (ax_t, ax_e):
        style_axes(ax)
    t_strong, t_weak = strong_time(ks, f, c), weak_time(ks, f, c)
    ax_t.plot(ks, t_strong, marker="o", markersize=3.5, color=COLORS["vermillion"], label="strong: fixed job")
    ax_t.plot(ks, t_weak, marker="s", markersize=3.5, color=COLORS["green"], linestyle="--",
              label="weak: job grows with K")
    if c > 0:
        k_best = best_worker_count(f, c)
        if k_best <= k_max:
            ax_t.plot([k_best], [strong_time(k_best, f, c)], marker="*", markersize=12, color=COLORS["black"],
                      linestyle="none", label=f"fastest fixed job: K = {k_best}")
    log2_axis(ax_t, "x")
    # the top third of the log axis (at least a factor of 3) lies above the growing job's curve: the legend
    # sits there, clear of both curves
    low, high = 0.8 * float(t_strong.min()), float(t_weak.max())
    high *= max(3.0, (high / low) ** 0.5)
    ax_t.set_yscale("log")
    # ticks 0.1, 0.2, 0.5, 1, ...; over many decades only 0.01, 0.1, 1, ...
    steps = (1, 2, 5) if high / low < 300 else (1,)
    ax_t.yaxis.set_major_locator(FixedLocator([m * 10.0 ** e for e in range(-5, 3) for m in steps]))
    ax_t.yaxis.set_minor_locator(NullLocator())
    ax_t.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax_t.set_ylim(low, high)
    ax_t.set_xlabel("workers K")
    ax_t.set_ylabel("time per step (units of T(1))")
    ax_t.legend(loc="upper right", fontsize=8)

    ax_e.plot(ks, strong_model_efficiency(ks, f, c), marker="o", markersize=3.5, color=COLORS["vermillion"],
              label="E strong")
    ax_e.plot(ks, weak_model_efficiency(ks, f, c), marker="s", markersize=3.5, color=COLORS["green"],
              linestyle="--", label="E weak")
    log2_axis(ax_e, "x")
    ax_e.set_ylim(0, 1.05)
    ax_e.set_xlabel("workers K")
    ax_e.set_ylabel("efficiency")
    # short labels keep the legend left of K = 4, where the strong curve is still above 0.5 for every slider value
    ax_e.legend(loc="lower left")
    return ax_t, ax_e


def critical_batch(fig, critical=1.0):
    """Optimizer steps and training tokens to reach a target loss against batch size (McCandlish et al. 2018),
    both in units of their minimum. Returns the axes."""
    batch = np.logspace(-2, 2, 200) * critical
    ax = style_axes(fig.subplots())
    steps = steps_to_target(batch, critical)            # in units of n_step,min
    tokens = examples_to_target(batch, critical) / critical   # in units of D_tok,min = n_step,min * B_crit
    ax.plot(batch / critical, steps, color=COLORS["blue"], label=r"optimizer steps / $n_\mathrm{step,min}$")
    ax.plot(batch / critical, tokens, color=COLORS["orange"], linestyle="--", label=r"tokens / $D_\mathrm{tok,min}$")
    ax.axvline(1.0, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    # below the legend (upper centre), right of the line, where neither curve passes
    ax.annotate(r"$B_\mathrm{g} = B_\mathrm{crit}$", (1.0, 12), xytext=(5, 0), textcoords="offset points", fontsize=8,
                color=COLORS["grey"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"global batch / critical batch, $B_\mathrm{g}/B_\mathrm{crit}$")
    ax.set_ylabel("cost to reach the target loss")
    ax.legend(loc="upper center")
    return ax


def cluster_efficiency(fig, n_params, global_batch, critical_batch, gpu_counts=None):
    """Scaling efficiency against cluster size for a model, as laid out by
    :func:`scalinglib.layout.parallel_layout`: the data-parallel zone up to the cap, then the
    model-parallel zone. Cluster sizes where the model cannot be laid out are greyed: on the left
    too few GPUs to hold it, on the right more pipeline stages than it has layers. Returns the axes."""
    if gpu_counts is None:
        gpu_counts = 2 ** np.arange(3, 15)   # 8 ... 16,384 GPUs
    sweep = layout_sweep(gpu_counts, n_params, global_batch, critical_batch)
    ax = style_axes(fig.subplots())
    fits = sweep["fits"]
    g = sweep["n_gpus"]
    too_small = g < sweep["min_gpus"]
    too_deep = ~fits & ~too_small
    ax.plot(g[fits], sweep["efficiency"][fits], marker="o", markersize=3.5, color=COLORS["blue"],
            label="scaling efficiency")
    if fits.any():
        first_fit, last_fit = g[fits][0], g[fits][-1]
        # where data parallelism reaches its cap (the run's batch has reached the critical batch)
        dp_limit = 2 ** np.floor(np.log2(np.maximum(sweep["dp_cap"], 1)))
        at_cap = fits & (sweep["dp"] >= dp_limit)
        cap_gpus = g[at_cap][0] if at_cap.any() else None
        ax.axvspan(first_fit, cap_gpus if cap_gpus else last_fit, color=COLORS["green"], alpha=0.08, lw=0)
        if cap_gpus:
            ax.axvline(cap_gpus, color=COLORS["vermillion"], linestyle=":", linewidth=1.5,
                       label=f"DP cap reached: {cap_gpus:,} GPUs")
            ax.axvspan(cap_gpus, last_fit, color=COLORS["vermillion"], alpha=0.06, lw=0)
        if (sweep["batch_over_limit"] & fits).any():
            ax.annotate("one replica's batch is already\npast the critical batch", (0.5, 0.55),
                        xycoords="axes fraction", ha="center", fontsize=8, color=COLORS["vermillion"])
    # the labels sit high (y = 0.8), clear of the legend in the lower left and of the curve
    if too_small.any():
        ax.axvspan(g[0], g[~too_small][0] if (~too_small).any() else g[-1], color=COLORS["grey"], alpha=0.15, lw=0)
        ax.annotate("model does\nnot fit", (g[0], 0.8), xytext=(3, 0), textcoords="offset points", fontsize=8,
                    color=COLORS["grey"])
    if too_deep.any():
        ax.axvspan(g[fits][-1] if fits.any() else g[too_deep][0], g[-1], color=COLORS["grey"], alpha=0.15, lw=0)
        ax.annotate("more stages\nthan layers", (g[-1], 0.8), xytext=(-3, 0), textcoords="offset points",
                    ha="right", fontsize=8, color=COLORS["grey"])
    ax.axhline(1.0, **IDEAL)
    log2_axis(ax, "x")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{_count(n_params)} parameters ({sweep['layers'][0]} layers), "
                 f"largest batch {_count(global_batch)} tokens, B_crit {_count(critical_batch)} tokens",
                 fontsize=9, fontweight="normal")
    ax.set_xlabel("GPUs in the cluster")
    ax.set_ylabel("scaling efficiency E")
    ax.legend(loc="lower left")
    return ax
