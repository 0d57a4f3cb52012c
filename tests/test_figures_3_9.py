"""The drawing functions of Section 3.9 plot exactly what the models compute, for every slider position."""

from html.parser import HTMLParser

import matplotlib.pyplot as plt
import numpy as np
import pytest

import scalinglib as sl
from scalinglib.figures import s3_9
from scalinglib.plots import house_style
from scalinglib.widgets import frame_values


def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


def _texts(fig):
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


def test_mfu_comparison_bars(fig):
    ax = s3_9.mfu_comparison(fig)
    bars = [p.get_width() for p in ax.patches]
    printed = [100 * r.reported_mfu for r in sl.MFU_RUNS]
    again = [100 * r.recomputed_mfu() for r in sl.MFU_RUNS]
    # the grey 100% tracks, then the printed bars, then the recomputed ones
    assert bars[:4] == [100.0] * 4
    np.testing.assert_allclose(bars[4:8], printed)
    np.testing.assert_allclose(bars[8:12], again)
    assert "21.3% | 20.22%" in _texts(fig)


def test_megatron_weak_scaling_lines(fig):
    ax = s3_9.megatron_weak_scaling(fig)
    gpus, reported = _lines(ax)["achieved, counting recomputation (table 1)"]
    assert list(gpus) == [r.n_gpus for r in sl.MEGATRON_WEAK_SCALING]
    assert list(reported) == [r.tflops_per_gpu for r in sl.MEGATRON_WEAK_SCALING]
    _, model = _lines(ax)["model FLOPs only (PaLM's definition)"]
    assert np.all(model < reported) and round(model[-1] / 312 * 100) == 39


@pytest.mark.parametrize("price", [1.0, 2.0, 4.0])
@pytest.mark.parametrize("rate", [500.0, 1000.0, 3000.0])
def test_cost_vs_utilization(fig, price, rate):
    ax = s3_9.cost_vs_utilization(fig, price=price, tokens_per_second=rate)
    u, cost = next(v for k, v in _lines(ax).items() if k.startswith("self-hosted"))
    np.testing.assert_allclose(cost, sl.cost_per_million_tokens(price, rate, u / 100))
    for api in (1.0, 2.0):
        u_star = sl.break_even_utilization(price, rate, api)
        assert (f"break-even {u_star:.0%}" in _texts(fig)) == (u_star <= 1)


@pytest.mark.parametrize("n_params", [1e9, 7e9, 13e9])
def test_serving_batch(fig, n_params):
    ax_r, ax_c = s3_9.serving_batch(fig, n_params=n_params)
    b, rate = _lines(ax_r)["roofline estimate"]
    assert b[-1] <= sl.max_decode_batch(n_params, 1024, device="H100") < 2 * b[-1]
    np.testing.assert_allclose(rate, sl.device_decode_rate(b, n_params, 1024, device="H100"))
    _, cost = _lines(ax_c)["cost per million tokens"]
    np.testing.assert_allclose(cost, sl.cost_per_million_tokens(3.0, rate))


def test_demand_sizing(fig):
    demand = np.full(24, 10_000.0)
    ax = s3_9.demand_sizing(fig, demand, 1000.0, peak_devices=12, sustained_devices=9)
    lines = _lines(ax)
    assert lines["12 devices, sized for the peak"][1][0] == 12.0
    assert lines["9 devices, sized for the sustained demand"][1][0] == 9.0


def _overflow(ax):
    return next(c for c in ax.collections if c.get_label().startswith("above the sustained fleet"))


def test_demand_sizing_shades_the_overflow_and_keeps_the_legend_off_the_day(fig):
    demand = 1e3 * np.array([10.0] * 8 + [30.0] * 4 + [10.0] * 12)
    ax = s3_9.demand_sizing(fig, demand, 1000.0, peak_devices=30, sustained_devices=20)
    ys = _overflow(ax).get_paths()[0].vertices[:, 1]
    xs = _overflow(ax).get_paths()[0].vertices[:, 0]
    assert ys.min() == pytest.approx(20.0) and ys.max() == pytest.approx(30.0)      # capacity to demand
    assert xs[ys > 20.0 + 1e-9].min() == 8 and xs[ys > 20.0 + 1e-9].max() == 12     # only the peak hours
    fig.draw_without_rendering()
    legend = ax.get_legend().get_window_extent()
    assert legend.y0 >= ax.get_window_extent().y1 - 1                               # above the axes
    assert len(ax.get_legend().get_texts()) == 4


@pytest.mark.parametrize("size", [(6.0, 3.2), (6.4, 4.8)])       # the notebook's, and matplotlib's default
def test_figure_3_9_3_notes_do_not_overlap(size):
    with house_style():
        fig = plt.figure(figsize=size, layout="constrained")
    ax = s3_9.cost_vs_utilization(fig, price=3.0, tokens_per_second=2000.0, api_prices=(1.0, 2.0))
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) == 3
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(legend.overlaps(b) for b in boxes)
    plt.close(fig)


