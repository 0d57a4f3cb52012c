"""Every number the prose, the figure captions and alt texts, and the worked solutions of Section 3.9
quote, recomputed from the library. (The published figures themselves are in test_runs.py; the
notebook's printed outputs are compared by nbval.)"""

import math

import numpy as np
import pytest

import scalinglib as sl
from scalinglib import check
from scalinglib.exercises import expected_answer

H100 = "H100 SXM 80GB"


# --- 3.9.1 -------------------------------------------------------------------------------------


def test_communication_fraction_as_a_share_of_the_bill():
    # "a communication fraction of one quarter is a fifth of the bill; a fraction of one is half of it"
    assert 1 - sl.scaling_efficiency(0.25) == pytest.approx(0.2)
    assert 1 - sl.scaling_efficiency(1.0) == pytest.approx(0.5)


# --- 3.9.2 and 3.9.4 ---------------------------------------------------------------------------


def test_palm_attention_share_and_mfu():
    c = sl.flops_per_token(540e9, 118, 48, 256, 2048)
    assert round(100 * (c - 6 * 540e9) / c, 1) == 1.1
    assert round(100 * sl.mfu(238.3e3, c, 6144, 275e12), 1) == 46.2


def test_flagship_runs_used_between_a_fifth_and_a_half():
    values = [run.recomputed_mfu() for run in sl.MFU_RUNS] + [run.reported_mfu for run in sl.MFU_RUNS]
    assert 0.2 <= min(values) and max(values) < 0.5


def test_palm_shortfall_split_into_recomputation_and_the_rest():
    # "Of the 53.8% ... 11.6 points went into recomputing activations ...; the other 42.2% ..."
    palm = sl.MFU_RUNS[-1]
    assert round(100 * (1 - palm.reported_mfu), 1) == 53.8
    assert round(100 * (palm.reported_hfu - palm.reported_mfu), 1) == 11.6
    assert round(100 * (1 - palm.reported_hfu), 1) == 42.2
    assert palm.reported_mfu < 0.5          # "more than half of its peak unused for model FLOPs"


def test_gopher_reproduces_only_with_the_assumed_batch():
    gopher = sl.MFU_RUNS[1]
    for batch, printed in ((3072 * 2048, 32.5), (6.0e6, 31.0)):
        value = sl.mfu(0.0152 * batch, gopher.flops_per_token(), 4096, gopher.peak_flops_per_device)
        assert round(100 * value, 1) == printed


def test_mt_nlg_recomputed_to_two_decimals():
    mt = next(run for run in sl.MFU_RUNS if run.name == "Megatron-Turing NLG")
    assert (round(100 * mt.recomputed_mfu(False), 2), round(100 * mt.recomputed_mfu(), 2)) == (29.77, 30.26)


def test_gpt3_attention_adds_under_three_percent():
    gpt3 = sl.MFU_RUNS[0]
    ratio = gpt3.flops_per_token() / gpt3.flops_per_token(attention=False)
    assert round(100 * (ratio - 1), 1) == 2.8
    assert round(gpt3.tokens_per_second_per_device, 1) == 23.4


# --- 3.9.5 -------------------------------------------------------------------------------------


def test_megatron_growth_factors_and_dp_degree():
    rows = sl.MEGATRON_WEAK_SCALING
    assert rows[-1].n_gpus / rows[0].n_gpus == 96
    assert round(rows[-1].params_billion / rows[0].params_billion) == 593
    assert [r.data_parallel for r in rows[:6]] == [32] * 6


def test_what_weak_scaling_holds_constant_in_megatron_table_1():
    rows = sl.MEGATRON_WEAK_SCALING
    share = [r.params_billion / (r.tensor_parallel * r.pipeline_parallel) for r in rows]
    assert (round(min(share), 1), round(max(share), 1)) == (1.7, 2.4)           # every row
    step = [6 * r.params_billion * 1e9 * r.batch * 2048 / r.n_gpus for r in rows]
    assert (rows[0].batch, rows[5].batch) == (512, 1792)
    assert round(step[5] / step[0], 1) == 4.9                                      # not constant


def _model_tflops(row):
    return row.mfu() * 312


def test_model_flops_line_of_figure_3_9_3():
    values = [_model_tflops(r) for r in sl.MEGATRON_WEAK_SCALING]
    assert 100 < min(values) and max(values) < 125          # "near 105 to 122"


