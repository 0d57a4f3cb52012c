"""The drawing functions behind figures and sliders plot exactly what the models compute."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import scalinglib as sl
from scalinglib import plots
from scalinglib.figures import s3_1, s3_3


def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


@pytest.mark.parametrize("f", [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5])
@pytest.mark.parametrize("k_max", [64, 4096])
def test_speedup_and_efficiency_frames(fig, f, k_max):
    ax_s, ax_e = s3_1.speedup_and_efficiency(fig, f, k_max)
    ks, s = _lines(ax_s)[f"f = {f:g}"]
    assert ks[-1] == k_max
    np.testing.assert_allclose(s, sl.amdahl_speedup(f, ks))
    _, e = _lines(ax_e)[f"f = {f:g}"]
    np.testing.assert_allclose(e, sl.amdahl_efficiency(f, ks))
    ceilings = [label for label in _lines(ax_s) if label.startswith("ceiling")]
    assert ceilings == ([f"ceiling 1/f = {1 / f:g}"] if f > 0 else [])


def test_superlinear_frame(fig):
    ax = s3_1.superlinear(fig, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0, k_max=256)
    lines = _lines(ax)
    ks, starved = lines["against one worker of the cluster (spills)"]
    t = sl.spill_time(ks, 0.02, 4.0, 1.0, 3.0)
    np.testing.assert_allclose(starved, t[0] / t)
    np.testing.assert_allclose(lines["against one machine that holds everything"][1], 1 / t)


@pytest.mark.parametrize(("k_max", "error", "message"), [
    (0, ValueError, "k_max must be a whole number >= 1"), (-4, ValueError, "k_max must be a whole number >= 1"),
    (64.5, ValueError, "k_max must be a whole number"), (100, ValueError, "k_max must be a power of two"),
    ([64], TypeError, "k_max must be a single number"), ("64", TypeError, "k_max must be a real number"),
])
def test_worker_counts_refuse_bad_k_max(fig, k_max, error, message):
    for draw in (lambda: s3_1.worker_counts(k_max), lambda: s3_1.speedup_and_efficiency(fig, 0.05, k_max),
                 lambda: s3_1.superlinear(fig, k_max=k_max)):
        with pytest.raises(error, match=message):
            draw()


@pytest.mark.parametrize("k_max", [1, 2, 64, 64.0, 2**20])
def test_worker_counts_run_to_k_max(k_max):
    ks = s3_1.worker_counts(k_max)
    assert ks[0] == 1 and ks[-1] == k_max and np.all(ks[1:] == 2 * ks[:-1])


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(f=[0.1]), TypeError, "f must be a single number"), (dict(f=1.5), ValueError, "f must be in"),
])
def test_speedup_frame_checks_f(fig, kwargs, error, message):
    with pytest.raises(error, match=message):
        s3_1.speedup_and_efficiency(fig, k_max=64, **kwargs)


def test_superlinear_frame_checks_its_model(fig):
    with pytest.raises(TypeError, match="working_set must be a single number"):
        s3_1.superlinear(fig, working_set=[4.0, 2.0])
    with pytest.raises(ValueError, match="slowdown must be >= 1"):
        s3_1.superlinear(fig, slowdown=0.5)


@pytest.mark.parametrize("s", [0.0, 0.01, 0.05, 0.1, 0.2])
@pytest.mark.parametrize("c", [0.0, 0.002, 0.005, 0.01, 0.02, 0.05])   # wider than the slider: all must draw
def test_strong_and_weak_frames(fig, s, c):
    ax_t, ax_e = s3_3.strong_and_weak(fig, s, c)
    lines = _lines(ax_t)
    ks, strong = lines["strong: fixed job"]
    np.testing.assert_allclose(strong, sl.strong_time(ks, s, c))
    np.testing.assert_allclose(lines["weak: job grows with K"][1], sl.weak_time(ks, s, c))
    star = [label for label in lines if label.startswith("fastest fixed job")]
    if c > 0 and sl.best_worker_count(s, c) <= ks[-1]:     # the star is drawn when it is on the axis
        assert star == [f"fastest fixed job: K = {sl.best_worker_count(s, c)}"]
    else:
        assert star == []
    np.testing.assert_allclose(_lines(ax_e)["E weak"][1], sl.weak_model_efficiency(ks, s, c))


def test_critical_batch_frame(fig):
    ax = s3_3.critical_batch(fig)
    x, steps = _lines(ax)[r"optimizer steps / $n_\mathrm{step,min}$"]
    np.testing.assert_allclose(steps, 1 + 1 / x)
    np.testing.assert_allclose(_lines(ax)[r"tokens / $D_\mathrm{tok,min}$"][1], 1 + x)


@pytest.mark.parametrize("n_params", [1.3e9, 13e9, 175e9, 1e12])
@pytest.mark.parametrize("global_batch", [1e6, 4e6, 16e6])
@pytest.mark.parametrize("critical_batch", [0.5e6, 2e6, 8e6])
def test_cluster_efficiency_frames(fig, n_params, global_batch, critical_batch):
    ax = s3_3.cluster_efficiency(fig, n_params, global_batch, critical_batch)
    g, e = _lines(ax)["scaling efficiency"]
    sweep = sl.layout_sweep(g, n_params, global_batch, critical_batch)
    np.testing.assert_allclose(e, sweep["efficiency"])
    assert np.all((e > 0) & (e <= 1))
    # the curve is drawn exactly where a layout exists, never past the layer count
    full = sl.layout_sweep(2 ** np.arange(3, 15), n_params, global_batch, critical_batch)
    np.testing.assert_array_equal(g, full["n_gpus"][full["fits"]])
    assert np.all(sweep["pp"] <= sweep["layers"])
    texts = [t.get_text() for t in ax.texts]
    too_small = full["n_gpus"] < full["min_gpus"]
    too_deep = ~full["fits"] & ~too_small
    assert ("model does\nnot fit" in texts) == too_small.any()
    assert ("more stages\nthan layers" in texts) == too_deep.any()


def _overlaps(a, b):
    both = a.intersection(a, b)
    return both is not None and both.width > 0 and both.height > 0


def _lay_out(fig):
    """Lay the figure out as a draw does, without painting pixels; each axis computes its ticks once per state,
    as when the book renders it (plots._ticks_computed_once)."""
    with plots._ticks_computed_once(fig):
        fig.draw_without_rendering()


def _legend_clear_of(ax, fig, *, laid_out=False):
    """No text annotation and no data marker of ax lies inside its legend (in display coordinates).
    The figure is laid out as when it is drawn, without painting pixels (unless ``laid_out`` already)."""
    if not laid_out:
        _lay_out(fig)
    legend = ax.get_legend().get_window_extent()
    for text in ax.texts:
        assert not _overlaps(text.get_window_extent(), legend), text.get_text()
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " "):
            continue
        xy = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
        assert not np.any([legend.contains(x, y) for x, y in xy]), line.get_label()


@pytest.mark.parametrize("n_params", [1.3e9, 13e9, 175e9, 1e12])
@pytest.mark.parametrize("global_batch", [2e6, 16e6])
@pytest.mark.parametrize("critical_batch", [0.5e6, 2e6, 8e6])
def test_cluster_efficiency_labels_clear_of_the_legend(n_params, global_batch, critical_batch):
    figure = plt.figure(figsize=(6.4, 3.0), layout="constrained")    # the slider's frame size
    try:
        ax = s3_3.cluster_efficiency(figure, n_params, global_batch, critical_batch)
        _legend_clear_of(ax, figure)
    finally:
        plt.close(figure)


@pytest.mark.parametrize("s", [0.0, 0.01, 0.05, 0.2])
@pytest.mark.parametrize("c", [0.0, 0.002, 0.01, 0.05])
@pytest.mark.parametrize("height", [3.0, 3.2])                       # the slider's and Figure 3.3.1's
def test_strong_and_weak_legends_clear_of_the_curves(s, c, height):
    figure = plt.figure(figsize=(8.0, height), layout="constrained")
    try:
        axes = s3_3.strong_and_weak(figure, s, c)
        _lay_out(figure)
        for ax in axes:
            _legend_clear_of(ax, figure, laid_out=True)
    finally:
        plt.close(figure)


def test_critical_batch_label_clear_of_the_legend():
    figure = plt.figure(figsize=(5.6, 3.2), layout="constrained")   # Figure 3.3.2's size
    try:
        ax = s3_3.critical_batch(figure)
        assert [t.get_text() for t in ax.texts] == [r"$B_\mathrm{g} = B_\mathrm{crit}$"]
        assert r"$B_\mathrm{g}/B_\mathrm{crit}$" in ax.get_xlabel()
        _legend_clear_of(ax, figure)
    finally:
        plt.close(figure)


def test_cluster_efficiency_flags_a_replica_batch_past_the_limit(fig):
    ax = s3_3.cluster_efficiency(fig, 13e9, 1000, 1000)
    assert any("past the critical batch" in t.get_text() for t in ax.texts)
    ax2 = s3_3.cluster_efficiency(plt.figure(), 13e9, 4e6, 4e6)
    assert not any("past the critical batch" in t.get_text() for t in ax2.texts)
    plt.close(ax2.figure)
