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


def test_bytes_per_element_covers_every_catalog_precision():
    from scalinglib.hardware import PRECISIONS
    assert tuple(sl.roofline.BYTES_PER_ELEMENT) == PRECISIONS
    assert [sl.roofline.precision_bytes(p) for p in PRECISIONS] == [8, 4, 4, 2, 2, 1, 1]
    assert sl.roofline.precision_bytes(" FP64 ") == 8
    with pytest.raises(ValueError, match="precision must be one of"):
        sl.roofline.precision_bytes("fp4")
    with pytest.raises(TypeError, match="precision"):
        sl.roofline.precision_bytes(8)


@given(peaks, bandwidths, st.sampled_from([0.5, 1, 2, 4]))
def test_decode_ridge_batch_is_where_decode_meets_the_ridge(p, b, bp):
    batch = sl.roofline.decode_ridge_batch(p, b, bp)
    assert math.isclose(sl.decode_intensity(batch, 7e9, bp), sl.ridge_point(p, b), rel_tol=1e-9)
    # twice the peak with half the bytes per weight: the same ridge batch
    assert math.isclose(sl.roofline.decode_ridge_batch(2 * p, b, bp / 2), batch, rel_tol=1e-12)


def test_decode_ridge_batch_refuses_bad_input():
    with pytest.raises(ValueError, match="peak_flops"):
        sl.roofline.decode_ridge_batch(0, 1e12)
    with pytest.raises(ValueError, match="bytes_per_param"):
        sl.roofline.decode_ridge_batch(1e15, 1e12, "fp3")
    np.testing.assert_allclose(sl.roofline.decode_ridge_batch([1e15, 2e15], 1e12), [1000.0, 2000.0])   # b_p = 2: b* = P/B


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
    # exercise 3.7.1 (b)(ii), (c): order 768 on the H100 has I = 256, memory-bound, 858 TFLOP/s, 87% of the peak
    i768 = sl.gemm_intensity(768, 768, 768)
    assert round(i768, 6) == 256 and sl.roofline_regime(i768, Ph, Bh) == "memory-bound"
    assert round(sl.attainable_flops(i768, Ph, Bh) / 1e12) == 858 and f"{Bh * i768 / Ph:.0%}" == "87%"
    assert sl.exercises.s3_7.classify_h100() == ["memory", "memory", "compute", "memory"]
    # the A100 and H100 decode ceilings quoted in Figure 3.7.2's description
    assert round(a100.peak("bf16") / 14e9, -3) == 22000 and round(Ph / 14e9, -3) == 71000


def test_section_3_7_hand_written_models_equal_the_library():
    """3.7.1-3.7.3 write each model in plain numpy first; the library gives the same numbers."""
    a100, h100 = sl.get_accelerator("A100"), sl.get_accelerator("H100")
    P, B = a100.peak("bf16"), a100.memory_bandwidth
    intensity = np.array([0.25, 1, 16, 153, 1000])
    np.testing.assert_array_equal(np.minimum(P, B * intensity), sl.attainable_flops(intensity, P, B))
    assert sl.ridge_point(P, B) == a100.ridge_point("bf16") == P / B
    assert np.round(np.minimum(P, B * intensity) / 1e12, 1).tolist() == [0.5, 2.0, 32.6, 312.0, 312.0]
    order = np.array([16, 64, 256, 1024, 4096])
    by_hand = 2.0 * order**3 / (2 * 3.0 * order**2)
    np.testing.assert_allclose(by_hand, sl.gemm_intensity(order, order, order, 2), rtol=1e-15)
    assert round(sl.elementwise_intensity(1, 3, 2), 3) == 0.167
    reach = sl.attainable_flops(by_hand, h100.peak("bf16"), h100.memory_bandwidth)
    assert [round(r / 1e12, 1) for r in reach] == [17.9, 71.5, 285.9, 989.5, 989.5]
    batch = np.array([1, 8, 64, 153, 256, 1024])
    step = np.maximum(2 * 7e9 * batch / P, 2 * 7e9 / B)
    np.testing.assert_allclose(batch / step, sl.decode_tokens_per_second(batch, 7e9, P, B), rtol=1e-15)
    assert 2 * 7e9 / 1e9 == 14                                         # "14 GB of weights"
    assert f"{2 * 7e9 * (1 / step[0]) / P:.1%}" == "0.7%"              # share of the peak at batch 1
    assert [round(1e3 * t, 2) for t in step] == [6.87, 6.87, 6.87, 6.87, 11.49, 45.95]


