"""The drawing functions of Sections 3.5 and 3.6 plot exactly what the models compute, at every slider position."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import scalinglib as sl
from scalinglib.figures import s3_5, s3_6

# the slider positions the notebooks use
F_VALUES = [0.001, 0.004, 0.008, 0.02, 0.05, 0.1, 0.2, 0.5]
SIGMAS = [0.0, 0.01, 0.03, 0.1]
KAPPAS = [0.0, 0.0001, 0.001, 0.01]
STAGES = [2, 4, 8]
MICROBATCHES = [1, 2, 4, 8, 16]


def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


@pytest.mark.parametrize("f", [0.0] + F_VALUES)
def test_amdahl_vs_gustafson_frames(fig, f):
    ax_s, ax_e = s3_5.amdahl_vs_gustafson(fig, f)
    lines = _lines(ax_s)
    ks, g = lines[f"Gustafson, grown job, s = {f:g}"]
    np.testing.assert_allclose(g, sl.gustafson_speedup(f, ks))
    np.testing.assert_allclose(lines[f"Amdahl, fixed job, f = {f:g}"][1], sl.amdahl_speedup(f, ks))
    np.testing.assert_allclose(_lines(ax_e)["Gustafson: E -> 1 - s"][1], sl.gustafson_speedup(f, ks) / ks)
    assert np.all(g >= lines[f"Amdahl, fixed job, f = {f:g}"][1] * (1 - 1e-12))


def test_gustafson_1988_points(fig):
    ax = s3_5.gustafson_1988(fig)
    lines = _lines(ax)
    for name, measured in s3_5.SANDIA_1988.items():
        x, y = lines[f"{name}: {measured}"]
        assert y[0] == measured
        assert sl.gustafson_speedup(x[0] / 100, 1024) == pytest.approx(measured)   # on the line by construction
    # the chapter's K for processors; the alt text's "about 200 at 0.4 percent and about 91 at 1 percent"
    assert ax.get_ylabel() == "speedup on K = 1,024 processors"
    s_pct, amdahl = lines["Amdahl, if s were the one-processor share f"]
    assert round(float(np.interp(0.4, s_pct, amdahl)), -1) == 200 and round(float(amdahl[-1])) == 91
    assert s_pct[-1] == 1.0
    assert "Gustafson: K + (1 - K) s" in lines


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("kappa", KAPPAS)
def test_usl_frames(fig, sigma, kappa):
    ax = s3_5.usl_curves(fig, sigma, kappa)
    lines = _lines(ax)
    ks, s = lines[f"USL, σ = {sigma:g}, κ = {kappa:g}"]          # the book's sigma and kappa
    np.testing.assert_allclose(s, sl.usl_speedup(ks, sigma, kappa))
    peaks = [label for label in lines if label.startswith("peak")]
    peak = sl.usl_peak_workers(sigma, kappa)
    assert peaks == ([f"peak at K = {peak:.0f}"] if np.isfinite(peak) and peak <= 256 else [])


def test_karp_flatt_trends(fig):
    ks = [1, 2, 4, 8, 16]
    ax = s3_5.karp_flatt_trends(fig, {"flat": sl.amdahl_speedup(0.1, ks)}, ks)
    x, e = _lines(ax)["flat"]
    np.testing.assert_array_equal(x, [2, 4, 8, 16])
    np.testing.assert_allclose(e, 0.1)


def test_measurement_frame(fig):
    ks = [1, 2, 3, 4]
    strong = [1.0, 0.52, 0.5, 0.5]
    weak = [1.0, 1.02, 1.5, 2.0]
    ax_s, ax_k = s3_5.measurement(fig, ks, strong, weak, cores=2, amdahl_f=0.04, usl=(0.03, 0.01))
    lines = _lines(ax_s)
    np.testing.assert_allclose(lines["strong: T(1)/T(K)"][1], [1.0, 1 / 0.52, 2.0, 2.0])
    np.testing.assert_allclose(lines["weak: K T(1)/T(K)"][1], [1.0, 2 / 1.02, 2.0, 2.0])
    np.testing.assert_allclose(_lines(ax_k)["strong scaling"][1], sl.karp_flatt([1 / 0.52, 2.0, 2.0], [2, 3, 4]))
    np.testing.assert_allclose(lines["best possible on 2 cores: min(K, 2)"][1], [1, 2, 2, 2])
    x_cores, _ = _lines(ax_k)["c = 2 cores"]                   # the dotted line at K = c is in the legend
    np.testing.assert_array_equal(x_cores, [2, 2])
    assert "c = 2 cores" in [t.get_text() for t in ax_k.get_legend().get_texts()]


@pytest.mark.parametrize("example", list(s3_6.EXAMPLES))
def test_brent_frames(fig, example):
    ax = s3_6.brent_curves(fig, example)
    dag = s3_6.EXAMPLES[example]()
    ps, greedy = _lines(ax)["greedy schedule"]
    lower, upper = sl.brent_bounds(sl.work(dag), sl.depth(dag), ps)
    assert np.all(lower - 1e-9 <= greedy) and np.all(greedy <= upper + 1e-9)
    assert greedy[0] == pytest.approx(sl.work(dag))


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("microbatches", MICROBATCHES)
def test_pipeline_gantt_frames(fig, stages, microbatches):
    ax = s3_6.pipeline_gantt(fig, stages, microbatches)
    bars = [patch for patch in ax.patches if patch.get_width() > 0]
    assert len(bars) == 2 * stages * microbatches
    assert max(b.get_x() + b.get_width() for b in bars) == pytest.approx(3 * (microbatches + stages - 1))
    assert f"{(stages - 1) / microbatches:.3g}" in ax.get_title()


def test_static_dag_pictures(fig):
    axes = s3_6.four_dags(fig, 8)
    assert [ax.get_title().splitlines()[1] for ax in axes] == [
        "W = 7, D = 7", "W = 7, D = 3", "W = 17, D = 3", "W = 14, D = 6"]


def test_schedule_gantt(fig):
    ax = s3_6.schedule_gantt(fig, sl.layer_stack_dag(3, 6), 4)
    assert "makespan 9" in ax.get_title() and "6 ... 11.25" in ax.get_title()
