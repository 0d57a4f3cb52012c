"""Figures of Section 3.9: utilization, the cost of a result, serving, the critical-batch bill, the capstone."""

from __future__ import annotations

import html

import numpy as np
from matplotlib.ticker import LogLocator

from ..cost import (
    break_even_utilization,
    cost_per_million_tokens,
    critical_batch_cost,
    device_decode_rate,
    max_decode_batch,
    training_cost,
)
from ..plots import COLORS, IDEAL, log2_axis, style_axes
from ..runs import MEGATRON_WEAK_SCALING, MFU_RUNS
from .s3_3 import _count

#: Prices per device-hour shown side by side in the capstone table: assumptions, not quotes.
CAPSTONE_PRICES = (2.0, 3.0, 4.0)
#: Device counts shown side by side in the capstone table.
CAPSTONE_DEVICES = (512, 2048, 8192)


def mfu_comparison(fig, runs=MFU_RUNS):
    """Horizontal bars: each run's MFU as printed and as recomputed, drawn against the 100% it paid for.
    Returns the axes."""
    ax = style_axes(fig.subplots())
    names = [run.name for run in runs]
    y = np.arange(len(runs))[::-1]
    printed = np.array([100 * run.reported_mfu for run in runs])
    again = np.array([100 * run.recomputed_mfu() for run in runs])
    ax.barh(y, np.full(len(runs), 100.0), height=0.7, color="#EEEEEE", zorder=1)
    ax.barh(y + 0.17, printed, height=0.32, color=COLORS["blue"], label="as printed (PaLM, table 3)", zorder=2)
    ax.barh(y - 0.17, again, height=0.32, color=COLORS["orange"], hatch="//", edgecolor="white",
            label="recomputed from throughput and shape", zorder=2)
    for yi, p, a in zip(y, printed, again):
        ax.text(max(p, a) + 1.5, yi, f"{p:.1f}% | {a:.2f}%", va="center", fontsize=8, color="#333333")
    ax.set_yticks(y, [f"{name}\n{_count(run.n_params)}, {run.device}" for name, run in zip(names, runs)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("model FLOPs utilization (% of peak)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8)
    return ax


def megatron_weak_scaling(fig, rows=MEGATRON_WEAK_SCALING, peak=312e12):
    """Per-GPU throughput of Megatron-LM's table 1 against the number of GPUs: as reported (counting
    recomputation) and in model FLOPs (PaLM's definition), with the A100 peak. Returns the axes."""
    ax = style_axes(fig.subplots())
    gpus = np.array([r.n_gpus for r in rows])
    reported = np.array([r.tflops_per_gpu for r in rows], dtype=float)
    model = np.array([r.mfu(peak) * peak / 1e12 for r in rows])
    ax.axhline(peak / 1e12, label=f"A100 peak, {peak / 1e12:.0f} TFLOP/s", **IDEAL)
    ax.plot(gpus, reported, marker="o", markersize=4, color=COLORS["blue"],
            label="achieved, counting recomputation (table 1)")
    ax.plot(gpus, model, marker="s", markersize=4, color=COLORS["green"], linestyle="--",
            label="model FLOPs only (PaLM's definition)")
    for i, (g, x, r) in enumerate(zip(gpus, reported, rows)):
        ax.annotate(f"{r.params_billion:g}B", (g, x), xytext=(0, 7 if i % 2 == 0 else 17),
                    textcoords="offset points", fontsize=7, ha="center", color="#333333")
    log2_axis(ax, "x")
    ax.set_ylim(0, 340)
    ax.set_xlabel("GPUs (the model grows with them)")
    ax.set_ylabel("TFLOP/s per GPU")
    ax.legend(loc="lower right", fontsize=8)
    return ax


def cost_vs_utilization(fig, price=3.0, tokens_per_second=1000.0, api_prices=(1.0, 2.0)):
    """Self-hosted cost per million tokens against utilization (a 1/u curve), with API prices and the
    break-even utilization of each. Returns the axes."""
    ax = style_axes(fig.subplots())
    u = np.linspace(0.05, 1.0, 200)
    ax.plot(100 * u, cost_per_million_tokens(price, tokens_per_second, u), color=COLORS["blue"],
            label=fr"self-hosted: \${price:g}/hour at {tokens_per_second:,.0f} tokens/s")
    full = cost_per_million_tokens(price, tokens_per_second)
    ax.plot([40], [cost_per_million_tokens(price, tokens_per_second, 0.4)], marker="o", color=COLORS["black"],
            linestyle="none")
    # the note sits up and to the right of its dot, clear of the curve and of the break-even labels
    ax.annotate(f"40% busy: {1 / 0.4:g} x the\nbenchmark's \\${full:.2f}", (40, full / 0.4), xytext=(24, 22),
                textcoords="offset points", fontsize=8, va="bottom",
                arrowprops={"arrowstyle": "-", "color": COLORS["black"], "linewidth": 0.8, "shrinkB": 4})
    styles = [(COLORS["vermillion"], ":"), (COLORS["green"], "-.")]
    for (color, style), api in zip(styles, api_prices):
        ax.axhline(api, color=color, linestyle=style, linewidth=1.5, label=fr"API at \${api:g} per million")
        u_star = break_even_utilization(price, tokens_per_second, api)
        if u_star <= 1:
            ax.axvline(100 * u_star, color=color, linestyle=style, linewidth=1.0, alpha=0.7)
            # below the API line, left of the break-even line: under the curve, where nothing else is drawn
            ax.annotate(f"break-even {u_star:.0%}", (100 * u_star, api), xytext=(-4, -5), ha="right", va="top",
                        textcoords="offset points", fontsize=8, color=color)
    # room above the dearest API line for the legend
    ax.set_ylim(0, max(5 * full, 1.3 * max(api_prices, default=0)))
    ax.set_xlim(0, 100)
    ax.set_xlabel("utilization U (% of paid hours busy)")
    ax.set_ylabel(r"\$ per million tokens")
    ax.legend(loc="upper right", fontsize=8)
    return ax


def serving_batch(fig, n_params=7e9, context_tokens=1024, price=3.0, device="H100 SXM 80GB"):
    """Left: decode throughput against the batch. Right: the cost per million tokens it implies at a given
    hourly price. Returns the two axes."""
    ax_r, ax_c = fig.subplots(1, 2)
    for ax in (ax_r, ax_c):
        style_axes(ax)
    b_max = max_decode_batch(n_params, context_tokens, device=device)
    b = 2 ** np.arange(0, int(np.log2(b_max)) + 1)
    rate = device_decode_rate(b, n_params, context_tokens, device=device)
    ax_r.plot(b, rate, marker="o", markersize=4, color=COLORS["blue"], label="roofline estimate")
    ax_r.plot(b, b * rate[0], label="if every sequence were free", **IDEAL)
    for ax in (ax_r, ax_c):
        ax.axvline(b_max, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    ax_r.annotate(f"memory full\nat {b_max}", (b_max, 0.05 * rate[-1]), xytext=(-4, 0), textcoords="offset points",
                  ha="right", fontsize=8, color=COLORS["grey"])
    log2_axis(ax_r, "x")
    ax_r.set_ylim(0, 1.25 * rate[-1])
    ax_r.set_xlabel("sequences decoded together (batch)")
    ax_r.set_ylabel("tokens/s per device")
    ax_r.legend(loc="upper left", fontsize=8)
    ax_c.plot(b, cost_per_million_tokens(price, rate), marker="o", markersize=4, color=COLORS["vermillion"],
              label="cost per million tokens")
    log2_axis(ax_c, "both")
    ax_c.set_xlabel("sequences decoded together (batch)")
    ax_c.set_ylabel(fr"\$ per million tokens at \${price:g}/hour")
    return ax_r, ax_c


def demand_sizing(fig, demand, tokens_per_second_per_device, peak_devices, sustained_devices):
    """A day of demand (tokens/s, one value per hour) against the capacity of a cluster sized for the
    peak and of one sized for the sustained demand. Returns the axes."""
    ax = style_axes(fig.subplots())
    hours = np.arange(len(demand) + 1)
    steps = np.append(demand, demand[-1])
    ax.fill_between(hours, steps / 1e3, step="post", color=COLORS["sky"], alpha=0.35, lw=0)
    ax.step(hours, steps / 1e3, where="post", color=COLORS["blue"], label="demand")
    for count, color, style, what in ((peak_devices, COLORS["vermillion"], "--", "sized for the peak"),
                                      (sustained_devices, COLORS["green"], "-.", "sized for the sustained demand")):
        ax.axhline(count * tokens_per_second_per_device / 1e3, color=color, linestyle=style, linewidth=1.6,
                   label=f"{count} devices, {what}")
    # the demand the sustained fleet cannot serve: shaded between its capacity and the demand
    capacity = sustained_devices * tokens_per_second_per_device
    ax.fill_between(hours, capacity / 1e3, np.maximum(steps, capacity) / 1e3, step="post",
                    facecolor=COLORS["orange"], alpha=0.55, hatch="///", edgecolor=COLORS["vermillion"], lw=0,
                    label="above the sustained fleet: sent to the API")
    ax.set_xlim(0, len(demand))
    ax.set_xticks(range(0, len(demand) + 1, 3))
    ax.set_ylim(0, None)
    ax.set_xlabel("hour of the day")
    ax.set_ylabel("thousand tokens/s")
    # above the axes, where it hides none of the day
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=8)
    return ax


def critical_batch_bill(fig, n_params, critical_batch, gpu_counts=None, exposed_allreduce=True):
    """The critical-batch wall in money. Left: GPU-time to reach the target loss, relative to the least
    possible. Right: the time to reach it, relative to the smallest cluster shown that holds the model
    (128 GPUs by default, the capstone's smallest). Each cluster is laid out by the search
    (:func:`scalinglib.layout_search.search_layout`, time to the target), once on one HDR port per GPU and once
    on AWS p4de's network; a third line keeps Section 3.3.7's fixed policy (split the model past the
    data-parallel cap) on HDR ports, with the exposed all-reduce unless ``exposed_allreduce`` is False.
    Returns the axes."""
    from ..layout_search import A100_NETWORKS

    if gpu_counts is None:
        gpu_counts = 2 ** np.arange(7, 15)
    lines = [
        ("searched, one HDR port per GPU", critical_batch_cost(
            gpu_counts, n_params, critical_batch, search=True,
            port_bandwidth=A100_NETWORKS["one HDR port per GPU"][0]), COLORS["blue"], "-", "o"),
        ("searched, AWS p4de network", critical_batch_cost(
            gpu_counts, n_params, critical_batch, search=True,
            port_bandwidth=A100_NETWORKS["AWS p4de EFA"][0]), COLORS["vermillion"], "--", "s"),
        ("fixed policy, HDR ports", critical_batch_cost(
            gpu_counts, n_params, critical_batch, exposed_allreduce=exposed_allreduce), COLORS["grey"], ":", "^"),
    ]
    ax_c, ax_t = fig.subplots(1, 2)
    for ax in (ax_c, ax_t):
        style_axes(ax)
    fits = lines[0][1]["fits"] & lines[1][1]["fits"] & lines[2][1]["fits"]
    g = lines[0][1]["n_gpus"][fits]
    first = np.argmax(fits)
    base = lines[0][1]["time_factor"][first]
    for label, out, color, style, marker in lines:
        ax_c.plot(g, out["cost_factor"][fits], marker=marker, markersize=3.5, color=color, linestyle=style,
                  label=label)
        ax_t.plot(g, base / out["time_factor"][fits], marker=marker, markersize=3.5, color=color, linestyle=style)
    ax_c.axhline(1.0, **IDEAL)
    for ax in (ax_c, ax_t):
        log2_axis(ax, "x")
        ax.xaxis.set_major_locator(LogLocator(base=4))   # every other power of two: labels that do not collide
        ax.set_xlabel("GPUs")
    log2_axis(ax_c, "y")
    ax_c.set_ylabel("GPU-time to target (x minimum)")
    ax_c.legend(loc="upper left", fontsize=7)
    ax_t.plot(g, g / g[0], label="ideal: twice as fast per doubling", **IDEAL)
    log2_axis(ax_t, "y")
    ax_t.set_ylabel(f"speed-up to target over {g[0]:,} GPUs")
    ax_t.legend(loc="upper left", fontsize=8)
    fig.suptitle(f"{_count(n_params)} parameters, critical batch {_count(critical_batch)} tokens", fontsize=9)
    return ax_c, ax_t


def training_bill(fig, n_params, n_devices, utilization, *, tokens_per_param=20.0, device="H100 SXM 80GB",
                  mfu=0.4, price=3.0):
    """The capstone: days and dollars of a training run, and where the paid device-hours go (useful
    model FLOPs, the rest of the running time, idle). Returns the axes of the bar."""
    tokens = tokens_per_param * n_params
    run = training_cost(n_params, tokens, n_devices, price, device=device, mfu=mfu, utilization=utilization)
    top, bar = fig.subplots(2, 1, height_ratios=[1.1, 1.0])
    top.axis("off")
    top.text(0.0, 0.92, f"{_count(n_params)} parameters on {_count(tokens)} tokens, {n_devices:,} x {device}",
             fontsize=9.5, va="top", color="#333333")
    duration, unit = _duration(run.days)
    numbers = (
        (duration, f"calendar {unit}"),
        (_money(run.dollars), "total"),
        (fr"\${run.dollars_per_million_tokens:,.2f}", "per million tokens"),
    )
    for i, (value, label) in enumerate(numbers):
        top.text(0.02 + 0.34 * i, 0.42, value, fontsize=17, fontweight="bold", color=COLORS["blue"], va="center")
        top.text(0.02 + 0.34 * i, 0.05, label, fontsize=8.5, color="#333333", va="center")
    style_axes(bar)
    parts = (
        (run.dollars * mfu * utilization, "useful model FLOPs", COLORS["green"]),
        (run.dollars * (1 - mfu) * utilization, "running, not useful", COLORS["orange"]),
        (run.dollars * (1 - utilization), "paid, idle", COLORS["grey"]),
    )
    left = 0.0
    for value, label, color in parts:
        bar.barh([0], [value], left=left, height=0.6, color=color, label=f"{label}: {_money(value)}")
        left += value
    bar.set_xlim(0, run.dollars * 1.001)
    bar.set_yticks([])
    bar.grid(visible=False)
    bar.spines["left"].set_visible(False)
    bar.set_xlabel(f"where the dollars go (MFU {mfu:.0%}, utilization {utilization:.0%}, "
                   fr"\${price:g} per device-hour)", fontsize=8.5)
    bar.xaxis.set_major_formatter(lambda x, _pos: _money(x, trailing_zeros=False))
    bar.legend(loc="upper center", bbox_to_anchor=(0.5, -0.7), ncol=3, fontsize=7.5, frameon=False)
    return bar


# Inline styles (not a style sheet), so that the tables look the same in JupyterLab and on the static site,
# whatever either does to a bare <table>. Both tables share one width and first column, so their columns line up.
_TABLE_STYLE = ("border-collapse:collapse;table-layout:fixed;width:38em;max-width:100%;margin:.6em 0;"
                "line-height:1.4;font-variant-numeric:tabular-nums")
_PAD = "padding:.2em .8em"
_HEAD = f"{_PAD};border-bottom:1px solid currentColor;text-align:right"
_CORNER = f"{_PAD};border-bottom:1px solid currentColor;text-align:left;width:14em"
_ROW = f"{_PAD};text-align:left;font-weight:normal"
_NUM = f"{_PAD};text-align:right"


def _table(corner, heads, rows):
    """One small table: a header row (``corner`` over the row labels, then ``heads``), then ``rows`` of
    (label, cells), numbers right-aligned."""
    head = f'<th scope="col" style="{_CORNER}">{corner}</th>' + "".join(
        f'<th scope="col" style="{_HEAD}">{h}</th>' for h in heads)
    body = "".join(
        f'<tr><th scope="row" style="{_ROW}">{label}</th>' + "".join(f'<td style="{_NUM}">{c}</td>' for c in cells)
        + "</tr>" for label, cells in rows)
    return f'<table style="{_TABLE_STYLE}"><tr>{head}</tr>{body}</table>'


def capstone_table(n_params, tokens_per_param, device, mfu, utilization, *, device_counts=CAPSTONE_DEVICES,
                   prices=CAPSTONE_PRICES):
    """One frame of the capstone calculator, as small HTML tables: a training run's calendar time on each
    number of devices (a column per count), its device-hours, and its dollars and dollars per million
    tokens at each hourly price (a column per price). Every number comes from
    :func:`scalinglib.cost.training_cost`; at a fixed MFU the device-hours and dollars do not depend on
    the number of devices, so they are shown once. The tables carry inline styles (padding, right-aligned
    numbers, a rule under the header, one width for both). Returns the HTML string."""
    tokens = tokens_per_param * n_params
    by_count = [training_cost(n_params, tokens, k, prices[0], device=device, mfu=mfu, utilization=utilization)
                for k in device_counts]
    by_price = [training_cost(n_params, tokens, device_counts[0], price, device=device, mfu=mfu,
                              utilization=utilization) for price in prices]
    times = [" ".join(_duration(r.days)) for r in by_count]
    totals = [_money(r.dollars).replace("\\", "") for r in by_price]
    per_m = [f"${r.dollars_per_million_tokens:,.2f}" for r in by_price]
    return (
        f"<p>{_count(n_params)} parameters on {_count(tokens)} tokens, {html.escape(str(device))}: "
        f"<b>{by_price[0].device_hours:,.0f} device-hours</b> however many devices share them</p>"
        + _table("devices", [f"{k:,}" for k in device_counts], [("calendar time", times)])
        + _table("price per device-hour", [f"${price:g}" for price in prices],
                 [("total", totals), ("per million tokens", per_m)])
    )


def _duration(days: float) -> tuple[str, str]:
    """A run's calendar time as (number, unit): minutes below one hour, hours below one day, else days.

    >>> _duration(9.33), _duration(1234.5), _duration(0.0417), _duration(0.0185)
    (('9.3', 'days'), ('1,234', 'days'), ('1.0', 'hours'), ('27', 'minutes'))
    """
    hours = 24 * days
    if round(hours, 1) < 1:
        return f"{60 * hours:.0f}", "minutes"
    if round(hours, 1) < 24:
        return f"{hours:.1f}", "hours"
    return (f"{days:,.1f}" if round(days, 1) < 1000 else f"{days:,.0f}"), "days"


def _sig3(x: float, trailing_zeros: bool = True) -> str:
    """Three significant figures: 2.5 -> '2.50' (or '2.5' without trailing zeros), 917 -> '917'."""
    if trailing_zeros:
        return f"{x:#.3g}".rstrip(".")
    return f"{x:.3g}"


def _money(dollars: float, trailing_zeros: bool = True) -> str:
    """1234 -> '$1.23k', 2.5e6 -> '$2.50M' (three significant figures, so that a row reads evenly), escaped
    so that matplotlib does not read '$' as math. ``trailing_zeros=False`` gives '$2.5M' (axis ticks)."""
    rounded = float(f"{dollars:.3g}")          # round first, so that 999,600 becomes '$1.00M', not '$1.00e+03k'
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(rounded) >= scale:
            return fr"\${_sig3(rounded / scale, trailing_zeros)}{suffix}"
    return fr"\${dollars:,.0f}"