def test_section_3_7_ridge_trend_of_gholami_et_al():
    """Gholami et al. (2024): peak FLOP/s x3.0, DRAM bandwidth x1.6 (interconnect x1.4) every two years over
    about twenty years of server hardware; the ridge point would drift right by their ratio, 1.88."""
    trend = sl.roofline.GROWTH_PER_TWO_YEARS
    assert trend == {"peak_flops": 3.0, "dram_bandwidth": 1.6, "interconnect_bandwidth": 1.4}
    assert round(trend["peak_flops"] / trend["dram_bandwidth"], 2) == 1.88


def test_section_3_7_the_measured_batching_gain_and_the_cache_it_implies():
    """DatabaseMart's A100 vLLM benchmark as Bhandari (2025) reports it: about 27x from batch 1 to batch 64.
    The roofline gives 64x without cache traffic; a cache of eta = 0.0222 of the weight bytes per sequence
    (311 MB for 7B bf16 weights) brings it to 27x."""
    from scalinglib.exercises import s3_7 as ex

    assert ex.MEASURED_SPEEDUP == 27.0
    a100 = sl.get_accelerator("A100")
    P, B = a100.peak("bf16"), a100.memory_bandwidth
    eta = ex.kv_fraction_for()
    assert round(eta, 4) == 0.0222 and eta == (64 - 27) / (27 * 64 - 64)
    kv = eta * 2 * 7e9
    assert round(kv / 1e6) == 311
    gain = sl.decode_tokens_per_second(64, 7e9, P, B, kv_bytes_per_seq=kv) / sl.decode_tokens_per_second(
        1, 7e9, P, B, kv_bytes_per_seq=kv)
    assert gain == pytest.approx(ex.MEASURED_SPEEDUP, rel=1e-12)
    assert sl.decode_tokens_per_second(64, 7e9, P, B) / sl.decode_tokens_per_second(1, 7e9, P, B) == 64


def test_section_3_7_kernels_in_sequence():
    """3.7.6 on the H100: GEMM 4096 then an add, 168.9 us one by one, the add 30.0 us of it (18%), 138.9 us
    for the right-hand bound and for the fused kernel alike. Exercise 3.7.5 on the A100: 522.8 us one by one, 441.0 us fused, a saving of 0.156; the
    solution's per-kernel times 440.5, 49.4 (twice) and 32.9 us."""
    h100, a100 = sl.get_accelerator("H100"), sl.get_accelerator("A100")
    Ph, Bh = h100.peak("bf16"), h100.memory_bandwidth
    elements = 4096**2
    gemm = (sl.gemm_flops(4096, 4096, 4096), sl.gemm_bytes(4096, 4096, 4096))
    add = (elements, 6 * elements)
    t_add = sl.roofline_time(*add, Ph, Bh)
    one_by_one = sum(sl.roofline_time(w, q, Ph, Bh) for w, q in (gemm, add))
    as_one = sl.roofline_time(gemm[0] + add[0], gemm[1] + add[1], Ph, Bh)
    fused = sl.roofline_time(gemm[0] + add[0], 8 * elements, Ph, Bh)        # two inputs, the added matrix, the output
    assert (round(one_by_one * 1e6, 1), round(as_one * 1e6, 1)) == (168.9, 138.9)
    assert round(t_add * 1e6, 1) == 30.0 and f"{t_add / one_by_one:.0%}" == "18%"   # the add's share of the step
    assert round(fused * 1e6, 1) == 138.9 == round((gemm[0] + add[0]) / Ph * 1e6, 1)  # compute-bound: W / P
    assert sl.roofline_regime(gemm[0] / gemm[1], Ph, Bh) == "compute-bound"
    assert sl.roofline_regime(add[0] / add[1], Ph, Bh) == "memory-bound"
    step, fused = sl.exercises.s3_7.kernel_sequence_times()
    assert (round(step * 1e6, 1), round(fused * 1e6, 1), round(1 - fused / step, 3)) == (522.8, 441.0, 0.156)
    P, B = a100.peak("bf16"), a100.memory_bandwidth
    assert round(gemm[0] / P * 1e6, 1) == 440.5 and round(gemm[1] / B * 1e6, 1) == 49.4
    assert round(4 * elements / B * 1e6, 1) == 32.9 and round(8 * elements / B * 1e6, 1) == 65.8
    assert round((gemm[0] + 9 * elements) / P * 1e6, 1) == 441.0


