"""The drawing functions of Sections 3.2 and 3.4 plot exactly what the models compute, and every slider
position used by the notebooks draws."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import scalinglib as sl
from scalinglib.figures import s3_2, s3_4
from scalinglib.widgets import choice, render_frames

#: The slider positions of the two notebooks (kept in step with them by test_slider_values_match_the_notebooks).
MODEL_SIZES = [1e9, 3e9, 7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12, 2e12]
UTILIZATIONS = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98]
FANOUTS = [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]


def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


# --- Section 3.2 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n_params", MODEL_SIZES)
def test_devices_needed_bars_are_the_device_counts(fig, n_params):
    ax = s3_2.devices_needed(fig, n_params)
    bars = [patch.get_height() for patch in ax.patches]
    names = list(sl.CATALOG)
    train = [sl.devices_to_hold(n_params, "train_mixed_adam", sl.CATALOG[d].memory_bytes) for d in names]
    serve = [sl.devices_to_hold(n_params, "infer_fp16", sl.CATALOG[d].memory_bytes) for d in names]
    assert bars == train + serve
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A100", "H100", "H200", "MI300X", "TPU v4", "TPU v5e",
                                                             "TPU v5p"]
    server = [c for c in ax.collections if c.get_label() == "one 8-GPU server (GPUs only)"]
    assert len(server) == 1
    (start, level), (end, _) = server[0].get_segments()[0]
    gpus = [i for i, d in enumerate(names) if sl.CATALOG[d].kind == "GPU"]
    assert level == 8 and start == min(gpus) - 0.5 and end == max(gpus) + 0.5      # over the GPU bars only
    assert all(sl.CATALOG[d].kind == "TPU" for d in names[max(gpus) + 1:])


@pytest.mark.parametrize("n_params", [70e9, 2e12])
def test_devices_needed_legend_clears_the_bars(fig, n_params):
    """The legend sits above the axes, so it covers no bar and no bar label (the 2T frame included)."""
    fig.set_size_inches(6.4, 3.0)
    fig.set_layout_engine("constrained")
    ax = s3_2.devices_needed(fig, n_params)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    top_of_axes = ax.get_window_extent(renderer).y1
    assert legend.y0 >= top_of_axes - 1
    for text in ax.texts:
        assert not legend.overlaps(text.get_window_extent(renderer))


def test_bandwidth_hierarchy_bars_come_from_the_catalog(fig):
    ax = s3_2.bandwidth_hierarchy(fig, "H100")
    widths = sorted((patch.get_width() for patch in ax.patches), reverse=True)
    h100 = sl.get_accelerator("H100")
    expected = sorted([h100.memory_bandwidth, h100.link_bandwidth]
                      + [link.bandwidth for name, link in sl.LINKS.items() if not name.startswith("NVLink")],
                      reverse=True)
    np.testing.assert_allclose(widths, np.array(expected) / 1e9)
    assert s3_2.hierarchy_rows("H100")[0][0] == "HBM (H100)"


def test_hierarchy_of_a_device_without_a_documented_link(fig):
    rows = s3_2.hierarchy_rows("TPU v4")
    assert all("ICI" not in label for label, _, _ in rows)
    s3_2.bandwidth_hierarchy(fig, "TPU v4")


WORST = "NVLink in a server; beyond it, every ring hop on the network (worst case)"
RINGS = "beyond it, rings laid out node by node, one per port"


def test_tensor_parallel_placement_curves(fig):
    """Figure 3.2.2: two curves, the worst case and node-ordered rings (alpha = 0, like the formula)."""
    ax = s3_2.tensor_parallel_placement(fig, hidden=12288)
    lines = _lines(ax)
    assert set(lines) >= {WORST, RINGS} and len(fig.legends[0].get_texts()) == 2
    t, placed = lines[WORST]
    x = sl.layout.A100_ACHIEVED_FLOPS
    link = np.where(t <= 8, 300e9, 25e9)
    np.testing.assert_allclose(placed, 1 / (1 + sl.tensor_parallel_comm_fraction(t, 12288, x, link)))
    _, rings = lines[RINGS]
    # the node-ordered curve is the library's multiring all-reduce, four per layer, over the layer's compute
    for ti, e in zip(t, rings):
        n = 2 * 2048 * 12288
        nodes, per_node = max(ti // 8, 1), min(ti, 8)
        ring = sl.multiring_allreduce_time(n, nodes, per_node, 0.0, 1 / 300e9, 0.0, 1 / 25e9, nics=per_node)
        assert e == pytest.approx(1 / (1 + 4 * ring / (72 * 2048 * 12288**2 / (ti * x))), rel=1e-12)
    # the numbers of the text and caption: above 0.9 inside the server; at 16, 0.38 worst case and 0.83
    assert placed[t == 8][0] > 0.9 and round(placed[t == 16][0], 2) == 0.38
    assert [round(float(rings[t == k][0]), 2) for k in (16, 32, 64)] == [0.83, 0.70, 0.54]
    np.testing.assert_allclose(rings[t <= 8], placed[t <= 8])          # inside the server the layouts agree
    styles = {line.get_label(): (line.get_color(), line.get_linestyle()) for line in ax.get_lines()}
    assert styles[WORST] == (sl.COLORS["blue"], "-") and styles[RINGS] == (sl.COLORS["green"], "-.")
    assert [t.get_text() for t in fig.legends[0].get_texts()][0] == WORST


def test_tensor_parallel_placement_prices_latency_when_asked(fig):
    ax = s3_2.tensor_parallel_placement(fig, hidden=12288, alpha=5e-6)
    t, rings = _lines(ax)[RINGS + r", $\alpha = 5\ \mu$s per ring step"]
    assert [round(float(rings[t == k][0]), 2) for k in (16, 32, 64)] == [0.79, 0.59, 0.34]


def test_tensor_parallel_placement_refuses_bad_arguments(fig):
    for bad in (0, -4, 1, 2.5):
        with pytest.raises(ValueError, match="tp_max"):
            s3_2.tensor_parallel_placement(fig, tp_max=bad)
    with pytest.raises(ValueError, match="power of two"):
        s3_2.tensor_parallel_placement(fig, tp_max=100)                  # no longer cut silently to 64
    with pytest.raises(TypeError, match="tp_max"):
        s3_2.tensor_parallel_placement(fig, tp_max=[8, 16])
    with pytest.raises(ValueError, match="hidden"):
        s3_2.tensor_parallel_placement(fig, hidden=-1)
    with pytest.raises(ValueError, match="achieved_flops"):
        s3_2.tensor_parallel_placement(fig, achieved_flops=0)
    with pytest.raises(ValueError, match="gpus_per_node"):
        s3_2.tensor_parallel_placement(fig, gpus_per_node=0)
    with pytest.raises(ValueError, match="alpha"):
        s3_2.tensor_parallel_placement(fig, alpha=-1e-6)


def test_tensor_parallel_placement_draws_every_power_of_two(fig):
    ax = s3_2.tensor_parallel_placement(fig, tp_max=16)
    t, _ = _lines(ax)[WORST]
    assert t.tolist() == [1, 2, 4, 8, 16]


def test_tp_link_validates_and_switches_at_the_server():
    np.testing.assert_array_equal(s3_2.tp_link([1, 8, 16]), [300e9, 300e9, 25e9])
    assert s3_2.tp_link(16, network=50e9) == 50e9
    for kwargs, name in ((dict(nvlink=-1.0), "nvlink"), (dict(network=-25e9), "network"),
                         (dict(gpus_per_node=0), "gpus_per_node"), (dict(tp=0), "tp")):
        args = dict(tp=8) | kwargs
        with pytest.raises(ValueError, match=name):
            s3_2.tp_link(**args)
    with pytest.raises(TypeError, match="nvlink"):
        s3_2.tp_link(8, nvlink=[300e9, 450e9])


# --- Section 3.4 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("u", UTILIZATIONS)
def test_latency_vs_utilization_curves(fig, u):
    ax_c, ax_d = s3_4.latency_vs_utilization(fig, u)
    lines = _lines(ax_c)
    rho, mean_ms = lines["mean"]
    np.testing.assert_allclose(mean_ms, 1e3 * sl.mm1_mean_response(rho * 100, 100.0))
    np.testing.assert_allclose(lines["p99"][1], 1e3 * sl.mm1_response_percentile(0.99, rho * 100, 100.0))
    dots = [line for line in ax_c.get_lines() if line.get_marker() == "o"]
    assert [float(d.get_xdata()[0]) for d in dots] == [u, u, u]
    assert float(dots[0].get_ydata()[0]) == pytest.approx(1e3 * sl.mm1_mean_response(u * 100, 100.0))
    t_ms, share = [np.asarray(v) for v in (ax_d.get_lines()[0].get_xdata(), ax_d.get_lines()[0].get_ydata())]
    np.testing.assert_allclose(share, np.exp(-(100 - 100 * u) * t_ms / 1e3))


@pytest.mark.parametrize("n", FANOUTS)
def test_fanout_curves_and_markers(fig, n):
    ax = s3_4.fanout(fig, n)
    lines = _lines(ax)
    ns, p = lines["1 server in 100 slow"]
    np.testing.assert_allclose(p, sl.fanout_slow_probability(0.01, ns))
    marker = [line for line in ax.get_lines() if line.get_marker() == "o"][0]
    assert float(marker.get_ydata()[0]) == pytest.approx(sl.fanout_slow_probability(0.01, n))


def test_fanout_figure_marks_63_percent(fig):
    ax = s3_4.fanout(fig, 100)
    assert "63.4%" in [t.get_text() for t in ax.texts]


@pytest.mark.parametrize("n", FANOUTS)
def test_fanout_labels_never_overlap(fig, n):
    """At K = 10,000 two curves both read 100.0%: their labels are stacked, not drawn on top of each other."""
    ax = s3_4.fanout(fig, n)
    heights = sorted(t.get_position()[1] for t in ax.texts)
    assert len(heights) == 3
    assert all(b - a >= 0.075 - 1e-12 for a, b in zip(heights, heights[1:]))
    if n == 10_000:
        assert [t.get_text() for t in ax.texts].count("100.0%") == 2


@pytest.mark.parametrize("values", [[1.0, 0.99995, 0.632], [0.01, 0.001, 0.0001], [0.5, 0.2, 0.9], [0.3]])
def test_label_heights_keep_their_gap_and_stay_near_their_points(values):
    heights = s3_4.label_heights(values)
    order = np.argsort(values)[::-1]
    stacked = [heights[i] for i in order]
    assert all(a - b >= 0.075 - 1e-12 for a, b in zip(stacked, stacked[1:]))     # highest value labelled highest
    assert min(heights) >= 0.02 - 1e-12
    if all(abs(a - b) >= 0.075 for a in values for b in values if a != b) and min(values) >= 0.02:
        np.testing.assert_allclose(heights, values)                              # nothing to move


def test_hedged_latency_curves(fig):
    ax = s3_4.hedged_latency(fig, 0.95, seed=0, n_requests=20_000)
    (x1, y1), (x2, y2) = [(line.get_xdata(), line.get_ydata()) for line in ax.get_lines()[:2]]
    assert np.all(np.diff(y1) <= 0) and np.all(np.diff(y2) <= 0)
    r = sl.simulate_hedged_requests(20_000, 0.95, 0)
    assert x1[-1] == pytest.approx(1e3 * np.sort(r.baseline)[-2])
    assert x2[-1] <= x1[-1]
    assert f"second copies for {r.extra_load:.1%} of requests" in ax.get_legend_handles_labels()[1][1]
    # the hedged curve is dashed (the caption says so); the grey delay marker is the dotted one
    assert ax.get_lines()[1].get_linestyle() == "--"
    delay_line = ax.get_lines()[2]
    assert delay_line.get_linestyle() == ":" and float(delay_line.get_xdata()[0]) == pytest.approx(1e3 * r.delay)


def test_log_axes_carry_labelled_ticks_only(fig):
    """The hockey stick and fan-out figures draw no minor ticks (they made each slider frame slow to draw)
    and label their log axes with plain numbers."""
    ax_c, ax_d = s3_4.latency_vs_utilization(fig, 0.8)
    assert [t.get_text() for t in ax_c.get_yticklabels()] == ["10", "30", "100", "300", "1,000", "3,000"]
    assert [t.get_text() for t in ax_d.get_yticklabels()] == ["0.01%", "0.1%", "1%", "10%", "100%"]
    assert len(ax_c.yaxis.get_minorticklocs()) == 0 and len(ax_d.yaxis.get_minorticklocs()) == 0
    fig.clear()
    ax = s3_4.fanout(fig, 100)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "10", "100", "1,000", "10,000"]
    assert len(ax.xaxis.get_minorticklocs()) == 0


def test_batching_legend_uses_the_chapter_notation(fig):
    ax_x, ax_l = s3_4.batching(fig, "Llama-3-8B", "A100", 2048)
    labels = ax_l.get_legend_handles_labels()[1]
    assert any("c_\\mathrm{kv}" in label for label in labels) and not any("kappa" in label for label in labels)


def test_straggler_curves(fig):
    ax_t, ax_e = s3_4.stragglers(fig, 1.0, 0.05, k_max=256, n_steps=300)
    lines = _lines(ax_t)
    ks, closed = lines[r"exponential jitter: $t_0 + \tau H_K$"]
    np.testing.assert_allclose(closed, sl.expected_slowest_step(ks, 1.0, 0.05))
    kb, backed = lines["exponential, K/32 backups"]
    np.testing.assert_allclose(backed, sl.expected_slowest_step(kb, 1.0, 0.05, backups=kb // 32))
    # Gaussian jitter with the same mean and standard deviation, tau: one worker takes t0 + tau on average, and
    # the thin tail grows more slowly than the exponential one
    _, gauss = lines[r"Gaussian, mean and s.d. $\tau$, simulated"]
    assert gauss[0] == pytest.approx(1.05, abs=0.01)
    assert np.all(gauss < closed + 0.01) and gauss[-1] < closed[-1] - 0.05
    # the grey dashed line at t0 + tau has a legend entry
    _, alone = lines[r"one worker alone: $t_0 + \tau$"]
    np.testing.assert_allclose(alone, 1.05)
    assert r"one worker alone: $t_0 + \tau$" in ax_t.get_legend_handles_labels()[1]
    eff_lines = _lines(ax_e)
    _, eff = eff_lines[r"no backups: $(t_0 + \tau)\,/\,\mathbb{E}[T_\mathrm{step}]$"]
    np.testing.assert_allclose(eff, 1.05 / closed)
    # the green curve's formula, in its legend entry, includes K / (K + r)
    green = r"$r = K/32$ backups: $\frac{K}{K + r}\,(t_0 + \tau)\,/\,\mathbb{E}[T_\mathrm{step}]$"
    _, eff_b = eff_lines[green]
    np.testing.assert_allclose(eff_b, kb * 1.05 / ((kb + kb // 32) * backed))
    assert ax_e.get_ylabel() == "efficiency"


@pytest.mark.parametrize(("model", "context"), [("Llama-3-8B", 2048), ("Llama-2-7B", 2048), ("Llama-3-8B", 512)])
def test_batching_curves(fig, model, context):
    ax_x, ax_l = s3_4.batching(fig, model, "A100", context)
    b, tps = _lines(ax_x)["model: max(memory, compute) time"]
    prof = sl.decode_profile(b, model, "A100", context)
    np.testing.assert_allclose(tps, prof["tokens_per_s"])
    assert np.all(b <= prof["max_batch"])
    _, step_ms = _lines(ax_l)["time per step = per-token latency"]
    np.testing.assert_allclose(step_ms, 1e3 * prof["step_time"])


# --- every slider position draws -------------------------------------------------------------------------------

@pytest.mark.parametrize(("draw", "name", "values", "size"), [
    (s3_2.devices_needed, "n_params", MODEL_SIZES, (6.4, 3.0)),
    (s3_4.latency_vs_utilization, "utilization", UTILIZATIONS, (8.0, 3.0)),
    (s3_4.fanout, "n", FANOUTS, (6.4, 3.0)),
])
def test_slider_frames_all_draw_and_differ(draw, name, values, size):
    frames = render_frames(draw, {name: choice(name, values)}, width=size[0], height=size[1])
    assert len(frames) == len(values) <= 24
    pngs = list(frames.values())
    assert all(a != b for a, b in zip(pngs, pngs[1:]))       # each step of the slider changes the picture
    assert sum(map(len, pngs)) < 250_000                     # page weight: each slider well under the budget


def test_slider_values_match_the_notebooks():
    """The positions tested above are the ones the notebooks use."""
    import json
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    source = {}
    for name in ("03-02-horizontal-and-vertical-scaling", "03-04-latency-throughput-and-tail-latency"):
        cells = json.loads((book / f"{name}.ipynb").read_text())["cells"]
        source[name] = "\n".join("".join(c["source"]) for c in cells if "slider_figure(" in "".join(c["source"]))
    assert "[1e9, 3e9, 7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12, 2e12]" in source["03-02-horizontal-and-vertical-scaling"]
    s34 = source["03-04-latency-throughput-and-tail-latency"]
    assert "[0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98]" in s34
    assert "[1, 3, 10, 30, 100, 300, 1000, 3000, 10000]" in s34
