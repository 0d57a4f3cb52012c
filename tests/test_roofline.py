"""The roofline model of Section 3.7: identities, limits, the catalog's ridge points against the
datasheets' ratios, the drawing functions, and every number the section's prose quotes."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib.figures import s3_7

intensities = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)
peaks = st.floats(min_value=1e9, max_value=1e16)
bandwidths = st.floats(min_value=1e9, max_value=1e14)
dims = st.integers(min_value=1, max_value=1 << 16)


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


# --- the roof ---------------------------------------------------------------------------------

@given(intensities, peaks, bandwidths)
def test_attainable_is_the_lower_of_the_two_roofs(i, p, b):
    a = sl.attainable_flops(i, p, b)
    assert a == min(p, b * i)
    assert a <= p
    assert a <= b * i + 1e-9 * p


@given(peaks, bandwidths)
def test_the_roofs_meet_at_the_ridge_point(p, b):
    ridge = sl.ridge_point(p, b)
    assert math.isclose(b * ridge, p, rel_tol=1e-12)
    assert sl.roofline_regime(ridge * 0.999, p, b) == "memory-bound"
    assert sl.roofline_regime(ridge * 1.001, p, b) == "compute-bound"


@given(st.lists(intensities, min_size=2, max_size=20), peaks, bandwidths)
def test_attainable_never_falls_as_intensity_grows(xs, p, b):
    xs = np.sort(np.array(xs))
    a = sl.attainable_flops(xs, p, b)
    assert np.all(np.diff(a) >= 0)


@given(st.one_of(st.just(0.0), st.floats(min_value=1.0, max_value=1e15)),
       st.one_of(st.just(0.0), st.floats(min_value=1.0, max_value=1e13)), peaks, bandwidths)
def test_roofline_time_is_the_slower_of_compute_and_traffic(w, q, p, b):
    t = sl.roofline_time(w, q, p, b)
    assert t == max(w / p, q / b)
    if q > 0 and t > 0:   # rate W / T is the attainable rate at I = W / Q
        assert math.isclose(w / t, sl.attainable_flops(w / q, p, b), rel_tol=1e-9)


def test_scalars_stay_scalars_and_arrays_broadcast():
    assert isinstance(sl.attainable_flops(1.0, 1e12, 1e11), float)
    out = sl.attainable_flops([[1.0], [100.0]], [1e12, 2e12], 1e11)
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, [[1e11, 1e11], [1e12, 2e12]])
    np.testing.assert_array_equal(sl.roofline_regime([1.0, 1e3], 1e12, 1e11), ["memory-bound", "compute-bound"])


# --- the catalog's ridge points against the datasheets' ratios ----------------------------------

# dense peak (TFLOP/s) / bandwidth (TB/s), as printed by each vendor (sparse figures halved)
DATASHEET_RATIOS = {
    "A100 SXM 80GB": 312 / 2.039,
    "H100 SXM 80GB": 989.5 / 3.35,    # 1,979 TFLOPS with sparsity, halved
    "H200 SXM 141GB": 989.5 / 4.8,
    "MI300X": 1307.4 / 5.3,
    "TPU v4": 275 / 1.2,
    "TPU v5e": 197 / 0.819,
    "TPU v5p": 459 / 2.765,
}


@pytest.mark.parametrize("name", list(DATASHEET_RATIOS))
def test_ridge_points_match_the_datasheet_ratios(name):
    acc = sl.get_accelerator(name)
    ridge = sl.ridge_point(acc.peak("bf16"), acc.memory_bandwidth)
    assert ridge == acc.ridge_point("bf16")
    assert math.isclose(ridge, DATASHEET_RATIOS[name], rel_tol=2e-3)


def test_ridge_points_quoted_in_the_text():
    assert round(sl.get_accelerator("A100").ridge_point("bf16"), 1) == 153.0
    assert round(sl.get_accelerator("H100").ridge_point("bf16"), 1) == 295.4
    assert round(sl.get_accelerator("H200").ridge_point("bf16"), 1) == 206.1
    ridges = [row["ridge_point"] for row in sl.accelerator_table("bf16")]
    assert 150 < min(ridges) and max(ridges) < 300          # "between about 150 and 300"
    h100, a100 = sl.get_accelerator("H100"), sl.get_accelerator("A100")
    assert round(h100.peak("bf16") / a100.peak("bf16"), 2) == 3.17
    assert round(h100.memory_bandwidth / a100.memory_bandwidth, 2) == 1.64
    assert round(h100.ridge_point("fp8")) == 591


# --- kernels --------------------------------------------------------------------------------------

@given(dims, st.sampled_from([1, 2, 4, 8]))
def test_square_gemm_intensity_is_2n_over_3w(n, w):
    assert math.isclose(sl.gemm_intensity(n, n, n, w), 2 * n / (3 * w), rel_tol=1e-12)


@given(dims, dims, dims, st.sampled_from([1, 2, 4]))
def test_gemm_intensity_is_flops_over_bytes_and_symmetric(m, n, k, w):
    i = sl.gemm_intensity(m, n, k, w)
    assert math.isclose(i, sl.gemm_flops(m, n, k) / sl.gemm_bytes(m, n, k, w), rel_tol=1e-12)
    assert math.isclose(i, sl.gemm_intensity(n, m, k, w), rel_tol=1e-12)   # C^T = B^T A^T moves the same bytes
    assert sl.gemm_flops(m, n, k) == 2.0 * m * n * k


def test_skinny_gemm_intensity_tends_to_2m_over_w():
    for m in (1, 4, 16):
        i = sl.gemm_intensity(m, 1e7, 1e7)
        assert math.isclose(i, m, rel_tol=1e-5)


def test_elementwise_intensity():
    assert sl.elementwise_intensity() == 1 / 6
    assert sl.elementwise_intensity(1, 3, 8) == 1 / 24
    assert sl.elementwise_intensity(2, 5, 2) == sl.arithmetic_intensity(2, 10)


@given(st.floats(min_value=1, max_value=1e5), st.floats(min_value=1e8, max_value=1e12))
def test_decode_intensity_equals_the_batch_for_two_byte_weights(b, n):
    assert math.isclose(sl.decode_intensity(b, n), b, rel_tol=1e-12)
    assert math.isclose(sl.decode_intensity(b, n, bytes_per_param=1), 2 * b, rel_tol=1e-12)


def test_decode_intensity_saturates_with_cache_traffic():
    n, kv = 7e9, 3e8
    big = sl.decode_intensity(1e9, n, 2, kv)
    assert math.isclose(big, 2 * n / kv, rel_tol=1e-3)
    assert sl.decode_intensity(64, n, 2, kv) < 64


def test_decode_throughput_grows_with_the_batch_until_the_ridge():
    acc = sl.get_accelerator("A100")
    p, b = acc.peak("bf16"), acc.memory_bandwidth
    ridge = acc.ridge_point("bf16")
    t1 = sl.decode_tokens_per_second(1, 7e9, p, b)
    for batch in (2, 16, 64, 128, 153):
        assert math.isclose(sl.decode_tokens_per_second(batch, 7e9, p, b), batch * t1, rel_tol=1e-12)
    flat = sl.decode_tokens_per_second([ridge * 2, ridge * 8], 7e9, p, b)
    np.testing.assert_allclose(flat, p / (2 * 7e9))


# --- numbers the text of Section 3.7 quotes -------------------------------------------------------

def test_section_3_7_claims():
    a100, h100, h200 = (sl.get_accelerator(x) for x in ("A100", "H100", "H200"))
    P, B = a100.peak("bf16"), a100.memory_bandwidth
    # one FLOP per byte reaches 2 TFLOP/s on the A100, under 1% of its peak
    assert round(sl.attainable_flops(1, P, B) / 1e12, 1) == 2.0 and sl.attainable_flops(1, P, B) / P < 0.01
    # the square GEMM turns compute-bound between orders 256 and 1024 on the H100
    Ph, Bh = h100.peak("bf16"), h100.memory_bandwidth
    assert sl.roofline_regime(sl.gemm_intensity(256, 256, 256), Ph, Bh) == "memory-bound"
    assert sl.roofline_regime(sl.gemm_intensity(1024, 1024, 1024), Ph, Bh) == "compute-bound"
    # the slider's order 512: compute-bound on the A100 only
    regimes = {name: sl.roofline_regime(sl.gemm_intensity(512, 512, 512), acc.peak("bf16"), acc.memory_bandwidth)
               for name, acc in ((n, sl.get_accelerator(n)) for n in ("A100", "H100", "MI300X", "TPU v5e"))}
    assert regimes == {"A100": "compute-bound", "H100": "memory-bound", "MI300X": "memory-bound",
                       "TPU v5e": "memory-bound"}
    # decoding a 7B model: 6.87 ms per step at every batch up to the ridge, under 1% of peak at batch 1
    assert round(sl.decode_step_time(1, 7e9, P, B) * 1e3, 2) == 6.87
    assert round(sl.decode_step_time(153, 7e9, P, B) * 1e3, 2) == 6.87
    assert 2 * 7e9 * sl.decode_tokens_per_second(1, 7e9, P, B) / P < 0.01
    assert sl.decode_tokens_per_second(64, 7e9, P, B) / sl.decode_tokens_per_second(1, 7e9, P, B) == 64
    # fusing a*x + b: intensity 0.2 -> 0.33, time x0.6
    assert math.isclose(sl.arithmetic_intensity(2, 10) / sl.arithmetic_intensity(2, 6), 0.6)
    # H200 over H100: 43% faster at batch 1, no faster at batch 1024
    gain = [sl.decode_tokens_per_second(b, 7e9, h200.peak("bf16"), h200.memory_bandwidth)
            / sl.decode_tokens_per_second(b, 7e9, Ph, Bh) for b in (1, 1024)]
    assert round(gain[0], 2) == 1.43 and gain[1] == 1.0
    # the sum of per-kernel bounds exceeds the bound of the sums (3.7.6)
    w1, q1 = sl.gemm_flops(4096, 4096, 4096), sl.gemm_bytes(4096, 4096, 4096)
    w2, q2 = 4096**2, 6 * 4096**2
    per_kernel = sl.roofline_time(w1, q1, Ph, Bh) + sl.roofline_time(w2, q2, Ph, Bh)
    assert per_kernel > sl.roofline_time(w1 + w2, q1 + q2, Ph, Bh)
    # the A100 and H100 decode ceilings quoted in Figure 3.7.2's description
    assert round(a100.peak("bf16") / 14e9, -3) == 22000 and round(Ph / 14e9, -3) == 71000


# --- the drawing functions -----------------------------------------------------------------------

def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


@pytest.mark.parametrize("device", ["A100 SXM 80GB", "H100 SXM 80GB", "MI300X", "TPU v5e"])
@pytest.mark.parametrize("gemm_size", [16, 64, 256, 512, 1024, 4096, 16384])
def test_device_roofline_frames(fig, device, gemm_size):
    ax = s3_7.device_roofline(fig, device, gemm_size)
    acc = sl.get_accelerator(device)
    lines = _lines(ax)
    x, y = lines[f"{acc.name} (bf16)"]
    np.testing.assert_allclose(y * 1e12, sl.attainable_flops(x, acc.peak("bf16"), acc.memory_bandwidth))
    gx, gy = lines[f"GEMM {gemm_size}\u00b3"]
    assert gx[0] == pytest.approx(sl.gemm_intensity(gemm_size, gemm_size, gemm_size))
    assert gy[0] * 1e12 == pytest.approx(sl.attainable_flops(gx[0], acc.peak("bf16"), acc.memory_bandwidth))
    regime = sl.roofline_regime(gx[0], acc.peak("bf16"), acc.memory_bandwidth)
    assert regime in ax.get_title()


def test_plot_roofline_places_measured_kernels_at_their_rate(fig):
    ax = fig.subplots()
    sl.plot_roofline(ax, 1e11, 1e10, {"on the roof": 2.0, "measured": (2.0, 5e9)}, label="roof", scale=1e9)
    lines = _lines(ax)
    assert lines["on the roof"][1][0] == pytest.approx(20.0)      # B I = 20 GFLOP/s
    assert lines["measured"][1][0] == pytest.approx(5.0)


def test_plot_device_roofline_uses_the_catalog(fig):
    ax = sl.plot_device_roofline(fig.subplots(), "TPU v5e", {"GEMM 256³": sl.gemm_intensity(256, 256, 256)})
    acc = sl.get_accelerator("TPU v5e")
    x, y = _lines(ax)["TPU v5e (bf16)"]
    np.testing.assert_allclose(y * 1e12, sl.attainable_flops(x, acc.peak("bf16"), acc.memory_bandwidth))
    with pytest.raises(ValueError, match="name must be one of"):
        sl.plot_device_roofline(fig.subplots(), "B200")


def test_catalog_and_decode_figures_plot_the_model(fig):
    ax = s3_7.catalog_rooflines(fig, kernels={"vector add": 1 / 6})
    for name in ("A100 SXM 80GB", "TPU v5e"):
        acc = sl.get_accelerator(name)
        x, y = _lines(ax)[acc.name]
        np.testing.assert_allclose(y * 1e12, sl.attainable_flops(x, acc.peak("bf16"), acc.memory_bandwidth))
    plt.close(fig)
    figure = plt.figure()
    ax_t, ax_u = s3_7.decode_batching(figure, n_params=7e9)
    acc = sl.get_accelerator("H100")
    b, tokens = _lines(ax_t)[acc.name]
    np.testing.assert_allclose(tokens, sl.decode_tokens_per_second(b, 7e9, acc.peak("bf16"), acc.memory_bandwidth))
    assert np.all(_lines(ax_u)[acc.name][1] <= 1 + 1e-12)
    plt.close(figure)


def test_measured_roofline_draws_synthetic_runs(fig):
    runs = [sl.probe.KernelRun("add", 1e6, 24e6, 24e6 / 10e9), sl.probe.KernelRun("mm", 2e9, 24e6, 0.1)]
    ax = s3_7.measured_roofline(fig, 50e9, 10e9, runs, machine="test machine")
    lines = _lines(ax)
    assert lines["add"][1][0] == pytest.approx(1e6 / (24e6 / 10e9) / 1e9)
    x, y = lines["test machine: min(P, B I)"]
    np.testing.assert_allclose(y * 1e9, sl.attainable_flops(x, 50e9, 10e9))
