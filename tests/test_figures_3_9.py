"""The drawing functions of Section 3.9 plot exactly what the models compute, for every slider position."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import scalinglib as sl
from scalinglib.figures import s3_9


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


@pytest.mark.parametrize("n_params", [1.3e9, 13e9, 175e9, 1e12])
@pytest.mark.parametrize("critical_batch", [0.5e6, 2e6, 8e6])
def test_critical_batch_bill(fig, n_params, critical_batch):
    ax_c, ax_t = s3_9.critical_batch_bill(fig, n_params, critical_batch)
    lines = _lines(ax_c)
    g, split = lines["split the model"]
    _, grow = lines["grow the batch past B_crit"]
    ref = sl.critical_batch_cost(g, n_params, critical_batch)
    np.testing.assert_allclose(split, ref["cost_factor"])
    assert np.all(grow >= split - 1e-12) and np.all(split >= 1)
    _, ideal = _lines(ax_t)["ideal: twice as fast per doubling"]
    np.testing.assert_allclose(ideal, g / g[0])


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
    text = _texts(fig)
    assert "days" in text and "per million tokens" in text
    assert r"\$3 per device-hour" in bar.get_xlabel()


def test_money_labels_escape_the_dollar_sign():
    assert s3_9._money(1234.0) == r"\$1.23k"
    assert s3_9._money(2.5e6) == r"\$2.5M"
    assert s3_9._money(12.0) == r"\$12"
