"""Every number the prose of Sections 3.2 and 3.4 quotes, recomputed with the library, and found in the
stored outputs of the notebooks (so that text and cells cannot drift apart)."""

import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

import scalinglib as sl
from scalinglib.exercises import expected_answer, registered_keys

BOOK = Path(__file__).resolve().parent.parent / "book"


def _printed(name):
    nb = nbformat.read(BOOK / f"{name}.ipynb", as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") == "stream")


S32 = "03-02-horizontal-and-vertical-scaling"
S34 = "03-04-latency-throughput-and-tail-latency"


# --- Section 3.2 ------------------------------------------------------------------------------------------------

def test_single_device_ceilings():
    largest = max(sl.CATALOG.values(), key=lambda a: a.memory_bytes)
    fastest = max(sl.CATALOG.values(), key=lambda a: a.peak("bf16"))
    assert largest.name == "MI300X" and largest.memory_bytes == 192e9
    assert round(70e9 * 16 / largest.memory_bytes, 1) == 5.8
    years = 6 * 175e9 * 300e9 / (0.5 * fastest.peak("bf16")) / (365.25 * 86400)
    assert round(years, 1) == 15.3
    text = _printed(S32)
    assert "1.12 TB = 5.8 times the largest device" in text and "15.3 years" in text


def test_bytes_per_parameter_and_devices():
    assert sl.BYTES_PER_PARAM["train_mixed_adam"] == 2 + 2 + 4 + 4 + 4
    h100 = sl.get_accelerator("H100").memory_bytes
    assert sl.devices_to_hold(70e9, "train_mixed_adam", h100) == 16
    assert sl.devices_to_hold(70e9, "infer_fp16", h100) == 2
    assert "library: 16 2" in _printed(S32)


def test_devices_table_claims():
    counts = {d: sl.devices_to_hold(n, "train_mixed_adam", sl.CATALOG[d].memory_bytes)
              for d in sl.CATALOG for n in [13e9]}
    assert set(counts.values()) >= {2, 3}          # "a 13B model already needs two or three GPUs"
    a100 = sl.CATALOG["A100 SXM 80GB"].memory_bytes
    assert sl.devices_to_hold(70e9, "train_mixed_adam", a100) == 16            # two servers of eight
    assert sl.devices_to_hold(1e12, "train_mixed_adam", a100) > 200
    mi300x = sl.CATALOG["MI300X"].memory_bytes
    v5e = sl.CATALOG["TPU v5e"].memory_bytes
    for n in (70e9, 175e9, 405e9, 1e12):
        assert sl.devices_to_hold(n, "train_mixed_adam", mi300x) < sl.devices_to_hold(n, "train_mixed_adam", a100) / 2
        ratio = sl.devices_to_hold(n, "train_mixed_adam", v5e) / sl.devices_to_hold(n, "train_mixed_adam", a100)
        assert 4.5 < ratio < 5.5                                             # "about five times as many"
    # largest models that fit: about 11B on any one device, 36B on one server of 80 GB GPUs, 86B of MI300Xs,
    # about 290B for serving on one server of 80 GB GPUs
    assert round(0.9 * mi300x / 16 / 1e9) == 11
    assert round(8 * 0.9 * a100 / 16 / 1e9) == 36
    assert round(8 * 0.9 * mi300x / 16 / 1e9) == 86
    assert round(8 * 0.9 * a100 / 2 / 1e9, -1) == 290
    for device in sl.CATALOG.values():                      # the TPU/GPU line of the slider text
        assert device.devices_per_node == 8 or device.kind == "TPU"


def test_bandwidth_ratios():
    h100, a100 = sl.get_accelerator("H100"), sl.get_accelerator("A100")
    ndr, hdr = sl.LINKS["InfiniBand NDR"].bandwidth, sl.LINKS["InfiniBand HDR"].bandwidth
    assert round(h100.memory_bandwidth / h100.link_bandwidth, 1) == 7.4
    assert round(h100.link_bandwidth / ndr) == 9
    assert round(a100.link_bandwidth / hdr) == 12
    text = _printed(S32)
    assert "H100: HBM / NVLink = 7.4, NVLink / NDR port = 9" in text


def test_tensor_parallel_numbers():
    x, nv, hdr = 150e12, 300e9, 25e9
    e = {(t, bw): sl.scaling_efficiency(sl.tensor_parallel_comm_fraction(t, 12288, x, bw))
         for t in (8, 16) for bw in (nv, hdr)}
    assert round(e[(8, nv)], 2) == 0.94 and round(e[(8, hdr)], 2) == 0.57 and round(e[(16, hdr)], 2) == 0.38
    assert "t = 16 on HDR port: rho_TP = 1.628, efficiency = 0.38" in _printed(S32)


def _ring_efficiency(t, h=12288, alpha=0.0, x=150e12):
    return sl.scaling_efficiency(sl.tensor_parallel_ring_fraction(t, h, x, 300e9, 25e9, alpha=alpha))


def test_tensor_parallel_across_servers_depends_on_the_ring_layout():
    """3.2.5: worst case (every hop on the network) against node-ordered rings, one per port, with and without
    Section 3.8's alpha = 5 us; the reviewer's numbers, and the table the text reads them from."""
    worst = {t: sl.scaling_efficiency(sl.tensor_parallel_comm_fraction(t, 12288, 150e12, 25e9)) for t in (16, 32, 64)}
    assert [round(worst[t], 2) for t in (16, 32, 64)] == [0.38, 0.23, 0.13]
    assert [round(_ring_efficiency(t), 2) for t in (16, 32, 64)] == [0.83, 0.70, 0.54]
    assert [round(_ring_efficiency(t, alpha=5e-6), 2) for t in (16, 32, 64)] == [0.79, 0.59, 0.34]
    assert round(_ring_efficiency(8), 2) == 0.94 and round(_ring_efficiency(8, alpha=5e-6), 2) == 0.93
    # "keep TP inside the server" survives: every layout past the server is below NVLink's 0.94, the gap widens
    rings = [_ring_efficiency(t) for t in (8, 16, 32, 64)]
    assert all(a > b for a, b in zip(rings, rings[1:]))
    # the bills of 3.2.6: 1/E
    assert round(1 / _ring_efficiency(16), 2) == 1.20 and round(1 / _ring_efficiency(16, alpha=5e-6), 2) == 1.27
    text = _printed(S32)
    assert " 16        0.38                0.83              0.79" in text
    assert " 64        0.13                0.54              0.34" in text
    assert "t = 16, node-ordered, alpha 0 us  E = 0.83: pays for 1.20 x the GPU-hours of the work" in text
    assert "t = 16, node-ordered, alpha 5 us  E = 0.79: pays for 1.27 x the GPU-hours of the work" in text
    # the carry-forward bullet's "17% to 21%" and "62%"
    assert (round(100 * (1 - _ring_efficiency(16))), round(100 * (1 - _ring_efficiency(16, alpha=5e-6)))) == (17, 21)
    assert round(100 * (1 - worst[16])) == 62


@pytest.mark.parametrize("t", [1, 2, 4, 8])
@pytest.mark.parametrize("h", [4096, 12288])
def test_ring_fraction_is_the_formula_inside_one_server(t, h):
    """One server, no latency: the node-ordered rings are one ring on NVLink, the formula's rho_TP."""
    lib = sl.tensor_parallel_ring_fraction(t, h, 150e12, 300e9, 25e9)
    assert lib == pytest.approx(sl.tensor_parallel_comm_fraction(t, h, 150e12, 300e9), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("t", [16, 32, 64, 128])
def test_ring_fraction_across_servers_is_the_worst_case_over_the_ports(t):
    """While the network hop sets the pace (25 GB/s against 7 x 1/300 GB/s of NVLink forwarding), eight rings
    carry an eighth of the worst case's bytes each: rho = worst-case rho / 8, for any width."""
    for h in (8192, 12288):
        worst = sl.tensor_parallel_comm_fraction(t, h, 150e12, 25e9)
        assert sl.tensor_parallel_ring_fraction(t, h, 150e12, 300e9, 25e9) == pytest.approx(worst / 8, rel=1e-12)
    # when NVLink is the slower hop (7 chunks at 150 GB/s = 21 GB/s < 25 GB/s), it sets the pace instead
    slow_nvlink = sl.tensor_parallel_ring_fraction(t, 12288, 150e12, 150e9, 25e9)
    assert slow_nvlink == pytest.approx(sl.tensor_parallel_comm_fraction(t, 12288, 150e12, 150e9 / 7) / 8, rel=1e-12)


def test_ring_fraction_latency_and_arrays():
    """alpha is paid 2(t - 1) times per all-reduce, four all-reduces per layer, and does not cancel with the
    tokens; arrays broadcast; bad input is refused by name."""
    x, h, tokens = 150e12, 12288, 2048
    extra = sl.tensor_parallel_ring_fraction(16, h, x, 300e9, 25e9, alpha=5e-6) - \
        sl.tensor_parallel_ring_fraction(16, h, x, 300e9, 25e9)
    assert extra == pytest.approx(4 * 2 * 15 * 5e-6 / (72 * tokens * h**2 / (16 * x)), rel=1e-12)
    longer = sl.tensor_parallel_ring_fraction(16, h, x, 300e9, 25e9, alpha=5e-6, tokens=4 * tokens)
    assert longer < sl.tensor_parallel_ring_fraction(16, h, x, 300e9, 25e9, alpha=5e-6)
    rho = sl.tensor_parallel_ring_fraction([1, 8, 16, 64], h, x, 300e9, 25e9)
    assert rho.shape == (4,) and rho[0] == 0.0
    with pytest.raises(ValueError, match="multiple"):
        sl.tensor_parallel_ring_fraction(12, h, x, 300e9, 25e9)
    for name, bad in (("hidden", 0), ("achieved_flops", -1), ("intra_bandwidth", 0), ("network_bandwidth", 0),
                      ("alpha", -1e-6), ("tokens", 0), ("bytes_per_value", 0), ("gpus_per_node", 0)):
        args = dict(tp=16, hidden=h, achieved_flops=x, intra_bandwidth=300e9, network_bandwidth=25e9)
        args[name] = bad
        with pytest.raises(ValueError, match=name):
            sl.tensor_parallel_ring_fraction(**args)
    with pytest.raises(ValueError, match="tp"):
        sl.tensor_parallel_ring_fraction(0, h, x, 300e9, 25e9)
    with pytest.raises(TypeError, match="alpha"):
        sl.tensor_parallel_ring_fraction(16, h, x, 300e9, 25e9, alpha=[0.0, 5e-6])


def test_traffic_table_is_printed():
    text = _printed(S32)
    assert "compute per step: 7.17 s per GPU" in text
    assert "TP          135.3      0.45 s           5.41 s" in text


def test_memory_units_sentence():
    """Cell 4: GB of 1e9 bytes; the TPUs' GiB figures converted to the printed 34 and 102 GB."""
    v4, v5p = sl.get_accelerator("v4"), sl.get_accelerator("v5p")
    assert v4.memory_bytes == 32 * 2**30 and round(v4.memory_bytes / 1e9) == 34
    assert v5p.memory_bytes == 95 * 2**30 and round(v5p.memory_bytes / 1e9) == 102
    text = _printed(S32)
    assert "TPU v4               34" in text and "TPU v5p             102" in text


def test_more_than_a_decade():
    fastest = max(sl.CATALOG.values(), key=lambda a: a.peak("bf16"))
    years = 6 * 175e9 * 300e9 / (0.5 * fastest.peak("bf16")) / (365.25 * 86400)
    assert 10 < years < 20                     # "in less than a decade" is false: it takes 15.3 years


def test_tp_over_the_network_is_three_quarters_of_the_compute():
    traffic = sl.step_traffic(175e9, 96, 12288, microbatches=32, tp=8, pp=8, dp=16)
    ratio = traffic["tp"] / sl.LINKS["InfiniBand HDR"].bandwidth / (traffic["flops"] / 150e12)
    assert round(ratio, 2) == 0.75
    assert "TP over one HDR port / compute: 0.75" in _printed(S32)


def _rho_by_hand(t, h, x, bandwidth, b=1, seq=2048):
    """The derivation of 3.2.5, term by term."""
    sent = 4 * 2 * (t - 1) / t * (2 * b * seq * h)
    flops = 72 * b * seq * h**2 / t
    return (sent / bandwidth) / (flops / x)


@pytest.mark.parametrize("t", [1, 2, 4, 8, 16, 64])
@pytest.mark.parametrize("h", [2048, 8192, 12288])
@pytest.mark.parametrize("bandwidth", [300e9, 25e9])
def test_tp_derivation_agrees_with_the_library(t, h, bandwidth):
    """b and L cancel, and the bytes-over-FLOPs ratio is the library's (2/9)(t-1) X beta_link / h."""
    lib = sl.tensor_parallel_comm_fraction(t, h, 150e12, bandwidth)
    assert _rho_by_hand(t, h, 150e12, bandwidth) == pytest.approx(lib, rel=1e-12)
    assert _rho_by_hand(t, h, 150e12, bandwidth, b=4, seq=4096) == pytest.approx(lib, rel=1e-12)
    assert lib == pytest.approx(2 / 9 * (t - 1) * 150e12 / bandwidth / h, rel=1e-12)


def test_tp_derivation_numbers_are_printed():
    h, t = 12288, 8
    sent = 4 * 2 * (t - 1) / t * (2 * 2048 * h)
    assert round(sent / 1e6) == 352 and round(72 * 2048 * h**2 / t / 1e12, 2) == 2.78
    traffic = sl.step_traffic(175e9, 96, h, microbatches=32, tp=8, pp=8, dp=16)
    assert traffic["tp"] / (32 * 96 / 8) == pytest.approx(sent)      # step_traffic counts the same bytes
    text = _printed(S32)
    assert "per layer and micro-batch: 352 MB sent, 2.78 TFLOP computed per GPU" in text
    assert "rho_TP by hand 0.0633, (2/9)(t-1) X beta_link / h 0.0633, library 0.0633" in text


def _price(key):
    return sl.hardware.INSTANCE_PRICES[key]


def test_price_steps_of_3_2_6():
    """Each step up costs less than in proportion to what it adds (the prose's 1.25, 1.10, 2.5-2.7, 3.17)."""
    def step(small, big):
        a, z = _price(small), _price(big)
        return (z.usd_per_device_hour / a.usd_per_device_hour, z.device_memory_bytes / a.device_memory_bytes,
                z.peak() / a.peak())
    price, memory, peak = step("AWS p4d.24xlarge, on-demand", "AWS p4de.24xlarge, on-demand")
    assert (round(price, 2), memory, peak) == (1.25, 2.0, 1.0)
    price, memory, peak = step("AWS p5.48xlarge, capacity block", "AWS p5e.48xlarge, capacity block")
    assert (round(price, 2), round(memory, 2), peak) == (1.10, 1.76, 1.0)
    cb, od = (step("AWS p4d.24xlarge, " + p, "AWS p5.48xlarge, " + p) for p in ("capacity block", "on-demand"))
    assert round(cb[0], 2) == 2.67 and round(od[0], 2) == 2.51 and round(cb[2], 2) == 3.17 and cb[1] == 2.0
    for price, memory, peak in (cb, od, step("AWS p4d.24xlarge, on-demand", "AWS p4de.24xlarge, on-demand"),
                                step("AWS p5.48xlarge, capacity block", "AWS p5e.48xlarge, capacity block")):
        assert price < max(memory, peak)        # never in proportion to what the step adds
        assert price / memory < 1 or price / peak < 1
    text = _printed(S32)
    assert "H100 -> H200             (capacity block): price x1.10, memory x1.76, bf16 peak x1.00" in text
    assert ("A100 40 GB -> A100 80 GB (on-demand     ): price x1.25, memory x2.00, bf16 peak x1.00,"
            " HBM bandwidth x1.31") in text
    # the p4de's 80 GB A100 also has faster memory: 2,039 against 1,555 GB/s
    a, z = _price("AWS p4d.24xlarge, on-demand"), _price("AWS p4de.24xlarge, on-demand")
    assert (a.memory_bandwidth, z.memory_bandwidth) == (1.555e12, 2.039e12)
    assert round(z.memory_bandwidth / a.memory_bandwidth, 2) == 1.31


def test_per_gb_and_per_flops_prices():
    """A same-generation memory step is cheaper per GB and dearer per FLOP/s; the generation step A100 40 GB ->
    H100 is cheaper per FLOP/s but dearer per GB (the reviewer's 0.046 -> 0.061 and 0.069 -> 0.086), and no
    step's price grew as fast as the larger of its gains."""
    def per_gb(k):
        return _price(k).usd_per_device_hour / (_price(k).device_memory_bytes / 1e9)

    def per_pflops(k):
        return _price(k).usd_per_device_hour / (_price(k).peak() / 1e15)
    assert per_gb("AWS p4de.24xlarge, on-demand") < per_gb("AWS p4d.24xlarge, on-demand")
    assert per_gb("AWS p5e.48xlarge, capacity block") < per_gb("AWS p5.48xlarge, capacity block")
    assert per_pflops("AWS p4de.24xlarge, on-demand") > per_pflops("AWS p4d.24xlarge, on-demand")
    assert per_pflops("AWS p5e.48xlarge, capacity block") > per_pflops("AWS p5.48xlarge, capacity block")
    for pricing in ("capacity block", "on-demand"):
        old, new = f"AWS p4d.24xlarge, {pricing}", f"AWS p5.48xlarge, {pricing}"
        assert per_pflops(new) < per_pflops(old) and per_gb(new) > per_gb(old)
    rounded = {k: (round(per_gb(k), 3), round(per_pflops(k), 2)) for k in sl.hardware.INSTANCE_PRICES}
    assert rounded["AWS p4d.24xlarge, capacity block"] == (0.046, 5.91)
    assert rounded["AWS p5.48xlarge, capacity block"] == (0.061, 4.97)
    assert rounded["AWS p5e.48xlarge, capacity block"] == (0.038, 5.46)
    assert rounded["AWS p4d.24xlarge, on-demand"] == (0.069, 8.80)
    assert rounded["AWS p4de.24xlarge, on-demand"] == (0.043, 11.00)
    assert rounded["AWS p5.48xlarge, on-demand"] == (0.086, 6.95)
    text = _printed(S32)
    assert "AWS p4d.24xlarge, capacity block       1.84   40   0.046             5.91" in text
    assert "AWS p5.48xlarge, on-demand             6.88   80   0.086             6.95" in text
    # the old, false sentence is gone
    nb = nbformat.read(BOOK / f"{S32}.ipynb", as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "the bigger part is cheaper per GB" not in prose.lower()
    assert "largest part on sale (192" not in prose and "the largest part in the catalog (192 GB)" in prose


def test_holding_a_175b_model_on_h100s_and_h200s():
    """p5 and p5e are sold as whole eight-GPU instances: one 5-GPU replica per p5, two 3-GPU replicas per p5e,
    $39.33 against $21.63 per replica-hour (0.55); billed per GPU it would be 0.66."""
    h100, h200 = _price("AWS p5.48xlarge, capacity block"), _price("AWS p5e.48xlarge, capacity block")
    assert h100.devices == h200.devices == 8
    n100 = sl.devices_to_hold(175e9, "infer_fp16", h100.device_memory_bytes)
    n200 = sl.devices_to_hold(175e9, "infer_fp16", h200.device_memory_bytes)
    assert (n100, n200) == (5, 3)
    replicas100, replicas200 = h100.devices // n100, h200.devices // n200
    assert (replicas100, replicas200) == (1, 2)
    per100, per200 = h100.usd_per_hour / replicas100, h200.usd_per_hour / replicas200
    assert (round(per100, 2), round(per200, 2)) == (39.33, 21.63) and round(per200 / per100, 2) == 0.55
    cost100, cost200 = n100 * h100.usd_per_device_hour, n200 * h200.usd_per_device_hour
    assert round(cost200 / cost100, 2) == 0.66                       # the per-GPU-billing figure
    g100, g200 = sl.get_accelerator("H100"), sl.get_accelerator("H200")   # "less compute and bandwidth in total"
    assert n200 * g200.peak() < n100 * g100.peak() and n200 * g200.memory_bandwidth < n100 * g100.memory_bandwidth
    text = _printed(S32)
    assert "H200 SXM 141GB  3 GPUs per replica, 2 per instance (6 of 8 used): $43.26 per hour, $21.63 per replica" in text
    assert "H200s / H100s per replica: 0.55 (if GPUs were billed one by one: 0.66)" in text


def test_scale_out_pays_one_over_e():
    x, nv, hdr = 150e12, 300e9, 25e9
    bills = [1 / sl.scaling_efficiency(sl.tensor_parallel_comm_fraction(t, 12288, x, bw))
             for t, bw in ((8, nv), (8, hdr), (16, hdr))]
    assert [round(b, 2) for b in bills] == [1.06, 1.76, 2.63]
    assert round(100 * (bills[2] - 1)) == 163                        # "163% in the worst case"
    text = _printed(S32)
    assert "E = 0.38: pays for 2.63 x the GPU-hours of the work" in text


def test_devices_to_hold_at_the_extremes():
    """Large counts are exact, absurd ones are refused, exact fits stay exact."""
    assert sl.devices_to_hold(1e25, 16, 80e9) == 2_222_222_222_222_223
    with pytest.raises(ValueError, match="device count"):
        sl.devices_to_hold(1e30, 16, 80e9)
    assert sl.devices_to_hold(72e9, "infer_fp16", 80e9) == 2                 # 144 GB on 2 x 72 GB
    assert sl.devices_to_hold(72e9 + 1e6, "infer_fp16", 80e9) == 3           # 2 MB more does not fit
    assert sl.devices_to_hold(1e-3, 16, 80e9) == 1
    counts = sl.devices_to_hold([7e9, 70e9, 1e25], 16, 80e9)
    assert counts.dtype == np.int64 and counts.tolist() == [2, 16, 2_222_222_222_222_223]


def test_step_traffic_takes_one_layout():
    for name in ("n_params", "n_layers", "hidden", "seq_len", "micro_batch", "microbatches", "tp", "pp", "dp",
                 "bytes_per_value"):
        args = dict(n_params=175e9, n_layers=96, hidden=12288, seq_len=2048, micro_batch=1, microbatches=8,
                    tp=8, pp=8, dp=16, bytes_per_value=2)
        args[name] = np.array([args[name], args[name]])
        with pytest.raises(TypeError, match=name):
            sl.step_traffic(**args)


# --- Section 3.4 ------------------------------------------------------------------------------------------------

def test_dean_and_barroso_in_the_notebook():
    text = _printed(S34)
    assert "1 in    100 slow,   100 servers: 63.4% of requests slow" in text
    assert "1 in 10,000 slow, 2,000 servers: 18.1% of requests slow" in text
    assert round(0.5 ** (1 / 100), 4) == 0.9931 and "99.31% quantile" in text


def test_hockey_stick_and_targets_in_the_notebook():
    text = _printed(S34)
    assert " 0.99    1,000      693    4,605    6,908" in text
    assert "highest utilization for p99 <= 100 ms: 53.9%" in text
    assert "arrival_rate must be < service_rate" in text


def test_server_latency_summary():
    x = sl.sample_server_latency(200_000, seed=0)
    assert round(1e3 * x.mean()) == 17 and round(1e3 * np.quantile(x, 0.5)) == 10
    assert np.quantile(x, 0.99) > 0.2
    assert "p99    224.5 ms" in _printed(S34)


def test_hedging_and_batching_in_the_notebook():
    text = _printed(S34)
    assert "second copies: 5.00% of requests" in text
    assert "p99 cut 8.1-fold, p99.9 cut 26.3-fold" in text
    assert "batch 64 / batch 1 = 31.4x (reported: about 27x)" in text
    assert "compute never overtakes memory" in text
    assert "the model is +16% off the reported ratio" in text
    assert "0.7% at batch 1, 21.5% at batch 64" in text
    assert "Llama-2-7B       1.07 GB    11.3x             54" in text
    assert "Llama-3-8B       0.27 GB    31.4x            208" in text



def test_hedging_under_load_in_the_notebook():
    """3.4.5's second half: the M/M/1 bound for 5% more arrivals, the queueing table at U = 0.8, the sweep
    of Figure 3.4.3, the M/M/2 check and the light-load contrast (the numbers are recomputed in
    tests/test_latency.py::test_replica_numbers_quoted_in_the_text)."""
    text = _printed(S34)
    assert "U = 0.80: mean  50.0 ms, p99 230.3 ms" in text
    assert "U = 0.84: mean  62.5 ms, p99 287.8 ms" in text
    assert "every request 25% slower, mean and p99 alike" in text
    assert "delay: 140 ms (p95 at U = 0.8), 37 ms (p95 at U = 0.2)" in text
    assert "M/M/1 formula      35    230    345" in text
    assert "none               35    244    331    0.0%   0.0%   80%" in text
    assert "shorter of two     16     81    112    0.0%   0.0%   80%" in text
    assert "hedged, p95        35    163    196    3.2%   0.9%   80%" in text
    assert "hedged, fixed      42    123    153   56.3%  13.4%   90%" in text
    assert "tied               14     61     83  100.0%   0.0%   80%" in text
    assert "simulated mean 28.0 ms, M/M/2 27.8 ms, one M/M/1 server 50 ms" in text
    assert ("ten servers at U = 0.8, mean in ms: none 48.9, shorter of two 21.0, tied 17.3;"
            " one queue for all ten (M/M/10) 12.0") in text
    assert "same_work=True : p99   51 ms -> hedged   50 ms" in text
    assert "same_work=False: p99   51 ms -> hedged   42 ms" in text
    # the sweep: the fixed timer still helps at 85% load; at 90% and 95% it has no steady state
    assert " 0.10        51       47         50           50     47          10%             3%" in text
    assert " 0.85       311       90        214          197     68          96%            77%" in text
    assert " 0.90       435      109        338     unstable     80         100%            98%" in text
    assert " 0.95       747      142        599     unstable    109         100%            99%" in text
    # ... whose p99 grows with the run: 1.26 s, 2.88 s, 4.55 s, while one copy stays near 0.5 s
    assert "   50,000  1.26 s  1.022    2.0    False   0.43 s    True" in text
    assert "  100,000  2.88 s  1.021    2.1    False   0.55 s    True" in text
    assert "  200,000  4.55 s  1.021    2.7    False   0.51 s    True" in text


def test_fixed_timer_does_at_least_as_well_as_the_retuned_one_up_to_85_percent():
    """Cell 41: "Up to 85% load the timer fixed at light load does at least as well as the re-tuned one" (to the
    printed ms), and past it has no steady state while the others keep theirs."""
    sweep = sl.figures.s3_4.hedging_sweep()
    loads = sweep["utilization"]
    fixed, tuned = sweep["hedged, delay fixed at light load"], sweep["hedged at each load's p95"]
    upto = loads <= 0.85
    assert np.all(np.round(1e3 * fixed["p99"][upto]) <= np.round(1e3 * tuned["p99"][upto]))
    assert fixed["steady"].tolist() == list(upto)
    for name in sl.figures.s3_4.SWEEP_POLICIES:
        if name != "hedged, delay fixed at light load":
            assert sweep[name]["steady"].all()


def test_section_3_4_no_longer_quotes_unsteady_percentiles():
    """The fixed-delay hedge at 90% and 95% load has no steady state: the prose must not quote its p99 as a
    value (the old 1.3 s, 3.8 s, "past 3 seconds"), and must say that "none" routes at random."""
    nb = nbformat.read(BOOK / f"{S34}.ipynb", as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    captions = "\n".join(str(c.metadata.get("mystnb", {})) for c in nb.cells)
    for stale in ("1.3 s", "3.8 s", "past 3 seconds"):
        assert stale not in prose and stale not in captions
    assert "routed at random" in prose and "shorter of two queues" in prose
    assert "less-loaded of its two servers" in prose or "less-loaded of two" in prose
    assert "oracle" in prose                                            # the p95 delay of cell 37


def test_sweep_of_figure_3_4_3_matches_the_table_at_80_percent():
    """The sweep and the U = 0.8 table use the same seed and size, so they agree to the digit."""
    sweep = sl.figures.s3_4.hedging_sweep(utilizations=[0.8])
    assert round(1e3 * sweep["fixed_delay"]) == 37
    assert round(1e3 * sweep["one copy"]["p99"][0]) == 244
    assert round(1e3 * sweep["hedged at each load's p95"]["p99"][0]) == 163
    assert round(1e3 * sweep["hedged, delay fixed at light load"]["p99"][0]) == 123
    assert round(1e3 * sweep["tied"]["p99"][0]) == 61
    assert round(1e3 * sweep["shorter of two queues"]["p99"][0]) == 81
    assert all(sweep[name]["steady"][0] for name in sl.figures.s3_4.SWEEP_POLICIES)


def test_fixed_and_per_sequence_serving_costs_move_the_ratio_apart():
    """A cost per step raises the batch-64/batch-1 ratio (2 ms: 35.0x); a cost per sequence lowers it
    (0.043 ms per sequence per step gives the measured 27x)."""
    t1, t64 = sl.decode_profile([1, 64], "Llama-3-8B", "A100", context=2048)["step_time"]
    model = 64 * t1 / t64
    per_step = 64 * (t1 + 0.002) / (t64 + 0.002)
    assert round(model, 1) == 31.4 and round(per_step, 1) == 35.0 and per_step > model
    per_seq = (64 * t1 - 27 * t64) / (27 * 64 - 64)
    assert round(1e3 * per_seq, 3) == 0.043 and round(64e3 * per_seq, 1) == 2.7
    assert 64 * (t1 + per_seq) / (t64 + 64 * per_seq) == pytest.approx(27.0)
    text = _printed(S34)
    assert "+2 ms per step:     35.0x" in text
    assert "27x needs 0.043 ms per sequence per step (2.7 ms at batch 64): 27.0x" in text

# --- exercises: every part of both sections is checked in its notebook ------------------------------------------

@pytest.mark.parametrize("section", ["3-2", "3-4"])
def test_each_section_has_at_least_three_checked_exercises(section):
    keys = [k for k in registered_keys() if k.startswith(f"ex-{section}-")]
    exercises = {k.rsplit("-", 1)[0] + "-" + k.rsplit("-", 1)[1][0] for k in keys}
    assert len(exercises) >= 3
    for key in keys:
        assert expected_answer(key) is not None


def test_exercise_answers_are_what_the_solutions_say():
    assert expected_answer("ex-3-2-1a") == 208.0 and expected_answer("ex-3-2-1d") == 2
    assert expected_answer("ex-3-2-2b") == [12, 12, 7, 5]
    assert [round(t, 1) for t in expected_answer("ex-3-2-3a")] == [4.2, 31.1, 280.0]
    assert [round(e, 2) for e in expected_answer("ex-3-2-4a")] == [0.91, 0.47, 0.29]      # the worst case
    assert round(expected_answer("ex-3-2-4b"), 3) == 0.766 and expected_answer("ex-3-2-4c") == "tp8 pp2"
    assert expected_answer("ex-3-4-2c") == pytest.approx(1 - math.log(100) / 10)
    assert round(expected_answer("ex-3-4-3a"), 3) == 0.634
    assert round(expected_answer("ex-3-4-3c"), 5) == 0.00995
    assert [round(x) for x in expected_answer("ex-3-4-4d")] == [334, 309]
    assert expected_answer("ex-3-4-5c") == 52


def test_ex_3_2_4_node_ordered_rings():
    """(b) is the worst case's rho over 8 (0.77, printed 0.766); (c) tp8 pp2 still wins, narrowly (0.82 against
    0.77), and with alpha = 5 us on both (0.80 against 0.69); a worst-case or latency answer to (b) is refused."""
    from scalinglib import check

    worst16 = sl.tensor_parallel_comm_fraction(16, 8192, 150e12, 25e9)
    assert expected_answer("ex-3-2-4b") == pytest.approx(1 / (1 + worst16 / 8), rel=1e-12)
    assert check("ex-3-2-4b", 0.77).correct and check("ex-3-2-4b", 0.766).correct
    for wrong in (0.29, 0.69, 0.87):          # worst case; with alpha; rho over 16
        assert not check("ex-3-2-4b", wrong).correct
    bubble = sl.pipeline_bubble_fraction(2, 8)
    nv, ib = 300e9, 25e9
    pipeline = sl.scaling_efficiency(sl.tensor_parallel_comm_fraction(8, 8192, 150e12, nv) + bubble)
    assert round(pipeline, 2) == 0.82 and 0 < pipeline - expected_answer("ex-3-2-4b") < 0.06
    e16 = sl.scaling_efficiency(sl.tensor_parallel_ring_fraction(16, 8192, 150e12, nv, ib, alpha=5e-6))
    e8 = sl.scaling_efficiency(sl.tensor_parallel_ring_fraction(8, 8192, 150e12, nv, ib, alpha=5e-6) + bubble)
    assert (round(e16, 2), round(e8, 2)) == (0.69, 0.80)
    assert "with alpha = 5 us: tp16 E = 0.689, tp8 pp2 E = 0.798" in _printed(S32)


def test_section_3_4_hints_use_the_chapter_notation():
    """T_sys (not W) for the time in system, U (not rho) for utilization, 2N and kappa for the bytes of
    weights and cache, r for backup workers."""
    from scalinglib.exercises.core import _REGISTRY

    hints = {key: part.hint for key, part in _REGISTRY.items() if key.startswith("ex-3-4-")}
    joined = " ".join(hints.values())
    for stale in ("lambda W", "W = L", "L / W", "rho", " W + b", "b k)", "b k <", "H_b"):
        assert stale not in joined, stale
    assert "T_sys" in hints["ex-3-4-1a"] and "T_sys" in hints["ex-3-4-1c"]
    assert "U" in hints["ex-3-4-2c"]
    assert "2N" in hints["ex-3-4-5a"] and "kappa" in hints["ex-3-4-5a"]


def test_ex_3_4_4c_hint_names_the_small_n_trap():
    """H_8 from ln 8 + 0.577 gives 1.1748 s, 0.25% off: inside the chapter's 1% rule; H_8 from ln 8 alone is
    2.7% off and refused, with a hint that says why."""
    from scalinglib import check

    h8_approx = math.log(8) + 0.5772
    assert check("ex-3-4-4c", 1 + 0.05 * (sl.harmonic_number(264) - h8_approx)).correct
    feedback = check("ex-3-4-4c", 1 + 0.05 * (sl.harmonic_number(264) - math.log(8)))
    assert not feedback.correct
    assert "Compute H_8 exactly" in feedback.text() and "poor for small n" in feedback.text()
    assert check("ex-3-4-4c", 1.172).correct
    assert round(sl.harmonic_number(8), 3) == 2.718


@pytest.mark.parametrize(("key", "answer", "says"), [
    ("ex-3-4-1c", 0.3, "factor of 1,000: check the unit (the answer is in ms)"),
    ("ex-3-4-2a", 100.0, "factor of 1,000: check the unit (the answer is in s)"),
    ("ex-3-4-2b", 460.5, "factor of 1,000: check the unit (the answer is in s)"),
    ("ex-3-4-5d", 0.0163, "factor of 1,000: check the unit (the answer is in ms)"),
    ("ex-3-4-2c", 53.95, "a percentage where a fraction is asked"),
    ("ex-3-4-3c", 0.995, "a percentage where a fraction is asked"),
    ("ex-3-4-3c", 1e-4, "too low"),                     # forgot to fan out
    ("ex-3-4-3c", 0.634**2, "too high"),                # squared the unhedged share
    ("ex-3-4-3c", 0.9999**100, "share of requests whose leaves are all fast"),   # forgot the 1 -
])
def test_natural_wrong_answers_get_a_useful_message(key, answer, says):
    from scalinglib import check

    feedback = check(key, answer)
    assert not feedback.correct
    assert says in feedback.text()