def test_section_3_7_successors_move_the_ridge_both_ways():
    pairs = {("A100", "H100"): (153, 295, 3.17, 1.64), ("H100", "H200"): (295, 206, 1.00, 1.43),
             ("TPU v4", "TPU v5e"): (229, 241, 0.72, 0.68), ("TPU v4", "TPU v5p"): (229, 166, 1.67, 2.30)}
    for (a, b), (before, after, peak_ratio, bw_ratio) in pairs.items():
        old, new = sl.get_accelerator(a), sl.get_accelerator(b)
        assert (round(old.ridge_point("bf16")), round(new.ridge_point("bf16"))) == (before, after)
        assert round(new.peak("bf16") / old.peak("bf16"), 2) == peak_ratio
        assert round(new.memory_bandwidth / old.memory_bandwidth, 2) == bw_ratio
    # "tripled the peak and less than doubled the bandwidth"; "the v5e barely moves it"
    assert 3 < pairs["A100", "H100"][2] < 3.5 and pairs["A100", "H100"][3] < 2
    assert abs(241 / 229 - 1) < 0.06


def _smallest(mask):
    return int(np.arange(1, 5000)[np.argmax(mask)])


def test_section_3_7_fp8_keeps_a_shrinking_kernel_in_place():
    """H100: square GEMM compute-bound from n = 887 and decode from batch 296 in bf16 and in fp8 (fp8 output)
    alike; fp8 arithmetic on 16-bit data needs n = 1773 and batch 591."""
    h100 = sl.get_accelerator("H100")
    c = np.arange(1, 5000)
    table = {}
    for label, nbytes, precision in (("bf16", 2, "bf16"), ("fp8", 1, "fp8"), ("mixed", 2, "fp8")):
        ridge = h100.ridge_point(precision)
        table[label] = (_smallest(sl.gemm_intensity(c, c, c, nbytes) >= ridge),
                        _smallest(sl.decode_intensity(c, 7e9, bytes_per_param=nbytes) >= ridge))
    assert table == {"bf16": (887, 296), "fp8": (887, 296), "mixed": (1773, 591)}
    assert table["bf16"][0] == sl.exercises.s3_7.smallest_compute_bound_square("H100 SXM 80GB")
    assert math.ceil(sl.roofline.decode_ridge_batch(h100.peak("fp8"), h100.memory_bandwidth, 1)) == 296
    assert round(h100.ridge_point("bf16"), 1) == 295.4 and round(h100.ridge_point("fp8"), 1) == 590.7


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
    with pytest.raises(ValueError, match="device must be one of"):
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