@pytest.mark.parametrize("n_params, critical_batch", [(13e9, 4e6), (13e9, 1e6)])
def test_critical_batch_bill(fig, n_params, critical_batch):
    from scalinglib.layout_search import A100_NETWORKS

    g = 2 ** np.arange(7, 12)
    ax_c, ax_t = s3_9.critical_batch_bill(fig, n_params, critical_batch, gpu_counts=g)
    lines = _lines(ax_c)
    got, hdr = lines["searched, one HDR port per GPU"]
    _, efa = lines["searched, AWS p4de network"]
    _, policy = lines["fixed policy, HDR ports"]
    np.testing.assert_array_equal(got, g)
    ref = sl.critical_batch_cost(g, n_params, critical_batch, search=True,
                                 port_bandwidth=A100_NETWORKS["one HDR port per GPU"][0])
    np.testing.assert_allclose(hdr, ref["cost_factor"])
    np.testing.assert_allclose(policy, sl.critical_batch_cost(g, n_params, critical_batch,
                                                              exposed_allreduce=True)["cost_factor"])
    # the search does at least as well as the fixed policy, and a slower network never helps
    assert np.all(hdr <= policy * (1 + 1e-9)) and np.all(efa >= hdr * (1 - 1e-9)) and np.all(hdr >= 1)
    _, ideal = _lines(ax_t)["ideal: twice as fast per doubling"]
    np.testing.assert_allclose(ideal, g / g[0])
    assert "over 128 GPUs" in ax_t.get_ylabel()


@pytest.mark.parametrize("n_params", [7e9, 70e9, 405e9, 1e12])
@pytest.mark.parametrize("n_devices", [256, 2048, 16384])
@pytest.mark.parametrize("utilization", [0.5, 0.8, 1.0])
def test_training_bill(fig, n_params, n_devices, utilization):
    bar = s3_9.training_bill(fig, n_params, n_devices, utilization)
    run = sl.training_cost(n_params, 20 * n_params, n_devices, 3.0, mfu=0.4, utilization=utilization)
    widths = [p.get_width() for p in bar.patches]
    assert sum(widths) == pytest.approx(run.dollars)
    assert widths[0] == pytest.approx(run.dollars * 0.4 * utilization)    # the useful share
    assert widths[2] == pytest.approx(run.dollars * (1 - utilization))    # the idle share
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    number, unit = s3_9._duration(run.days)                                   # hours below a day, not "0.0"
    assert number in texts and f"calendar {unit}" in texts and "per million tokens" in texts
    assert r"\$3 per device-hour" in bar.get_xlabel()


def test_money_labels_escape_the_dollar_sign_and_keep_three_figures():
    assert s3_9._money(1234.0) == r"\$1.23k"
    assert s3_9._money(2.5e6) == r"\$2.50M"                      # trailing zero kept: a row reads evenly
    assert [s3_9._money(x) for x in (2.34e9, 3.5e9, 4.67e9)] == [r"\$2.34B", r"\$3.50B", r"\$4.67B"]
    assert s3_9._money(917e3) == r"\$917k" and s3_9._money(1e6) == r"\$1.00M"
    assert s3_9._money(999.6e3) == r"\$1.00M"                    # rounds up into the next unit cleanly
    assert s3_9._money(12.0) == r"\$12"
    assert s3_9._money(2.5e6, trailing_zeros=False) == r"\$2.5M"   # axis ticks


@pytest.mark.parametrize(("days", "text"), [
    (9.33, ("9.3", "days")), (71305.2, ("71,305", "days")), (999.96, ("1,000", "days")),
    (0.99, ("23.8", "hours")), (1 / 24, ("1.0", "hours")), (0.0185, ("27", "minutes")),
])
def test_durations_below_a_day_are_hours(days, text):
    assert s3_9._duration(days) == text


# --- the capstone table ----------------------------------------------------------------------------