def test_megatron_costs_no_more_per_model_flop_at_scale():
    rows = sl.MEGATRON_WEAK_SCALING
    hours = [1e21 / (_model_tflops(r) * 1e12) / 3600 for r in rows[::3]]
    assert [round(h) for h in hours] == [2653, 2730, 2499, 2271]
    assert hours[-1] < hours[0]


def test_megatron_mfu_of_first_and_last_rows():
    peak = sl.get_accelerator("A100").peak("bf16")
    assert [round(100 * r.mfu(peak), 1) for r in sl.MEGATRON_WEAK_SCALING] == [
        33.6, 33.6, 34.4, 32.6, 33.3, 33.7, 35.6, 37.3, 39.2, 39.2]
    out = []
    for r in (sl.MEGATRON_WEAK_SCALING[0], sl.MEGATRON_WEAK_SCALING[-1]):
        tokens = r.tflops_per_gpu * 1e12 / sl.megatron_flops_per_token(r.layers, r.hidden)
        c = sl.flops_per_token(sl.megatron_param_count(r.layers, r.hidden), r.layers, r.attention_heads,
                               r.hidden // r.attention_heads, 2048)
        out.append(round(100 * sl.mfu(tokens, c, 1, peak), 1))
    assert out == [33.6, 39.2]


# --- 3.9.3 -------------------------------------------------------------------------------------


def test_figure_3_9_1_numbers():
    assert round(sl.cost_per_million_tokens(3.0, 2000.0), 2) == 0.42
    assert [round(100 * sl.break_even_utilization(3.0, 2000.0, api)) for api in (1.0, 2.0)] == [42, 21]
    assert sl.duty_cycle_cost_factor(0.4) == pytest.approx(2.5)


# --- 3.9.6 -------------------------------------------------------------------------------------


def test_serving_numbers():
    rate = sl.device_decode_rate(np.array([1, 8, 64]), 7e9, 1024, device=H100)
    assert [round(x) for x in rate] == [230, 1446, 4261]
    assert round(rate[2] / rate[0], 1) == 18.5
    assert sl.max_decode_batch(7e9, 1024, device=H100) == 116
    assert [round(x, 2) for x in sl.cost_per_million_tokens(3.0, rate)] == [3.62, 0.58, 0.20]


# --- 3.9.7 -------------------------------------------------------------------------------------

DEMAND = 1e3 * np.array([40, 30, 22, 18, 16, 18, 26, 40, 62, 80, 92, 98,
                         100, 96, 92, 88, 84, 80, 76, 72, 68, 62, 55, 48])


def test_break_even_table():
    r8, r64 = sl.device_decode_rate([8, 64], 7e9, 1024, device=H100)
    assert round(100 * sl.break_even_utilization(3.0, r64, 0.5)) == 39
    assert sl.break_even_utilization(3.0, r8, 0.5) > 1        # at batch 8 a $0.50 API is never beaten


def test_introl_floors_need_different_api_prices():
    r7, r13 = sl.device_decode_rate(32, [7e9, 13e9], 1024, device=H100)
    assert sl.max_decode_batch(13e9, 1024, device=H100) < 64 <= sl.max_decode_batch(7e9, 1024, device=H100)
    assert round(r7 / r13, 2) == 1.66
    floors = sl.break_even_utilization(3.0, np.array([r7, r13]), 0.5)
    assert [round(100 * f) for f in floors] == [50, 83]          # same API price: the bigger model's floor is higher
    api_13b = 1e6 * 3.0 / (3600 * r13 * 0.10)
    assert round(api_13b, 2) == 4.15 and round(api_13b / 0.5, 1) == 8.3
    assert sl.break_even_utilization(3.0, r13, api_13b) == pytest.approx(0.10)


def test_figure_3_9_5_overflow_hours():
    r = float(sl.device_decode_rate(64, 7e9, 1024, device=H100))
    over = np.nonzero(DEMAND > 18 * r)[0]
    assert list(over) == list(range(9, 18))       # "from 9:00 to 18:00", "from hour 9 to hour 18"


def test_sizing_by_sustained_demand():
    r = float(sl.device_decode_rate(64, 7e9, 1024, device=H100))
    n_peak = sl.devices_for_demand(DEMAND.max(), r)
    n_sustained = sl.devices_for_demand(DEMAND.mean(), r, target_utilization=0.8)
    assert (n_peak, n_sustained) == (24, 18)
    assert n_peak * r > 100e3 and round(n_sustained * r / 1e3) == 77     # the alt text of figure 3.9.5
    tokens = DEMAND.sum() * 3600
    bills = {}
    for name, n in (("peak", n_peak), ("sustained", n_sustained)):
        served = np.minimum(DEMAND, n * r)
        bills[name] = n * 24 * 3.0 + (DEMAND - served).sum() * 3600 / 1e6 * 0.5
    assert round(bills["peak"]) == 1728 and round(bills["sustained"]) == 1511
    assert round(tokens / 1e6 * 0.5) == 2633
    assert bills["sustained"] < bills["peak"] < tokens / 1e6 * 0.5


# --- 3.9.9 -------------------------------------------------------------------------------------


def test_critical_batch_figure_and_text():
    g = 2 ** np.arange(3, 15)
    split = sl.critical_batch_cost(g, 13e9, 2e6)
    grow = sl.critical_batch_cost(g, 13e9, 2e6, grow_batch=True)
    at_512 = list(g).index(512)
    np.testing.assert_allclose(split["cost_factor"][: at_512 + 1], grow["cost_factor"][: at_512 + 1])
    assert round(split["cost_factor"][0], 2) == 1.07 and round(split["cost_factor"][at_512], 2) == 1.62
    assert round(split["cost_factor"][-1], 1) == 7.5 and round(grow["cost_factor"][-1]) == 19
    speed_split = split["time_factor"][0] / split["time_factor"][-1]
    speed_grow = grow["time_factor"][0] / grow["time_factor"][-1]
    assert 280 < speed_split < 300 and 110 < speed_grow < 125


def test_critical_batch_bill_uses_section_3_3s_layouts_without_rho_dp():
    # "The library lays out each cluster as that section did, without the capstone's rho_DP"
    lay = sl.parallel_layout(4096, 13e9, 2e6, 2e6)
    assert sl.critical_batch_cost([4096], 13e9, 2e6)["efficiency"][0] == pytest.approx(lay.efficiency)
    assert lay.efficiency == pytest.approx(1 / (1 + lay.tp_fraction + lay.bubble_fraction))


def test_bigger_model_has_a_lower_overhead_only_with_its_assumed_bigger_critical_batch():
    small = sl.critical_batch_cost([4096], 13e9, 2e6)
    large = sl.critical_batch_cost([4096], 175e9, 8e6)
    same = sl.critical_batch_cost([4096], 175e9, 2e6)
    assert round(small["cost_factor"][0], 2) == 2.90 and round(large["cost_factor"][0], 2) == 1.95
    assert round(large["efficiency"][0], 2) == 0.78
    # at the same B_crit the bigger model's overhead is the worse one, and it is split further
    assert round(same["cost_factor"][0], 2) == 3.10 > round(small["cost_factor"][0], 2)
    assert (round(same["efficiency"][0], 2), round(small["efficiency"][0], 2)) == (0.49, 0.53)
    # the slider's grid: with the same B_crit the bigger model never comes out ahead, to two decimals
    g = 2 ** np.arange(3, 15)
    for crit in (0.5e6, 2e6, 8e6):
        small = sl.critical_batch_cost(g, 13e9, crit)["cost_factor"]
        large = sl.critical_batch_cost(g, 175e9, crit)["cost_factor"]
        fits = ~np.isnan(large)
        assert np.all(np.round(large[fits], 2) >= np.round(small[fits], 2))
    # the overhead is over each model's own minimum, which is 13.5 times larger per token for 175B
    assert round(sl.flops_per_token(175e9) / sl.flops_per_token(13e9), 1) == 13.5


# --- 3.9.8, the capstone ----------------------------------------------------------------------

A100 = "A100 SXM 80GB"
CAPSTONE_GPUS = (128, 256, 512, 1024, 2048, 4096)


def _capstone_row(k, n=13e9, tokens=260e9, crit=4e6, x=150e12, u=0.9):
    lay = sl.parallel_layout(k, n, crit, crit)
    rho_dp = sl.exposed_allreduce_fraction(lay, n)
    e = 1 / (1 + lay.tp_fraction + lay.bubble_fraction + rho_dp)
    mfu = e * x / sl.get_accelerator(A100).peak("bf16")
    price = sl.hardware.INSTANCE_PRICES["AWS p4de.24xlarge, on-demand"].usd_per_device_hour
    run = sl.training_cost(n, tokens, k, price, device=A100, mfu=mfu, utilization=u)
    return lay, rho_dp, mfu, run


def test_exposed_allreduce_fraction_reproduces_section_3_8_7():
    # the rho_DP column of 3.8.7's table for the 13B layouts at a 4M-token critical batch
    printed = [0.000, 0.016, 0.047, 0.062, 0.070, 0.074, 0.077, 0.079, 0.324, 0.329, 0.339, 0.358]
    gpus = [int(g) for g in 2 ** np.arange(3, 15)]
    got = [round(sl.exposed_allreduce_fraction(sl.parallel_layout(g, 13e9, 4e6, 4e6), 13e9), 3) for g in gpus]
    assert got == printed
    assert math.isnan(sl.exposed_allreduce_fraction(sl.parallel_layout(2, 13e9, 4e6, 4e6), 13e9))


def test_capstone_steps_one_to_three():
    lay = sl.parallel_layout(1024, 13e9, 4e6, 4e6)
    assert f"{6 * 13e9 * 260e9:.3g}" == "2.03e+22"
    assert lay.min_gpus == 4 and lay.dp_cap == 488
    assert (lay.dp, lay.tp, lay.pp, lay.microbatches) == (256, 4, 1, 4)
    assert 260e9 / 13e9 == 20                                  # Chinchilla's tokens per parameter
    assert sl.get_accelerator(A100).peak("bf16") == 312e12 and round(150e12 / 312e12, 2) == 0.48


def test_capstone_price_comes_from_section_3_2s_table():
    row = sl.hardware.INSTANCE_PRICES["AWS p4de.24xlarge, on-demand"]
    assert row.chip == A100 and row.devices == 8
    assert round(row.usd_per_device_hour, 2) == 3.43


def test_capstone_table():
    rows = {k: _capstone_row(k) for k in CAPSTONE_GPUS}
    # up to the cap: only replicas are added, each doubling halves the days, the bill stays near $163k
    for k in (128, 256, 512, 1024):
        lay, _, mfu, run = rows[k]
        assert (lay.tp, lay.pp) == (4, 1) and 0.42 <= round(mfu, 2) <= 0.43
        assert 162 <= round(run.dollars / 1e3) <= 164
    assert rows[1024][0].dp == rows[2048][0].dp == rows[4096][0].dp == 256      # the cap
    assert [round(rows[k][3].days, 2) for k in (1024, 2048, 4096)] == [1.94, 1.25, 0.73]
    assert [round(rows[k][3].dollars / 1e3) for k in (1024, 2048, 4096)] == [164, 211, 248]
    # past it, t = 8 puts one member of each data-parallel group in a node: rho_DP grows fourfold
    assert (rows[2048][0].tp, rows[4096][0].pp) == (8, 2)
    assert round(rows[2048][1] / rows[1024][1]) == 4
    assert round(rows[4096][0].bubble_fraction, 3) == 0.25
    # "communication made up most of rho past the data-parallel cap"
    for k in (2048, 4096):
        lay, rho_dp, _, _ = rows[k]
        assert lay.tp_fraction + rho_dp > lay.bubble_fraction


def test_capstone_calculator_example():
    run = sl.training_cost(70e9, 1.4e12, 2048, 3.0, device=H100, mfu=0.4, utilization=0.9)
    assert round(run.days, 1) == 9.3 and round(run.dollars / 1e6, 2) == 1.38
    assert round(run.compute_days, 1) == 8.4
    assert sl.get_accelerator(H100).peak("bf16") / 1e12 == 989.5


def test_out_of_reach_corner_of_the_capstone_grid():
    # "405B on 200 tokens per parameter ... on A100s that takes years in every column":
    # from 5.4 years (8,192 devices, 50% MFU, 90% utilization) to about 260 (512, 30%, 50%)
    years = [sl.training_cost(405e9, 200 * 405e9, k, 3.0, device=A100, mfu=m, utilization=u).days / 365
             for k in (512, 2048, 8192) for m in (0.3, 0.4, 0.5) for u in (0.5, 0.9)]
    assert round(min(years), 1) == 5.4 and round(max(years), -1) == 260
    assert 200 * 405e9 == 81e12


def test_capstone_grid_has_runs_shorter_than_a_day():
    # the frames that once printed "0.0 calendar days": 7B on 8,192 H100s is about an hour
    run = sl.training_cost(7e9, 20 * 7e9, 8192, 3.0, device=H100, mfu=0.4, utilization=0.5)
    assert round(24 * run.days, 1) == 1.0


def test_exercise_3_9_1_is_the_capstone_run_measured():
    # the run of exercise 3.9.1 (13B, 260B tokens) is the capstone's; its MFU is near the capstone's 42%
    assert round(expected_answer("ex-3-9-1b"), 2) == 0.42


@pytest.mark.parametrize(("before", "after", "saving"), [(0.25, 0.10, 12), (0.5, 0.25, 17)])
def test_savings_from_lower_communication(before, after, saving):
    assert round(100 * (1 - (1 + after) / (1 + before))) == saving


# --- numbers in the worked solutions -----------------------------------------------------------


def test_solution_numbers():
    assert round(expected_answer("ex-3-9-1b"), 2) == 0.42
    assert [round(x, 3) for x in expected_answer("ex-3-9-2a")] == [0.347, 0.868]
    assert round(expected_answer("ex-3-9-3a"), 2) == 0.58
    assert expected_answer("ex-3-9-3d") == pytest.approx([2700.0, 1845.6, 2073.6])
    cost, speed = expected_answer("ex-3-9-5a"), expected_answer("ex-3-9-5b")
    assert [round(c, 2) for c in cost] == [2.90, 5.53]
    assert round(speed[0], 1) == 4.5 and round(speed[1], 1) == 2.3
    assert round(cost[0] / 1.622, 1) == 1.8 and round(cost[1] / 1.622, 1) == 3.4
    assert round(1 + 8_388_608 / 2e6, 1) == 5.2
    days, millions = expected_answer("ex-3-9-6a")
    assert (round(days, 1), round(millions, 2)) == (9.3, 0.92)
    assert expected_answer("ex-3-9-6b") == 1365
    assert round(2048 * days / 14, 1) == 1364.6 and math.ceil(2048 * 9.3 / 14) == 1361


def test_solution_3_9_6c_faster_ports():
    lay = sl.parallel_layout(2048, 13e9, 4e6, 4e6)
    ndr = sl.LINKS["InfiniBand NDR"].bandwidth
    assert ndr == 2 * sl.LINKS["InfiniBand HDR"].bandwidth == 50e9
    assert round(lay.tp_fraction, 3) == 0.150 and lay.bubble_fraction == 0
    assert round(sl.exposed_allreduce_fraction(lay, 13e9), 3) == 0.324
    assert round(sl.exposed_allreduce_fraction(lay, 13e9, port_bandwidth=ndr), 3) == 0.081
    mfu, days, thousands = expected_answer("ex-3-9-6c")
    assert round(1 / (1 + 0.150 + 0.081), 3) == 0.812 and round(mfu, 2) == 0.39
    assert round(days, 2) == 1.05 and round(thousands) == 176
    hdr = _capstone_row(2048)[3]
    assert round(hdr.dollars / 1e3) == 211 and round(hdr.days, 2) == 1.25
    saving = hdr.dollars / 1e3 - thousands
    assert round(saving) == 35 and round(hdr.dollars / 1e3 / saving) == 6        # "a sixth of the bill"


def test_exercise_3_9_6b_hint_warns_against_the_rounded_days():
    fb = check("ex-3-9-6b", 1361)
    assert not fb.correct and "unrounded days" in fb.text() and "round up" in fb.text()
    assert "1,361" not in fb.text() and "1361 is not right" in fb.text()   # the hint no longer names a count
    assert check("ex-3-9-6b", 1365).correct
    r = sl.MEGATRON_WEAK_SCALING[6]
    per_token = sl.megatron_flops_per_token(r.layers, r.hidden)
    assert round(per_token / 1e12, 2) == 1.20 and round(r.tflops_per_gpu * 1e12 / per_token) == 124
    assert round(100 * expected_answer("ex-3-9-4c")) == 36


def test_solution_3_9_4_model_rate():
    r = sl.MEGATRON_WEAK_SCALING[6]
    tokens = r.tflops_per_gpu * 1e12 / sl.megatron_flops_per_token(r.layers, r.hidden)
    c = sl.flops_per_token(sl.megatron_param_count(r.layers, r.hidden), r.layers, r.attention_heads,
                           r.hidden // r.attention_heads, 2048)
    assert round(c / 1e12, 2) == 0.90 and round(tokens * c / 1e12) == 111
