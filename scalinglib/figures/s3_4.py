"""Figures of Section 3.4: the latency hockey stick, fan-out, hedged requests, stragglers, batching."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullLocator

from ..latency import (
    expected_slowest_step,
    fanout_slow_probability,
    mm1_mean_response,
    mm1_response_percentile,
    simulate_hedged_requests,
    simulate_slowest_step,
)
from ..plots import COLORS, IDEAL, log2_axis, style_axes
from ..serving import decode_profile, get_decoder

#: The percentiles the section reports, as quantiles.
QUANTILES = {"p50": 0.5, "p99": 0.99, "p99.9": 0.999}


def _ms(seconds):
    return np.asarray(seconds) * 1e3


def latency_vs_utilization(fig, utilization, service_time=0.010, rho_max=0.98):
    """Left: mean, p99 and p99.9 response time of an M/M/1 queue against utilization, with the
    chosen utilization marked. Right: the share of requests slower than t at that utilization
    (log scale), with the percentiles marked. The log axes carry labelled ticks only (no minor
    ticks), which keeps a slider's frames quick to draw. Returns the two axes."""
    mu = 1.0 / service_time
    rho = np.linspace(0.0, rho_max, 200)
    ax_c, ax_d = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    for ax in (ax_c, ax_d):
        style_axes(ax)
    ax_c.plot(rho, _ms(mm1_mean_response(rho * mu, mu)), color=COLORS["blue"], label="mean")
    ax_c.plot(rho, _ms(mm1_response_percentile(0.99, rho * mu, mu)), color=COLORS["vermillion"],
              linestyle="--", label="p99")
    ax_c.plot(rho, _ms(mm1_response_percentile(0.999, rho * mu, mu)), color=COLORS["purple"],
              linestyle="-.", label="p99.9")
    here = {name: float(mm1_response_percentile(q, utilization * mu, mu)) for name, q in QUANTILES.items()}
    mean_here = float(mm1_mean_response(utilization * mu, mu))
    for value, color in ((mean_here, COLORS["blue"]), (here["p99"], COLORS["vermillion"]),
                         (here["p99.9"], COLORS["purple"])):
        ax_c.plot([utilization], [value * 1e3], marker="o", markersize=6, color=color, linestyle="none")
    ax_c.axvline(utilization, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    ax_c.set_yscale("log")
    ax_c.set_ylim(service_time * 1e3 * 0.5, service_time * 1e3 * 500)
    low, high = ax_c.get_ylim()
    ticks = [t for t in (1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000) if low <= t <= high]
    ax_c.set_yticks(ticks, [f"{t:,}" for t in ticks])
    ax_c.yaxis.set_minor_locator(NullLocator())
    ax_c.set_xlim(0, 1)
    ax_c.set_xlabel(r"utilization $U = \lambda / \mu$")
    ax_c.set_ylabel("response time (ms, log scale)")
    ax_c.legend(loc="upper left", fontsize=8)

    t = np.linspace(0, service_time * 500, 400)
    survival = np.exp(-(mu - utilization * mu) * t)       # P(T > t) for the exponential response time
    ax_d.plot(_ms(t), survival, color=COLORS["green"])
    for (name, value), color in zip(here.items(), (COLORS["blue"], COLORS["vermillion"], COLORS["purple"])):
        ax_d.axvline(value * 1e3, color=color, linestyle=":", linewidth=1.2)
        ax_d.annotate(f"{name} {value * 1e3:,.0f} ms", (value * 1e3, 1 - QUANTILES[name]), xytext=(5, 3),
                      textcoords="offset points", fontsize=7.5, color=color,
                      bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax_d.set_yscale("log")
    ax_d.set_ylim(1e-4, 1.2)
    ax_d.set_yticks([1e-4, 1e-3, 1e-2, 1e-1, 1.0], ["0.01%", "0.1%", "1%", "10%", "100%"])
    ax_d.yaxis.set_minor_locator(NullLocator())
    ax_d.set_xlim(0, max(here["p99.9"] * 1e3 * 1.6, service_time * 1e3 * 10))
    ax_d.set_xlabel("response time t (ms)")
    ax_d.set_ylabel("share of requests slower than t")
    ax_d.set_title(f"utilization {utilization:.0%}: mean {mean_here * 1e3:,.0f} ms", fontsize=9.5,
                   fontweight="normal")
    return ax_c, ax_d


def label_heights(values, gap=0.075):
    """Heights for labels of the points ``values`` (0 to 1) that keep neighbours ``gap`` apart.

    Labels start at their point and are pushed down, from the highest, just enough to clear the one
    above; if the lowest would then fall below 0, the stack is lifted back."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    heights = [0.0] * len(values)
    previous = None
    for i in order:
        y = values[i] if previous is None else min(values[i], previous - gap)
        heights[i] = previous = y
    lift = max(0.0, 0.02 - min(heights, default=0.0))
    return [h + lift for h in heights]


def fanout(fig, n, p_values=(0.01, 0.001, 0.0001), n_max=10_000):
    """The probability that a request fanned out to K = ``n`` servers meets at least one slow server,
    against K (log axis), for several per-server probabilities, with the chosen K marked. Returns the axes."""
    ns = np.unique(np.round(np.logspace(0, np.log10(n_max), 200)).astype(int))
    ax = style_axes(fig.subplots())
    colors = (COLORS["vermillion"], COLORS["blue"], COLORS["green"], COLORS["purple"])
    styles = ("-", "--", "-.", ":")
    values = [float(fanout_slow_probability(p, n)) for p in p_values]
    for p, value, color, style in zip(p_values, values, colors, styles):
        ax.plot(ns, fanout_slow_probability(p, ns), color=color, linestyle=style,
                label=f"1 server in {1 / p:,.0f} slow")
        ax.plot([n], [value], marker="o", markersize=6, color=color, linestyle="none")
    for value, color, y in zip(values, colors, label_heights(values)):
        text = f"{value:.2%}" if 0 < value < 0.001 else f"{value:.1%}"
        ax.annotate(text, (n, value), xytext=(n * 1.12, y), textcoords="data", fontsize=8,
                    color=color, va="center", annotation_clip=False,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax.axvline(n, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    ax.set_xscale("log")
    ax.set_xlim(1, n_max)
    ticks = [t for t in (1, 10, 100, 1000, 10_000, 100_000) if t <= n_max]
    ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("servers each request waits for (fan-out K, log scale)")
    ax.set_ylabel("share of requests that are slow")
    ax.set_title(f"fan-out K = {n:,}", fontsize=9.5, fontweight="normal")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def hedged_latency(fig, hedge_quantile=0.95, seed=0, n_requests=200_000):
    """The share of requests slower than t, without and with a hedge sent at the given quantile of
    the latency, from :func:`scalinglib.latency.simulate_hedged_requests`. Returns the axes."""
    result = simulate_hedged_requests(n_requests, hedge_quantile, seed)
    ax = style_axes(fig.subplots())
    for data, color, style, label in ((result.baseline, COLORS["vermillion"], "-", "one request"),
                                      (result.hedged, COLORS["blue"], "--",
                                       f"hedged after {result.delay * 1e3:.1f} ms "
                                       f"(second copies for {result.extra_load:.1%} of requests)")):
        xs = np.sort(data)
        share = 1.0 - np.arange(1, xs.size + 1) / xs.size
        keep = share > 0
        ax.plot(_ms(xs[keep]), share[keep], color=color, linestyle=style, label=label)
    ax.axvline(result.delay * 1e3, color=COLORS["grey"], linestyle=":", linewidth=1.2)
    for name in ("p99", "p99.9"):
        ax.axhline(1 - QUANTILES[name], color=COLORS["grey"], linewidth=0.8, alpha=0.6)
        ax.annotate(name, (3.3, 1 - QUANTILES[name]), xytext=(0, 2), textcoords="offset points",
                    fontsize=7.5, color=COLORS["grey"], ha="left")     # left, where no curve is that low
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(3, 3e3)
    ax.set_ylim(1e-5, 1.2)
    ax.set_xlabel("latency t (ms, log scale)")
    ax.set_ylabel("share of requests slower than t")
    ax.legend(loc="lower left", fontsize=8)
    return ax


def stragglers(fig, base_time=1.0, jitter=0.05, k_max=4096, seed=0, n_steps=500):
    """Left: expected time of a synchronous step against the number of workers, the closed form for
    exponential jitter with seeded Monte-Carlo points for exponential jitter and for Gaussian jitter of
    the same mean and standard deviation (both ``jitter``), and with one backup worker per 32. Right: the resulting efficiency, a worker's mean time over the
    step time, times K/(K + r) with r backups (their work is paid for and thrown away). Returns the two axes."""
    ks = 2 ** np.arange(int(np.log2(k_max)) + 1)
    closed = expected_slowest_step(ks, base_time, jitter)
    mc_exp = [simulate_slowest_step(k, base_time, jitter, n_steps, seed).mean() for k in ks]
    # Gaussian delays with mean tau (the base time shifted by tau) and standard deviation tau, like the exponential
    mc_gauss = [simulate_slowest_step(k, base_time + jitter, jitter, n_steps, seed, model="gaussian").mean()
                for k in ks]
    big = ks >= 32                       # backups: one extra worker per 32, from 32 workers up
    backups = ks[big] // 32
    with_backups = expected_slowest_step(ks[big], base_time, jitter, backups=backups)
    ax_t, ax_e = fig.subplots(1, 2)
    for ax in (ax_t, ax_e):
        style_axes(ax)
    ax_t.plot(ks, closed, color=COLORS["blue"], label=r"exponential jitter: $t_0 + \tau H_K$")
    ax_t.plot(ks, mc_exp, marker="o", markersize=4, linestyle="none", color=COLORS["blue"],
              label="exponential, simulated")
    ax_t.plot(ks, mc_gauss, marker="s", markersize=4, linestyle="none", color=COLORS["orange"],
              label=r"Gaussian, mean and s.d. $\tau$, simulated")
    ax_t.plot(ks[big], with_backups, color=COLORS["green"], linestyle="-.", label="exponential, K/32 backups")
    ax_t.axhline(base_time + jitter, label=r"one worker alone: $t_0 + \tau$", **IDEAL)
    log2_axis(ax_t, "x")
    ax_t.set_xlabel("workers K")
    ax_t.set_ylabel("expected step time (s)")
    ax_t.legend(loc="upper left", fontsize=7.5)
    mean_worker = base_time + jitter
    ax_e.plot(ks, mean_worker / closed, color=COLORS["blue"],
              label=r"no backups: $(t_0 + \tau)\,/\,\mathbb{E}[T_\mathrm{step}]$")
    # with backups, K + r workers are paid for K workers' results
    ax_e.plot(ks[big], ks[big] * mean_worker / ((ks[big] + backups) * with_backups), color=COLORS["green"],
              linestyle="-.", label=r"$r = K/32$ backups: $\frac{K}{K + r}\,(t_0 + \tau)\,/\,\mathbb{E}[T_\mathrm{step}]$")
    log2_axis(ax_e, "x")
    ax_e.set_ylim(0.5, 1.02)
    ax_e.set_xlabel("workers K")
    ax_e.set_ylabel("efficiency")
    ax_e.legend(loc="lower left", fontsize=8)
    return ax_t, ax_e


def batching(fig, model="Llama-3-8B", device="A100 SXM 80GB", context=2048, batch_max=256):
    """Left: decode throughput (tokens/s) against batch size, with the ideal line (throughput
    proportional to the batch) and the largest batch that fits in memory. Right: time per decode step,
    the latency every sequence feels per token. Returns the two axes."""
    batches = 2 ** np.arange(int(np.log2(batch_max)) + 1)
    prof = decode_profile(batches, model, device, context)
    fits = prof["fits"]
    ax_x, ax_l = fig.subplots(1, 2)
    for ax in (ax_x, ax_l):
        style_axes(ax)
    ax_x.plot(batches, prof["tokens_per_s"][0] * batches, label="if time per step stayed flat", **IDEAL)
    ax_x.plot(batches[fits], prof["tokens_per_s"][fits], marker="o", markersize=4, color=COLORS["blue"],
              label="model: max(memory, compute) time")
    if not fits.all():
        ax_x.plot(batches[~fits], prof["tokens_per_s"][~fits], marker="o", markersize=4, color=COLORS["blue"],
                  alpha=0.3, linestyle=":", label="does not fit in memory")
    if prof["max_batch"] < batches[-1]:
        ax_x.axvline(prof["max_batch"], color=COLORS["grey"], linestyle=":", linewidth=1.2)
        ax_x.annotate(f"memory full\nat b = {prof['max_batch']:,}", (prof["max_batch"], prof["tokens_per_s"][0]),
                      xytext=(-4, 0), textcoords="offset points", ha="right", fontsize=7.5, color=COLORS["grey"])
    log2_axis(ax_x, "both")
    ax_x.set_xlabel("batch size b (sequences)")
    ax_x.set_ylabel("tokens per second")
    ax_x.legend(loc="upper left", fontsize=7.5)
    ax_l.plot(batches[fits], _ms(prof["step_time"][fits]), marker="o", markersize=4, color=COLORS["vermillion"],
              label="time per step = per-token latency")
    ax_l.plot(batches, _ms(prof["memory_time"]), color=COLORS["grey"], linestyle="--", linewidth=1.2,
              label=r"memory time $(2N + b\,c_\mathrm{kv})/B$")
    ax_l.plot(batches, _ms(prof["compute_time"]), color=COLORS["green"], linestyle=":", linewidth=1.5,
              label=r"compute time $b\,F/P$")
    log2_axis(ax_l, "x")
    ax_l.set_yscale("log")
    ax_l.set_xlabel("batch size b (sequences)")
    ax_l.set_ylabel("ms per decode step")
    ax_x.set_title(f"{get_decoder(model).name}, {context:,}-token context", fontsize=9, fontweight="normal")
    ax_l.legend(loc="upper left", fontsize=7.5)
    return ax_x, ax_l