class _Cells(HTMLParser):
    """Every table of an HTML fragment as rows of (tag, style, text) cells."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"style": dict(attrs).get("style", ""), "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, dict(attrs).get("style", ""), ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append(tuple(self._cell))
            self._cell = None


def _tables(frame):
    parser = _Cells()
    parser.feed(frame)
    return parser.tables


def _texts_of(row):
    return [text for _tag, _style, text in row]


@pytest.mark.parametrize(("n_params", "per_param", "device", "utilization", "mfu"), [
    (70e9, 20, "H100 SXM 80GB", 0.9, 0.4),        # the worked example of the text
    (7e9, 200, "A100 SXM 80GB", 0.5, 0.3),
    (7e9, 20, "H100 SXM 80GB", 0.5, 0.4),         # about an hour on 8,192 devices: hours, not "0.0 days"
    (405e9, 20, "A100 SXM 80GB", 0.9, 0.5),
    (405e9, 200, "H100 SXM 80GB", 0.5, 0.4),
    (405e9, 200, "A100 SXM 80GB", 0.5, 0.3),      # deliberately out of reach: 95,000 days
])
def test_capstone_table_frames_are_training_cost(n_params, per_param, device, utilization, mfu):
    frame = s3_9.capstone_table(n_params, per_param, device, mfu, utilization)
    tokens = per_param * n_params
    by_count, by_price = _tables(frame)
    assert _texts_of(by_count["rows"][0]) == ["devices"] + [f"{k:,}" for k in s3_9.CAPSTONE_DEVICES]
    times = _texts_of(by_count["rows"][1])
    assert times[0] == "calendar time"
    for k, shown in zip(s3_9.CAPSTONE_DEVICES, times[1:]):
        run = sl.training_cost(n_params, tokens, k, 3.0, device=device, mfu=mfu, utilization=utilization)
        assert shown == " ".join(s3_9._duration(run.days))
        number, unit = shown.split()
        hours = float(number.replace(",", "")) * {"minutes": 1 / 60, "hours": 1, "days": 24}[unit]
        assert hours == pytest.approx(24 * run.days, rel=0.05, abs=0.05)
        assert float(number.replace(",", "")) > 0                 # never "0.0 days"
    assert _texts_of(by_price["rows"][0]) == ["price per device-hour"] + [f"${p:g}" for p in s3_9.CAPSTONE_PRICES]
    totals, per_m = by_price["rows"][1], by_price["rows"][2]
    for i, price in enumerate(s3_9.CAPSTONE_PRICES, start=1):
        run = sl.training_cost(n_params, tokens, 2048, price, device=device, mfu=mfu, utilization=utilization)
        assert totals[i][2] == s3_9._money(run.dollars).replace("\\", "")
        assert float(totals[i][2][1:-1]) * {"k": 1e3, "M": 1e6, "B": 1e9}[totals[i][2][-1]] == pytest.approx(
            run.dollars, rel=5e-3)
        assert per_m[i][2] == f"${run.dollars_per_million_tokens:,.2f}"
        assert f"<b>{run.device_hours:,.0f} device-hours</b>" in frame


def test_capstone_table_is_styled_inline():
    frame = s3_9.capstone_table(70e9, 20, "H100 SXM 80GB", 0.4, 0.9)
    tables = _tables(frame)
    assert len(tables) == 2 and tables[0]["style"] == tables[1]["style"]    # one width for both tables
    assert "border-collapse:collapse" in tables[0]["style"] and "width:" in tables[0]["style"]
    for table in tables:
        head, *body = table["rows"]
        assert all("border-bottom" in style and "padding" in style for _tag, style, _text in head)
        assert "text-align:left" in head[0][1] and all("text-align:right" in c[1] for c in head[1:])
        for row in body:
            assert row[0][0] == "th" and "text-align:left" in row[0][1]                   # the row label
            assert all(tag == "td" and "text-align:right" in style and "padding" in style
                       for tag, style, _text in row[1:])                                # the numbers
    # the first column has the same width in both tables, so the columns line up
    assert tables[0]["rows"][0][0][1] == tables[1]["rows"][0][0][1]


def test_capstone_table_default_frame_is_the_worked_example():
    frame = s3_9.capstone_table(70e9, 20, "H100 SXM 80GB", 0.4, 0.9)
    run = sl.training_cost(70e9, 1.4e12, 2048, 3.0, device="H100 SXM 80GB", mfu=0.4, utilization=0.9)
    assert (round(run.days, 1), round(run.dollars / 1e6, 2)) == (9.3, 1.38)
    by_count, by_price = _tables(frame)
    assert _texts_of(by_count["rows"][1])[2] == "9.3 days" and _texts_of(by_price["rows"][1])[2] == "$1.38M"
    assert _texts_of(by_price["rows"][2])[2] == f"${run.dollars_per_million_tokens:.2f}"
    assert "\\" not in frame           # no matplotlib escapes in HTML


def test_capstone_slider_is_small():
    pytest.importorskip("ipywidgets")
    params = {
        "n_params": sl.choice("model size", [7e9, 70e9, 405e9], default=70e9),
        "tokens_per_param": sl.choice("tokens per parameter", [20, 200]),
        "device": sl.choice("device", ["A100 SXM 80GB", "H100 SXM 80GB"], default="H100 SXM 80GB", fmt=str),
        "utilization": sl.choice("utilization", [0.5, 0.9], default=0.9),
        "mfu": sl.choice("MFU", [0.3, 0.4, 0.5], default=0.4),
    }
    frames = frame_values(params)
    assert len(frames) == 72
    assert max(len(s3_9.capstone_table(**v)) for v in frames) < 2500     # inline styles: about 2.2 kB a frame