@pytest.mark.parametrize("name", ["A100 SXM 80GB", "H100 SXM 80GB"])
def test_decode_figure_reaches_full_use_exactly_at_the_ridge_batch(fig, name):
    """Figure 3.7.2 samples densely and at the ridge batch: the curve meets 1 on its dotted line, not past it."""
    ax_t, ax_u = s3_7.decode_batching(fig, n_params=7e9)
    acc = sl.get_accelerator(name)
    ridge_batch = acc.ridge_point("bf16")
    b, used = _lines(ax_u)[acc.name]
    assert b.size > 100 and b.min() == 1 and b.max() == 2048
    at = np.flatnonzero(np.isclose(b, ridge_batch, rtol=1e-12))
    assert at.size == 1 and used[at[0]] == pytest.approx(1.0)
    below = b < ridge_batch
    np.testing.assert_allclose(used[below], b[below] / ridge_batch)       # straight up to the ridge ...
    np.testing.assert_allclose(used[~below], 1.0)                         # ... and flat after it
    ridges = [float(line.get_xdata()[0]) for line in ax_u.get_lines() if line.get_linestyle() == ":"]
    assert any(math.isclose(x, ridge_batch) for x in ridges)


def test_device_roofline_counts_the_bytes_of_each_precision(fig):
    """fp64 numbers are 8 bytes: a 1024-cubed A100 fp64 GEMM has I = 2 * 1024 / 24 = 85.3, not 171."""
    ax = s3_7.device_roofline(fig, "A100 SXM 80GB", 1024, precision="fp64")
    gx, _ = _lines(ax)["GEMM 1024\u00b3"]
    assert gx[0] == pytest.approx(2 * 1024 / 24) and round(gx[0], 1) == 85.3
    assert "I = 85 FLOP/byte" in ax.get_title()
    add_x, _ = _lines(ax)["vector add"]
    assert add_x[0] == pytest.approx(1 / 24)
    plt.close(fig)
    for precision, nbytes in (("bf16", 2), ("fp8", 1), ("fp32", 4)):
        figure = plt.figure()
        ax = s3_7.device_roofline(figure, "H100 SXM 80GB", 512, precision=precision)
        assert _lines(ax)["GEMM 512\u00b3"][0][0] == pytest.approx(sl.gemm_intensity(512, 512, 512, nbytes))
        plt.close(figure)


def test_measured_roofline_draws_synthetic_runs(fig):
    runs = [sl.probe.KernelRun("add", 1e6, 24e6, 24e6 / 10e9), sl.probe.KernelRun("mm", 2e9, 24e6, 0.1)]
    ax = s3_7.measured_roofline(fig, 50e9, 10e9, runs, machine="test machine")
    lines = _lines(ax)
    assert lines["add"][1][0] == pytest.approx(1e6 / (24e6 / 10e9) / 1e9)
    x, y = lines["test machine: min(P, B I)"]
    np.testing.assert_allclose(y * 1e9, sl.attainable_flops(x, 50e9, 10e9))


# --- exercise checks accept what the library returns -----------------------------------------------

def test_ex_3_7_1b_accepts_roofline_regime_outputs():
    """The answer may be given as sl.roofline_regime returns it: 'memory-bound' strings, a numpy array of them,
    or 0-d arrays; a wrong item is still caught."""
    from scalinglib import check
    h100 = sl.get_accelerator("H100")
    p, b = h100.peak("bf16"), h100.memory_bandwidth
    intensities = [sl.elementwise_intensity(1, 3, 2), sl.gemm_intensity(512, 512, 512),
                   sl.gemm_intensity(4096, 4096, 4096), sl.decode_intensity(32, 7e9)]
    as_strings = [sl.roofline_regime(i, p, b) for i in intensities]
    assert as_strings == ["memory-bound", "memory-bound", "compute-bound", "memory-bound"]
    assert check("ex-3-7-1b", as_strings).correct
    assert check("ex-3-7-1b", sl.roofline_regime(np.array(intensities), p, b)).correct
    assert check("ex-3-7-1b", [np.array(s) for s in as_strings]).correct
    assert not check("ex-3-7-1b", ["memory-bound"] * 4).correct


