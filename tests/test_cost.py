"""The cost models of Section 3.9: identities, limits and the numbers the text quotes."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl

positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
fraction = st.floats(min_value=0.01, max_value=1.0)


# --- FLOPs per token and MFU --------------------------------------------------------------------


def test_flops_per_token_is_6n_without_a_shape_and_adds_attention_with_one():
    assert sl.flops_per_token(175e9) == 6 * 175e9
    gpt3 = sl.flops_per_token(175e9, 96, 96, 128, 2048)
    assert gpt3 - 6 * 175e9 == 12 * 96 * 96 * 128 * 2048
    assert 1.02 < gpt3 / (6 * 175e9) < 1.03


def test_flops_per_token_broadcasts():
    out = sl.flops_per_token(np.array([1e9, 2e9]), 24, 16, 128, [1024, 2048])
    np.testing.assert_allclose(out, 6 * np.array([1e9, 2e9]) + 12 * 24 * 16 * 128 * np.array([1024, 2048]))


def test_partial_shape_is_refused_by_name():
    with pytest.raises(ValueError, match="head_dim, seq_len"):
        sl.flops_per_token(1e9, n_layers=24, n_heads=16)


@given(positive, positive, st.integers(1, 10_000), positive)
def test_mfu_is_linear_in_throughput_and_inverse_in_devices(r, c, n, p):
    base = sl.mfu(r, c, n, p)
    assert sl.mfu(2 * r, c, n, p) == pytest.approx(2 * base)
    assert sl.mfu(r, c, 2 * n, p) == pytest.approx(base / 2)


def test_mfu_of_a_run_at_peak_is_one():
    # a device doing exactly its peak in model FLOPs
    assert sl.mfu(312e12 / 6e9, 6e9, 1, 312e12) == pytest.approx(1.0)


# --- training time ------------------------------------------------------------------------------


def test_training_time_factors():
    with_r = sl.training_time(1e12, 1e9, 64, 100e12)
    without = sl.training_time(1e12, 1e9, 64, 100e12, recompute=False)
    assert with_r / without == pytest.approx(8 / 6)
    assert without == pytest.approx(6 * 1e12 * 1e9 / (64 * 100e12))


def test_training_time_is_tokens_over_throughput():
    """At the model-FLOPs rate, time is simply tokens divided by tokens per second."""
    n, tokens, devices, x = 13e9, 260e9, 256, 150e12
    throughput = devices * x / sl.flops_per_token(n)
    assert sl.training_time(tokens, n, devices, x, recompute=False) == pytest.approx(tokens / throughput)


def test_recompute_must_be_a_bool():
    with pytest.raises(TypeError, match="recompute"):
        sl.training_time(1e12, 1e9, 8, 1e14, recompute="yes")


# --- cost per token, duty cycle, break-even -----------------------------------------------------


@given(positive, positive, fraction)
def test_cost_scales_as_one_over_utilization(price, rate, u):
    full = sl.cost_per_million_tokens(price, rate)
    assert sl.cost_per_million_tokens(price, rate, u) == pytest.approx(full / u)
    assert sl.cost_per_million_tokens(price, rate, u) == pytest.approx(full * sl.duty_cycle_cost_factor(u))


def test_forty_percent_duty_cycle_costs_two_and_a_half_times():
    assert sl.duty_cycle_cost_factor(0.4) == pytest.approx(2.5)
    assert sl.duty_cycle_cost_factor(1.0) == 1.0


def test_cost_per_million_tokens_by_hand():
    # $3.60 an hour at 1,000 tokens/s: 3.6 million tokens an hour, so $1 per million
    assert sl.cost_per_million_tokens(3.6, 1000.0) == pytest.approx(1.0)


@given(positive, positive, positive)
def test_at_break_even_the_two_prices_are_equal(price, rate, api):
    u = sl.break_even_utilization(price, rate, api)
    if u <= 1:
        assert sl.cost_per_million_tokens(price, rate, u) == pytest.approx(api)


def test_break_even_falls_as_throughput_or_api_price_rises():
    base = sl.break_even_utilization(2.0, 1000.0, 1.0)
    assert sl.break_even_utilization(2.0, 2000.0, 1.0) == pytest.approx(base / 2)
    assert sl.break_even_utilization(2.0, 1000.0, 4.0) == pytest.approx(base / 4)


def test_devices_for_demand():
    assert sl.devices_for_demand(9000, 1500) == 6            # an exact fit does not round up
    assert sl.devices_for_demand(9001, 1500) == 7
    assert sl.devices_for_demand(1, 1500) == 1
    np.testing.assert_array_equal(sl.devices_for_demand([3000, 9000], 1500, 0.5), [4, 12])


@pytest.mark.parametrize(("demand", "rate"), [(1e300, 1e-300), (1e16, 1.0), ([10.0, 1e300], 1e-300)])
def test_devices_for_demand_refuses_a_count_past_2_53_instead_of_wrapping(demand, rate):
    with pytest.raises(ValueError, match="device count.*2\\*\\*53"):
        sl.devices_for_demand(demand, rate)


# --- serving ------------------------------------------------------------------------------------


def test_decode_batching_raises_throughput_toward_the_cache_bound():
    b_max = sl.max_decode_batch(7e9, 1024)
    b = np.arange(1, b_max + 1)
    r = sl.device_decode_rate(b, 7e9, 1024)
    assert np.all(np.diff(r) > 0)
    assert r[63] / r[0] > 10                                  # batch 64 against batch 1
    # never faster than reading one sequence's whole cache for each of its tokens allows
    h = sl.hidden_size_for(7e9)
    cache = 2 * (h / 128) * h * 1024 * 2                     # keys and values, L = h / 128 layers, 2 bytes
    assert np.all(r < sl.get_accelerator("A100 SXM 80GB").memory_bandwidth / cache)


def test_decode_beyond_memory_is_nan():
    b_max = sl.max_decode_batch(7e9, 1024)
    assert 0 < b_max < 200
    assert math.isnan(sl.device_decode_rate(b_max + 1, 7e9, 1024))
    assert not math.isnan(sl.device_decode_rate(b_max, 7e9, 1024))
    assert sl.max_decode_batch(70e9, 1024) == 0               # 140 GB of weights on an 80 GB device
    assert sl.max_decode_batch(70e9, 1024, device="MI300X") > 0


@pytest.mark.parametrize("name", ["n_params", "context_tokens", "bytes_per_value", "aspect_ratio"])
def test_max_decode_batch_takes_one_number_for_each_input(name):
    kwargs = {"n_params": 7e9, "context_tokens": 1024, "bytes_per_value": 2.0, "aspect_ratio": 128.0}
    kwargs[name] = [kwargs[name], 2 * kwargs[name]]
    with pytest.raises(TypeError, match=f"{name} must be a single number"):
        sl.max_decode_batch(**kwargs)
    assert sl.max_decode_batch(np.array(7e9), np.int64(1024)) == sl.max_decode_batch(7e9, 1024)


def test_decode_at_batch_one_reads_the_weights_once_per_token():
    chip = sl.get_accelerator("A100 SXM 80GB")
    no_cache = sl.device_decode_rate(1, 7e9, 0)
    assert no_cache == pytest.approx(chip.memory_bandwidth / (2 * 7e9))


def test_decode_turns_compute_bound_without_a_cache():
    chip = sl.get_accelerator("A100 SXM 80GB")
    huge = sl.device_decode_rate(100_000, 7e9, 0)
    assert huge == pytest.approx(chip.peak("bf16") / (2 * 7e9))


# --- the critical-batch cost story --------------------------------------------------------------


def test_critical_batch_cost_split_against_grow():
    g = 2 ** np.arange(3, 15)
    split = sl.critical_batch_cost(g, 13e9, 2e6)
    grow = sl.critical_batch_cost(g, 13e9, 2e6, grow_batch=True)
    assert np.all(split["batch_tokens"] <= 2e6)
    assert grow["batch_tokens"][-1] > 8e6
    # identical until the cap, then growing the batch costs more than splitting the model
    cap = int(np.argmax(split["batch_tokens"] == split["batch_tokens"].max()))
    np.testing.assert_allclose(split["cost_factor"][: cap + 1], grow["cost_factor"][: cap + 1])
    assert np.all(grow["cost_factor"][cap + 1:] > split["cost_factor"][cap + 1:])
    # both grow in money past the cap; growing the batch nearly stops buying time: the last
    # fourfold growth of the cluster saves less than a fifth of the time
    assert np.all(np.diff(split["cost_factor"][cap:]) > 0)
    assert grow["time_factor"][-1] / grow["time_factor"][-3] > 0.8


def test_critical_batch_cost_factor_is_data_over_efficiency():
    out = sl.critical_batch_cost([512], 13e9, 4e6)
    b, e = out["batch_tokens"][0], out["efficiency"][0]
    assert out["cost_factor"][0] == pytest.approx((1 + b / 4e6) / e)
    assert out["time_factor"][0] == pytest.approx(out["cost_factor"][0] / 512)


def test_critical_batch_cost_marks_what_does_not_fit():
    out = sl.critical_batch_cost([8, 1024], 1e12, 4e6)
    assert not out["fits"][0] and math.isnan(out["cost_factor"][0])
    assert out["fits"][1] and out["cost_factor"][1] >= 1


@pytest.mark.parametrize(("args", "name"), [
    (([64], [13e9, 7e9], 2e6), "n_params"),
    (([64], 13e9, [2e6, 4e6]), "critical_batch_tokens"),
    (([64], np.array([13e9]), 2e6), "n_params"),
])
def test_critical_batch_cost_takes_one_model_at_a_time(args, name):
    with pytest.raises(TypeError, match=f"{name} must be a single number"):
        sl.critical_batch_cost(*args)


def test_critical_batch_cost_reads_a_0d_array_as_a_number():
    out = sl.critical_batch_cost([512], np.array(13e9), np.float64(2e6))
    assert out["cost_factor"][0] == sl.critical_batch_cost([512], 13e9, 2e6)["cost_factor"][0]


def test_grow_batch_must_be_a_bool():
    with pytest.raises(TypeError, match="grow_batch"):
        sl.critical_batch_cost([64], 1e9, 1e6, grow_batch=1)


# --- the capstone calculator --------------------------------------------------------------------


def test_training_cost_by_hand():
    run = sl.training_cost(70e9, 1.4e12, 1024, 2.0, device="H100", mfu=0.4)
    peak = sl.get_accelerator("H100").peak("bf16")
    seconds = 6 * 70e9 * 1.4e12 / (1024 * 0.4 * peak)
    assert run.compute_days == pytest.approx(seconds / 86400)
    assert run.days == run.compute_days
    assert run.device_hours == pytest.approx(1024 * seconds / 3600)
    assert run.dollars == pytest.approx(2.0 * run.device_hours)
    assert run.dollars_per_million_tokens == pytest.approx(run.dollars / 1.4e6)
    assert "days" in run.summary() and "$" in run.summary()


@given(st.sampled_from([64, 256, 1024, 4096]), fraction)
def test_dollars_do_not_depend_on_the_device_count_but_days_do(n, u):
    """At a fixed MFU a bigger cluster finishes sooner for the same money; idle time costs 1/u."""
    a = sl.training_cost(7e9, 140e9, 64, 2.0, mfu=0.4, utilization=u)
    b = sl.training_cost(7e9, 140e9, n, 2.0, mfu=0.4, utilization=u)
    assert b.dollars == pytest.approx(a.dollars)
    assert b.days == pytest.approx(a.days * 64 / n)
    full = sl.training_cost(7e9, 140e9, n, 2.0, mfu=0.4)
    assert b.dollars == pytest.approx(full.dollars / u)


@pytest.mark.parametrize("name", ["n_params", "tokens", "n_devices", "price_per_device_hour", "mfu",
                                  "utilization"])
def test_training_cost_takes_one_number_for_each_input(name):
    kwargs = {"n_params": 7e9, "tokens": 1e11, "n_devices": 8, "price_per_device_hour": 2.0, "mfu": 0.4,
              "utilization": 0.9}
    kwargs[name] = [kwargs[name], kwargs[name]]
    with pytest.raises(TypeError, match=f"{name} must be a single number"):
        sl.training_cost(**kwargs)


def test_training_cost_reads_0d_arrays_as_numbers():
    a = sl.training_cost(np.array(7e9), np.float64(1e11), np.int64(8), np.array(2.0), mfu=np.float64(0.4))
    assert a == sl.training_cost(7e9, 1e11, 8, 2.0, mfu=0.4)


def test_training_cost_refuses_an_unknown_device():
    with pytest.raises(ValueError, match="device must be one of"):
        sl.training_cost(7e9, 1e11, 8, 2.0, device="B200")


def test_exposed_allreduce_fraction_refuses_bad_input_and_hides_on_one_node():
    lay = sl.parallel_layout(1024, 13e9, 4e6, 4e6)
    with pytest.raises(TypeError, match="layout"):
        sl.exposed_allreduce_fraction((256, 4, 1), 13e9)
    with pytest.raises(ValueError, match="port_bandwidth"):
        sl.exposed_allreduce_fraction(lay, 13e9, port_bandwidth=0)
    with pytest.raises(ValueError, match="n_params"):
        sl.exposed_allreduce_fraction(lay, -1)
    # two replicas in one node: the all-reduce runs over NVLink and hides (Section 3.8.8)
    assert sl.exposed_allreduce_fraction(sl.parallel_layout(8, 13e9, 4e6, 4e6), 13e9) == 0.0
    # a faster port never exposes more
    slow = sl.exposed_allreduce_fraction(lay, 13e9)
    assert sl.exposed_allreduce_fraction(lay, 13e9, port_bandwidth=50e9) <= slow