def test_with_threads_runs_a_measurement_with_the_maths_library_pinned():
    """3.7.5 times its multiplies in a child Python whose maths library is told how many threads to use."""
    assert "OPENBLAS_NUM_THREADS" in sl.probe.THREAD_VARIABLES
    t = sl.probe.with_threads(1, "matmul_timings", sizes=[8, 16], repeats=1)
    assert t.amount.tolist() == [1024.0, 8192.0] and np.all(t.seconds > 0)
    runs = sl.probe.with_threads(1, "kernel_runs", vector_elements=1000, matvec_order=50, matmul_orders=[8],
                                 repeats=1)
    assert [r.name for r in runs] == ["vector add", "a*x + y (two passes)", "matrix-vector 50", "matmul 8"]
    with pytest.raises(ValueError, match="threads"):
        sl.probe.with_threads(0, "matmul_timings")
    with pytest.raises(ValueError, match="threads"):
        sl.probe.with_threads(2000, "matmul_timings")
    with pytest.raises(ValueError, match="measurement"):
        sl.probe.with_threads(1, "cpu_info")


def test_section_3_7_fp8_output_and_weight_only_rows():
    """3.7.4's table: an fp8 multiply writing bf16 has I = x/2 and needs order 1,182 ("a third more" than 887);
    weight-only 8-bit (bf16 peak) needs order 739 and decoding turns compute-bound at batch 148, half of 296."""
    h100 = sl.get_accelerator("H100")
    c = np.arange(1, 5000)
    rows = {}
    for label, act, weight, out, precision in (("bf16", 2, 2, 2, "bf16"), ("fp8->bf16", 1, 1, 2, "fp8"),
                                               ("fp8->fp8", 1, 1, 1, "fp8"), ("bf16 on fp8", 2, 2, 2, "fp8"),
                                               ("weight-only", 2, 1, 2, "bf16")):
        ridge = h100.ridge_point(precision)
        rows[label] = (_smallest(sl.gemm_intensity(c, c, c, act, weight_bytes=weight, output_bytes=out) >= ridge),
                       _smallest(sl.decode_intensity(c, 7e9, bytes_per_param=weight) >= ridge))
    assert rows == {"bf16": (887, 296), "fp8->bf16": (1182, 296), "fp8->fp8": (887, 296),
                    "bf16 on fp8": (1773, 591), "weight-only": (739, 148)}
    assert 1182 / 887 == pytest.approx(4 / 3, rel=0.01)
    np.testing.assert_allclose(sl.gemm_intensity(c, c, c, 1, output_bytes=2), c / 2)
    np.testing.assert_allclose(sl.gemm_intensity(c, c, c, 2, weight_bytes=1), 2 * c / 5)


@given(dims, dims, dims, st.floats(0.5, 8), st.floats(0.5, 8), st.floats(0.5, 8))
def test_gemm_bytes_per_operand(m, n, k, a, w, c):
    assert sl.gemm_bytes(m, n, k, a, weight_bytes=w, output_bytes=c) == pytest.approx(a * m * k + w * k * n + c * m * n)
    assert sl.gemm_bytes(m, n, k, a) == sl.gemm_bytes(m, n, k, a, weight_bytes=a, output_bytes=a)
    assert sl.gemm_intensity(m, n, k, a, weight_bytes=w, output_bytes=c) == pytest.approx(
        sl.gemm_flops(m, n, k) / sl.gemm_bytes(m, n, k, a, weight_bytes=w, output_bytes=c))


def test_gemm_operand_bytes_are_validated():
    with pytest.raises(ValueError, match="weight_bytes"):
        sl.gemm_bytes(8, 8, 8, weight_bytes=0)
    with pytest.raises(ValueError, match="output_bytes"):
        sl.gemm_intensity(8, 8, 8, output_bytes=-1)
    with pytest.raises(TypeError, match="output_bytes"):
        sl.gemm_intensity(8, 8, 8, output_bytes="two")


def test_section_3_7_kv_cache_ceilings():
    """3.7.3: a Llama-2-7B-shaped model (32 layers, 32 heads of 128) at 2,048 tokens on the A100 80GB. MHA:
    1.074 GB a sequence, 61 fit beside 14 GB of weights (so batch 64 cannot be formed), I = 10.7 at 61, limit 13.0.
    GQA with 8 KV heads: 0.268 GB, 245 fit, I = 43.0, limit 52.2; 29.3x from batch 1 to 64. All below the ridge 153."""
    r = sl.roofline
    a100 = sl.get_accelerator("A100")
    P, B, M = a100.peak("bf16"), a100.memory_bandwidth, a100.memory_bytes
    got = {}
    for label, heads in (("MHA", 32), ("GQA", 8)):
        c_kv = sl.kv_cache_bytes(2048, 32, heads, 128)
        b_max = r.kv_cache_batch_limit(M, 7e9, c_kv)
        got[label] = (round(c_kv / 1e9, 3), b_max, round(sl.decode_intensity(b_max, 7e9, kv_bytes_per_seq=c_kv), 1),
                      round(r.decode_intensity_limit(7e9, c_kv), 1))
        assert got[label][2] < got[label][3] < a100.ridge_point("bf16")
    assert got == {"MHA": (1.074, 61, 10.7, 13.0), "GQA": (0.268, 245, 43.0, 52.2)}
    assert got["MHA"][1] < 64 and 14e9 + 61 * sl.kv_cache_bytes(2048, 32, 32, 128) <= M
    c = sl.kv_cache_bytes(2048, 32, 8, 128)
    gain = sl.decode_tokens_per_second(64, 7e9, P, B, kv_bytes_per_seq=c) / sl.decode_tokens_per_second(
        1, 7e9, P, B, kv_bytes_per_seq=c)
    assert round(gain, 1) == 29.3 and gain < 64 / 2            # "cuts the gain by more than half"


def test_kv_cache_limits_validate_and_broadcast():
    r = sl.roofline
    assert r.kv_cache_batch_limit(80e9, 70e9, 1e9) == 0.0      # 140 GB of weights leave no room
    np.testing.assert_array_equal(r.kv_cache_batch_limit([80e9, 141e9], 7e9, 1e9), [66.0, 127.0])
    assert r.decode_intensity_limit(7e9, 1.4e9) == pytest.approx(10.0)
    # the intensity approaches the limit from below as the batch grows
    i = sl.decode_intensity(np.array([1, 10, 1e3, 1e6]), 7e9, kv_bytes_per_seq=1.4e9)
    assert np.all(np.diff(i) > 0) and i[-1] < 10.0 and i[-1] == pytest.approx(10.0, rel=1e-4)
    for bad in ({"memory_bytes": 0}, {"kv_bytes_per_seq": 0}, {"n_params": -1}):
        args = {"memory_bytes": 80e9, "n_params": 7e9, "kv_bytes_per_seq": 1e9} | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            r.kv_cache_batch_limit(**args)
    with pytest.raises(ValueError, match="kv_bytes_per_seq"):
        r.decode_intensity_limit(7e9, 0)


def test_section_3_7_ridges_at_equal_precision():
    """3.7.6: Xeon 8480+ socket 3.58 TFLOP/s fp64, 307.2 GB/s, ridge 11.7; A100 fp64 9.6, H100 fp64 20.0; bf16 153.0
    and 295.4."""
    p, b = sl.roofline.cpu_socket_roof()
    assert (round(p / 1e12, 2), round(b / 1e12, 3), round(p / b, 1)) == (3.58, 0.307, 11.7)
    a100, h100 = sl.get_accelerator("A100"), sl.get_accelerator("H100")
    assert (round(a100.ridge_point("fp64"), 1), round(h100.ridge_point("fp64"), 1)) == (9.6, 20.0)
    assert (round(a100.ridge_point("bf16"), 1), round(h100.ridge_point("bf16"), 1)) == (153.0, 295.4)
    assert sl.roofline.CPU_SOCKET_EXAMPLE["last_level_cache_bytes"] == 105e6
    with pytest.raises(ValueError, match="clock_hz"):
        sl.roofline.cpu_socket_roof(dict(sl.roofline.CPU_SOCKET_EXAMPLE, clock_hz=0))
    with pytest.raises(ValueError, match="lacks"):
        sl.roofline.cpu_socket_roof({"cores": 4})
    with pytest.raises(TypeError, match="spec"):
        sl.roofline.cpu_socket_roof([1, 2])


def test_section_3_7_small_multiply_cannot_fill_the_gpu():
    """3.7.7: a 512-cubed multiply in 128 x 128 tiles has 16 tiles: 15% of the A100's 108 SMs, 12% of the H100's 132;
    its roofline time on the H100 is 0.47 us, under half a microsecond."""
    tiles = (512 // 128) ** 2
    assert tiles == 16 and f"{tiles / 108:.0%}" == "15%" and f"{tiles / 132:.0%}" == "12%"
    h100 = sl.get_accelerator("H100")
    t = sl.roofline_time(sl.gemm_flops(512, 512, 512), sl.gemm_bytes(512, 512, 512), h100.peak("bf16"),
                         h100.memory_bandwidth)
    assert round(t * 1e6, 2) == 0.47 and t < 0.5e-6


def test_section_3_7_exercise_solutions_quote_the_library():
    """The solutions' numbers: 3.7.1 MI300X fp8 ridge 493.4 (about twice its bf16 one), order 1536 has I = 512;
    3.7.2(a) 3 x the MI300X's bf16 ridge = 740.04, so 741; 3.7.3 on the H200 with 8-bit weights: 2.71 ms, 26 us of
    arithmetic, ridge batch 103.1, share 0.621 at batch 64; 3.7.4 with a 70B 8-bit model: 20.9 ms on the H100,
    18.1 ms on the H200 at batch 128 (1.15x, under the 1.43x bandwidth ratio), 1.0 at batch 256."""
    from scalinglib.exercises import expected_answer
    from scalinglib.exercises import s3_7 as ex

    mi = sl.get_accelerator("MI300X")
    assert round(expected_answer("ex-3-7-1a"), 1) == 493.4 and expected_answer("ex-3-7-1a") == pytest.approx(
        2 * mi.ridge_point("bf16"), rel=1e-4)
    assert sl.gemm_intensity(1536, 1536, 1536) == pytest.approx(512)
    assert round(3 * mi.ridge_point("bf16"), 2) == 740.04 and expected_answer("ex-3-7-2a") == 741
    h200, h100 = sl.get_accelerator("H200"), sl.get_accelerator("H100")
    step, ridge_batch, share = ex.quantized_decode()
    assert (round(step * 1e3, 2), round(ridge_batch, 1), round(share, 3)) == (2.71, 103.1, 0.621)
    assert round(2 * 13e9 / h200.peak("bf16") * 1e6) == 26 and round(h200.ridge_point("bf16"), 1) == 206.1
    t_h100 = sl.decode_step_time(128, 70e9, h100.peak("bf16"), h100.memory_bandwidth, 1)
    t_h200 = sl.decode_step_time(128, 70e9, h200.peak("bf16"), h200.memory_bandwidth, 1)
    assert (round(t_h100 * 1e3, 1), round(t_h200 * 1e3, 1)) == (20.9, 18.1)
    fast = ex.upgrade_speedups()
    assert round(fast[0], 2) == 1.15 and fast[0] < 1.43 and fast[1] == 1.0
    assert sl.roofline_regime(256, h100.peak("bf16"), h100.memory_bandwidth) == "memory-bound"
    assert sl.roofline_regime(256, h200.peak("bf16"), h200.memory_bandwidth) == "compute-bound"


def test_measured_roofline_draws_the_whole_machine_roof(fig):
    runs = [sl.probe.KernelRun("add", 1e6, 24e6, 24e6 / 10e9)]
    ax = s3_7.measured_roofline(fig, 50e9, 10e9, runs, machine="one core", whole=("4 cores", 180e9, 25e9))
    lines = _lines(ax)
    x, y = lines["4 cores"]
    np.testing.assert_allclose(y * 1e9, sl.attainable_flops(x, 180e9, 25e9))
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"one core: min(P, B I)", "4 cores"}
    with pytest.raises(TypeError, match="whole"):
        s3_7.measured_roofline(plt.figure(), 50e9, 10e9, runs, whole=(1, 2))
