"""Bad input is refused at the boundary with an error that names the parameter and the allowed range.

Every public numeric function is listed with valid arguments; each argument is
then replaced in turn by values the model cannot take (zero workers, a fraction
of 1.5, NaN, infinity, a string, None, a boolean) and the error is checked.
"""

import dataclasses
import math

import numpy as np
import pytest

import scalinglib as sl

# function, valid keyword arguments, and for each argument the kind of value it takes
CASES = [
    (sl.speedup, dict(t1=10.0, tk=2.0), dict(t1="positive", tk="positive")),
    (sl.efficiency, dict(t1=10.0, tk=2.0, k=8), dict(t1="positive", tk="positive", k="count")),
    (sl.weak_efficiency, dict(t1=1.0, tk=1.1), dict(t1="positive", tk="positive")),
    (sl.amdahl_time, dict(f=0.05, k=8), dict(f="fraction", k="count")),
    (sl.amdahl_speedup, dict(f=0.05, k=8), dict(f="fraction", k="count")),
    (sl.amdahl_efficiency, dict(f=0.05, k=8), dict(f="fraction", k="count")),
    (sl.amdahl_ceiling, dict(f=0.05), dict(f="fraction")),
    (sl.largest_serial_fraction, dict(target_efficiency=0.8, k=8), dict(target_efficiency="fraction", k="count")),
    (sl.strong_time, dict(k=8, s=0.05, c=0.01), dict(k="count", s="fraction", c="nonnegative")),
    (sl.weak_time, dict(k=8, s=0.05, c=0.01), dict(k="count", s="fraction", c="nonnegative")),
    (sl.strong_model_efficiency, dict(k=8, s=0.05, c=0.01), dict(k="count", s="fraction", c="nonnegative")),
    (sl.weak_model_efficiency, dict(k=8, s=0.05, c=0.01), dict(k="count", s="fraction", c="nonnegative")),
    (sl.best_worker_count, dict(s=0.05, c=0.01), dict(s="fraction", c="positive")),
    (sl.isoefficiency_work, dict(k=8, s=0.05, c=0.01, target_efficiency=0.9),
     dict(k="count", s="fraction", c="nonnegative", target_efficiency="fraction")),
    (sl.spill_time, dict(k=8, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0),
     dict(k="count", f="fraction", working_set="positive", fast_memory="positive", slowdown="positive")),
    (sl.steps_to_target, dict(batch=1.0, critical_batch=2.0), dict(batch="positive", critical_batch="positive")),
    (sl.examples_to_target, dict(batch=1.0, critical_batch=2.0), dict(batch="positive", critical_batch="positive")),
    (sl.data_parallel_cap, dict(critical_batch_tokens=4e6, micro_batch=1, grad_accum=1, seq_len=2048),
     dict(critical_batch_tokens="positive", micro_batch="count", grad_accum="count", seq_len="count")),
    (sl.scaling_efficiency, dict(comm_fraction=0.2), dict(comm_fraction="nonnegative")),
    (sl.pipeline_bubble_fraction, dict(stages=4, microbatches=8), dict(stages="count", microbatches="count")),
    (sl.tensor_parallel_comm_fraction, dict(tp=8, hidden=8192), dict(tp="count", hidden="positive")),
    (sl.hidden_size_for, dict(n_params=1e9), dict(n_params="positive")),
    (sl.model_bytes, dict(n_params=1e9), dict(n_params="positive")),
    (sl.devices_to_hold, dict(n_params=1e9, bytes_per_param=16, device_memory_bytes=80e9),
     dict(n_params="positive", bytes_per_param="positive", device_memory_bytes="positive")),
    (sl.parallel_layout, dict(n_gpus=64, n_params=1e9, global_batch_tokens=1e6, critical_batch_tokens=1e6),
     dict(n_gpus="count", n_params="positive", global_batch_tokens="positive", critical_batch_tokens="positive")),
    # Sections 3.2 and 3.4
    (sl.devices_to_hold, dict(n_params=1e9, bytes_per_param=2, device_memory_bytes=80e9, extra_bytes=1e9),
     dict(extra_bytes="nonnegative")),
    (sl.kv_cache_bytes, dict(tokens=2048, n_layers=32, n_kv_heads=8, head_dim=128, bytes_per_value=2),
     dict(tokens="nonnegative", n_layers="count", n_kv_heads="count", head_dim="count", bytes_per_value="positive")),
    (sl.step_traffic, dict(n_params=175e9, n_layers=96, hidden=12288, seq_len=2048, micro_batch=1, microbatches=8,
                           tp=8, pp=8, dp=16, bytes_per_value=2),
     dict(n_params="positive", n_layers="count", hidden="positive", seq_len="count", micro_batch="count",
          microbatches="count", tp="count", pp="count", dp="count", bytes_per_value="positive")),
    (sl.littles_law, dict(arrival_rate=200.0, time_in_system=0.25), dict(arrival_rate="positive", time_in_system="positive")),
    (sl.littles_law, dict(number_in_system=50.0, time_in_system=0.25), dict(number_in_system="positive")),
    (sl.mm1_mean_response, dict(arrival_rate=50.0, service_rate=100.0),
     dict(arrival_rate="nonnegative", service_rate="positive")),
    (sl.mm1_response_percentile, dict(q=0.99, arrival_rate=50.0, service_rate=100.0),
     dict(q="fraction", arrival_rate="nonnegative", service_rate="positive")),
    (sl.simulate_mm1, dict(arrival_rate=80.0, service_rate=100.0, n_requests=100),
     dict(arrival_rate="positive", service_rate="positive", n_requests="count")),
    (sl.fanout_slow_probability, dict(p_slow=0.01, n=100), dict(p_slow="fraction", n="count")),
    (sl.sample_server_latency, dict(n=100, median=0.01, sigma=0.3, p_slow=0.02, slow_mean=0.3),
     dict(n="count", median="positive", sigma="positive", p_slow="fraction", slow_mean="positive")),
    (sl.simulate_hedged_requests, dict(n_requests=100, hedge_quantile=0.95),
     dict(n_requests="count", hedge_quantile="fraction")),
    (sl.expected_slowest_step, dict(k=64, base_time=1.0, jitter=0.05),
     dict(k="count", base_time="nonnegative", jitter="nonnegative")),
    (sl.simulate_slowest_step, dict(k=8, base_time=1.0, jitter=0.05, n_steps=10),
     dict(k="count", base_time="nonnegative", jitter="nonnegative", n_steps="count")),
    (sl.decode_profile, dict(batch=8, context=2048, bytes_per_param=2.0, usable_fraction=0.9),
     dict(batch="count", context="count", bytes_per_param="positive", usable_fraction="fraction")),
    # roofline (3.7)
    (sl.attainable_flops, dict(intensity=10.0, peak_flops=1e14, bandwidth=2e12),
     dict(intensity="nonnegative", peak_flops="positive", bandwidth="positive")),
    (sl.ridge_point, dict(peak_flops=1e14, bandwidth=2e12), dict(peak_flops="positive", bandwidth="positive")),
    (sl.arithmetic_intensity, dict(flops=1e9, nbytes=1e6), dict(flops="nonnegative", nbytes="positive")),
    (sl.roofline_time, dict(flops=1e9, nbytes=1e6, peak_flops=1e14, bandwidth=2e12),
     dict(flops="nonnegative", nbytes="nonnegative", peak_flops="positive", bandwidth="positive")),
    (sl.roofline_regime, dict(intensity=10.0, peak_flops=1e14, bandwidth=2e12),
     dict(intensity="nonnegative", peak_flops="positive", bandwidth="positive")),
    (sl.elementwise_intensity, dict(flops_per_element=1, arrays=3, bytes_per_element=2),
     dict(flops_per_element="nonnegative", arrays="count", bytes_per_element="positive")),
    (sl.gemm_flops, dict(m=64, n=64, k=64), dict(m="positive", n="positive", k="positive")),
    (sl.gemm_bytes, dict(m=64, n=64, k=64, bytes_per_element=2),
     dict(m="positive", n="positive", k="positive", bytes_per_element="positive")),
    (sl.gemm_intensity, dict(m=64, n=64, k=64, bytes_per_element=2),
     dict(m="positive", n="positive", k="positive", bytes_per_element="positive")),
    (sl.decode_intensity, dict(batch=8, n_params=7e9, bytes_per_param=2, kv_bytes_per_seq=1e6),
     dict(batch="positive", n_params="positive", bytes_per_param="positive", kv_bytes_per_seq="nonnegative")),
    # flops_per_token=None means "2N"; its other bad values are tested in test_serving.py
    (sl.decode_time_terms, dict(batch=8, n_params=7e9, peak_flops=3e14, bandwidth=2e12, flops_per_token=1.4e10),
     dict(batch="positive", n_params="positive", peak_flops="positive", bandwidth="positive")),
    (sl.decode_step_time, dict(batch=8, n_params=7e9, peak_flops=3e14, bandwidth=2e12),
     dict(batch="positive", n_params="positive", peak_flops="positive", bandwidth="positive")),
    (sl.decode_tokens_per_second, dict(batch=8, n_params=7e9, peak_flops=3e14, bandwidth=2e12, kv_bytes_per_seq=0.0),
     dict(batch="positive", n_params="positive", peak_flops="positive", bandwidth="positive",
          kv_bytes_per_seq="nonnegative")),
    # communication (3.8)
    (sl.p2p_time, dict(nbytes=1e6, alpha=5e-6, beta=2e-11),
     dict(nbytes="nonnegative", alpha="nonnegative", beta="nonnegative")),
    (sl.half_performance_size, dict(alpha=5e-6, beta=2e-11), dict(alpha="nonnegative", beta="positive")),
    (sl.effective_bandwidth, dict(nbytes=1e6, alpha=5e-6, beta=2e-11),
     dict(nbytes="positive", alpha="nonnegative", beta="positive")),
    (sl.collective_time, dict(collective="allreduce", nbytes=1e6, p=8, alpha=5e-6, beta=2e-11, gamma=1e-12),
     dict(nbytes="nonnegative", p="count", alpha="nonnegative", beta="nonnegative", gamma="nonnegative")),
    (sl.collective_lower_bound, dict(collective="allgather", nbytes=1e6, p=8, alpha=5e-6, beta=2e-11, gamma=0.0),
     dict(nbytes="nonnegative", p="count", alpha="nonnegative", beta="nonnegative", gamma="nonnegative")),
    (sl.collective_cost_terms, dict(collective="reduce", p=8), dict(p="count")),
    (sl.collective_times, dict(collective="allreduce", nbytes=1e6, p=8, alpha=5e-6, beta=2e-11),
     dict(nbytes="nonnegative", p="count", alpha="nonnegative", beta="nonnegative")),
    (sl.best_algorithm, dict(collective="allreduce", nbytes=1e6, p=8, alpha=5e-6, beta=2e-11),
     dict(nbytes="nonnegative", p="count", alpha="nonnegative", beta="nonnegative")),
    (sl.crossover_size, dict(collective="allreduce", algorithm_a="recursive_doubling", algorithm_b="ring", p=8,
                             alpha=5e-6, beta=2e-11), dict(p="count", alpha="nonnegative", beta="nonnegative")),
    (sl.hierarchical_allreduce_time, dict(nbytes=1e9, nodes=4, per_node=8, alpha_intra=1e-6, beta_intra=1 / 450e9,
                                          alpha_inter=5e-6, beta_inter=2e-11),
     dict(nbytes="nonnegative", nodes="count", per_node="count", alpha_intra="nonnegative",
          beta_intra="nonnegative", alpha_inter="nonnegative", beta_inter="nonnegative")),
    (sl.bus_bandwidth_factor, dict(collective="allreduce", p=8), dict(p="count")),
    (sl.algorithm_bandwidth, dict(nbytes=1e9, seconds=0.01), dict(nbytes="nonnegative", seconds="positive")),
    (sl.bus_bandwidth, dict(collective="allreduce", nbytes=1e9, seconds=0.01, p=8),
     dict(nbytes="nonnegative", seconds="positive", p="count")),
    # Section 3.9: utilization, time and cost
    (sl.flops_per_token, dict(n_params=1e9, n_layers=24, n_heads=16, head_dim=128, seq_len=2048),
     dict(n_params="positive", n_layers="count", n_heads="count", head_dim="count", seq_len="count")),
    (sl.mfu, dict(tokens_per_second=1e5, flops_per_token=6e9, n_devices=8, peak_flops_per_device=312e12),
     dict(tokens_per_second="positive", flops_per_token="positive", n_devices="count",
          peak_flops_per_device="positive")),
    (sl.training_time, dict(tokens=1e12, n_params=1e9, n_devices=64, flops_per_device=1.5e14),
     dict(tokens="positive", n_params="positive", n_devices="count", flops_per_device="positive")),
    (sl.cost_per_million_tokens, dict(price_per_device_hour=2.0, tokens_per_second_per_device=1e3, utilization=0.5),
     dict(price_per_device_hour="positive", tokens_per_second_per_device="positive", utilization="open_fraction")),
    (sl.duty_cycle_cost_factor, dict(duty_cycle=0.4), dict(duty_cycle="open_fraction")),
    (sl.break_even_utilization,
     dict(price_per_device_hour=2.0, tokens_per_second_per_device=1e3, api_price_per_million_tokens=1.0),
     dict(price_per_device_hour="positive", tokens_per_second_per_device="positive",
          api_price_per_million_tokens="positive")),
    (sl.devices_for_demand, dict(demand_tokens_per_second=1e4, tokens_per_second_per_device=1e3, target_utilization=0.7),
     dict(demand_tokens_per_second="positive", tokens_per_second_per_device="positive",
          target_utilization="open_fraction")),
    (sl.device_decode_rate, dict(batch=8, n_params=7e9, context_tokens=1024),
     dict(batch="count", n_params="positive", context_tokens="nonnegative")),
    (sl.max_decode_batch, dict(n_params=7e9, context_tokens=1024),
     dict(n_params="positive", context_tokens="positive")),
    (sl.critical_batch_cost, dict(n_gpus=[64, 128], n_params=1e9, critical_batch_tokens=1e6),
     dict(n_gpus="count", n_params="positive", critical_batch_tokens="positive")),
    (sl.training_cost, dict(n_params=7e9, tokens=1.4e11, n_devices=64, price_per_device_hour=2.0, mfu=0.4,
                            utilization=0.9),
     dict(n_params="positive", tokens="positive", n_devices="count", price_per_device_hour="positive",
          mfu="open_fraction", utilization="open_fraction")),
    (sl.megatron_param_count, dict(layers=24, hidden=2304), dict(layers="count", hidden="count")),
    (sl.megatron_flops_per_token, dict(layers=24, hidden=2304), dict(layers="count", hidden="count")),
]

BAD_VALUES = {
    "positive": [0.0, -1.0],
    "nonnegative": [-0.5],
    "fraction": [1.5, -0.1],
    "open_fraction": [0.0, 1.5, -0.1],   # (0, 1]: a utilization of zero buys nothing
    "count": [0, -3, 2.5],
}
ALWAYS_BAD = [math.nan, math.inf, -math.inf]
WRONG_TYPES = ["0.5", None, True, {"a": 1}, 1 + 2j]


def _bad_arguments(kinds):
    """(name, bad value, error expected) of every refusal a function's parameters promise."""
    for name, kind in kinds.items():
        for bad in BAD_VALUES[kind] + ALWAYS_BAD:
            yield name, bad, ValueError
        for bad in WRONG_TYPES:
            # a string names a bytes_per_param preset; an unknown one is a bad value, not a bad type
            yield name, bad, (ValueError if name == "bytes_per_param" and isinstance(bad, str) else TypeError)


def _case_ids():
    names = [func.__name__ for func, _, _ in CASES]
    return [name if names.count(name) == 1 else f"{name}-{i}" for i, name in enumerate(names)]


# One test per function, every bad argument tried in it (about 2,400 calls): a failure lists each argument
# that was not refused by name, with what happened instead.
@pytest.mark.parametrize(("func", "good", "kinds"), CASES, ids=_case_ids())
def test_bad_argument_is_refused_by_name(func, good, kinds):
    func(**good)  # the valid call works
    problems = []
    for name, bad, error in _bad_arguments(kinds):
        try:
            func(**{**good, name: bad})
        except error as exc:
            if name not in str(exc):
                problems.append(f"{name}={bad!r}: the message does not name {name!r}: {exc}")
        except Exception as exc:  # noqa: BLE001 - any other outcome is the failure reported
            problems.append(f"{name}={bad!r}: {type(exc).__name__} ({exc}) where a {error.__name__} was due")
        else:
            problems.append(f"{name}={bad!r}: accepted where a {error.__name__} was due")
    assert not problems, "\n".join(problems)


def test_error_message_states_the_allowed_range():
    with pytest.raises(ValueError, match=r"f must be in \[0, 1\]; got 1.5"):
        sl.amdahl_speedup(1.5, 4)
    with pytest.raises(ValueError, match=r"k must be a whole number >= 1; got 0"):
        sl.amdahl_speedup(0.1, 0)
    with pytest.raises(ValueError, match=r"must be finite"):
        sl.speedup(math.nan, 1.0)


def test_bad_entry_inside_an_array_is_located():
    with pytest.raises(ValueError, match=r"k must be a whole number >= 1; got 0 \(at index 2\)"):
        sl.amdahl_speedup(0.1, [1, 2, 0, 4])


def test_shapes_that_do_not_broadcast_are_named():
    with pytest.raises(ValueError, match="t1 has shape .* tk has shape"):
        sl.speedup(np.ones(3), np.ones(4))


def test_unknown_bytes_per_param_preset_lists_the_presets():
    with pytest.raises(ValueError, match="train_mixed_adam"):
        sl.devices_to_hold(1e9, "training", 80e9)


def test_collective_names_are_checked_before_numbers():
    with pytest.raises(ValueError, match="collective must be one of 'broadcast'"):
        sl.collective_time("gather", 1e6, 8, 5e-6, 2e-11)
    with pytest.raises(ValueError, match="algorithm must be one of 'ring', 'binomial_tree'"):
        sl.collective_time("allreduce", 1e6, 8, 5e-6, 2e-11, algorithm="bruck")
    with pytest.raises(ValueError, match="collective must be one of"):
        sl.bus_bandwidth_factor("scatter", 8)


def test_string_arrays_are_type_errors():
    with pytest.raises(TypeError, match="f must hold real numbers"):
        sl.amdahl_speedup(["a", "b"], 2)


def test_scalar_only_parameters_refuse_arrays_by_name():
    from scalinglib._validate import check_scalar

    with pytest.raises(TypeError, match="n_gpus must be a single number"):
        check_scalar("n_gpus", [8, 16])
    with pytest.raises(TypeError, match="n_gpus must be a single number"):
        check_scalar("n_gpus", np.array([8, 16]))
    assert check_scalar("n_gpus", np.array(8)) == 8


def test_counts_too_large_to_represent_are_refused_not_wrapped():
    from scalinglib._validate import as_count

    assert as_count("devices", 3.0) == 3 and isinstance(as_count("devices", 3.0), int)
    assert as_count("devices", [1.0, 2.0]).tolist() == [1, 2]
    with pytest.raises(ValueError, match="devices would be 1e\\+30, beyond"):
        as_count("devices", 1e30)


# ------------------------------------------------------------------------------------------------
# What a reader can type into a live notebook: each of these once hung the kernel, ate memory,
# returned nonsense or failed with an error that named nothing. Each must now give a finite,
# sensible result or a one-line ValueError/TypeError naming the parameter, within a second.

import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REFUSED = [
    # sizes that would hang the kernel or eat memory: (call, error, words the message must hold)
    (lambda: sl.matmul_dag(200), ValueError, ["n", "50,000"]),
    (lambda: sl.sequential_sum_dag(10**9), ValueError, ["n", "50,000"]),
    (lambda: sl.reduction_tree_dag(2**53), ValueError, ["n", "50,000"]),
    (lambda: sl.hillis_steele_scan_dag(10**6), ValueError, ["n", "50,000"]),
    (lambda: sl.blelloch_scan_dag(2**40), ValueError, ["n", "50,000"]),
    (lambda: sl.layer_stack_dag(10**6, 10**6), ValueError, ["layers", "width", "50,000"]),
    (lambda: sl.pipeline_dag(10**4, 10**4), ValueError, ["stages", "microbatches", "50,000"]),
    (lambda: sl.simulate_mm1(80.0, 100.0, n_requests=2**53), ValueError, ["n_requests", "2,000,000"]),
    (lambda: sl.simulate_hedged_requests(n_requests=2**53), ValueError, ["n_requests", "2,000,000"]),
    (lambda: sl.simulate_replicas(0.5, n_requests=2**53), ValueError, ["n_requests", "500,000"]),
    (lambda: sl.simulate_replicas(0.5, n_servers=10**7), ValueError, ["n_servers", "10,000"]),
    (lambda: sl.sample_server_latency(2**53), ValueError, ["n", "5,000,000"]),
    (lambda: sl.simulate_slowest_step(k=10**7, base_time=1.0, jitter=0.05, n_steps=10**7), ValueError,
     ["k", "n_steps", "50,000,000"]),
    (lambda: sl.mmc_mean_response(0.0, 1.0, servers=10**7), ValueError, ["servers", "1,000,000"]),
    (lambda: sl.mmc_mean_response(0.0, 1.0, servers=2**53), ValueError, ["servers", "1,000,000"]),
    (lambda: sl.new_figure(ncols=10**5), ValueError, ["ncols", "8"]),
    (lambda: sl.new_figure(nrows=10**5), ValueError, ["nrows", "8"]),
    (lambda: sl.slider_figure(lambda fig, g: None, {"g": sl.choice("g", [1, 2])}, alt="g = {g}", dpi=20000),
     ValueError, ["dpi", "600"]),
    (lambda: sl.slider_figure(lambda fig, g: None, {"g": sl.choice("g", [1, 2])}, alt="g = {g}", width=1e6),
     ValueError, ["width"]),
    (lambda: sl.labs.scaling(ranks=[2, 4]), ValueError, ["ranks", "include 1"]),
    (lambda: sl.labs.scaling(ranks=[1, 2], repeats=2**53), ValueError, ["repeats", "100"]),
    (lambda: sl.labs.scaling(ranks=[1, 2], seconds=1e9), ValueError, ["seconds", "60"]),
    # nonsense once accepted
    (lambda: sl.decode_profile(batch=1e20), ValueError, ["batch"]),
    (lambda: sl.sample_server_latency(10, sigma=1e3), ValueError, ["sigma", "10"]),
    (lambda: sl.best_worker_count(0.05, 0.01, powers_of_two="yes"), TypeError, ["powers_of_two"]),
    (lambda: sl.slider_html(lambda g: "", {"g": sl.choice("g", [1, 2])}, max_frames=float("nan")), ValueError,
     ["max_frames"]),
    (lambda: sl.slider_html(lambda g: "", {"g": sl.choice("g", [1, 2])}, max_frames=10**6), ValueError,
     ["max_frames", "256"]),
    (lambda: sl.choice("f", [0.1, float("nan")]), ValueError, ["values"]),
    (lambda: sl.choice("f", [0.1, float("inf")]), ValueError, ["values"]),
    (lambda: sl.choice("f", [True, False]), TypeError, ["values"]),
    (lambda: sl.plot_roofline(plt.subplots()[1], 1e14, 2e12, kernels={"x": (10.0, -1.0)}), ValueError,
     ["kernels"]),
    (lambda: sl.plot_roofline(plt.subplots()[1], 1e14, 2e12, intensity_range=(1.0, 0.1)), ValueError,
     ["intensity_range"]),
    # errors that named nothing, or came from deep inside
    (lambda: sl.speedup(10**400, 1.0), ValueError, ["t1"]),
    (lambda: sl.speedup(1.0, -(10**400)), ValueError, ["tk"]),
    (lambda: sl.amdahl_speedup(0.05, 10**400), ValueError, ["k"]),
    (lambda: sl.speedup([[1, 2], [3]], 1.0), ValueError, ["t1"]),
    (lambda: sl.speedup([1, None], 1.0), TypeError, ["t1"]),
    (lambda: sl.speedup([1, "a"], 1.0), TypeError, ["t1"]),
    (lambda: sl.bus_bandwidth("allreduce", 1e9, np.full(2, 0.01), np.full(3, 8)), ValueError, ["seconds", "p"]),
    (lambda: sl.crossover_size("allreduce", "ring", "recursive_doubling", 8, (), 1e-9), TypeError, ["alpha"]),
    (lambda: sl.simulate_mm1(80.0, 100.0, n_requests=()), TypeError, ["n_requests"]),
    (lambda: sl.max_decode_batch(7e9, 5e-324), ValueError, ["context_tokens"]),
    (lambda: sl.parallel_layout(1024, 1e308, 4e6, 4e6), ValueError, ["n_params"]),
    (lambda: sl.training_cost(70e9, 5e-324, 1024, 2.0), ValueError, ["tokens"]),
    (lambda: sl.fit_rate([0.0, 1.0], [5e-324, 1e-323]), ValueError, ["amount", "seconds"]),
    (lambda: sl.fit_usl([1, 2, 4, 1e200], [1, 1.5, 2, 3]), ValueError, ["k", "measured_speedup"]),
    (lambda: sl.choice("f", ["a", "b"]), ValueError, ["fmt"]),
    (lambda: sl.slider_figure(lambda fig, f: None, {"f": sl.choice("f", [1, 2])}, alt="speedup for {g}"),
     ValueError, ["alt", "{g}"]),
    (lambda: sl.decode_profile(1, device=None), TypeError, ["device"]),
    (lambda: sl.decode_profile(1, device="B200"), ValueError, ["device"]),
    (lambda: sl.device_decode_rate(1, 7e9, 1024, device=None), TypeError, ["device"]),
    (lambda: sl.crossover_size("allreduce", "ring", "bruck", 8, 5e-6, 1e-9), ValueError, ["algorithm_b"]),
    # record classes check their fields when made
    (lambda: sl.AlphaBeta(1e-5, 0), ValueError, ["beta"]),
    (lambda: sl.AlphaBeta(float("nan"), 1e-9), ValueError, ["alpha"]),
    (lambda: sl.RateFit(0.0, -1.0), ValueError, ["rate"]),
    (lambda: sl.DecoderShape("x", 8e9, 32, 4096, 32, 0), ValueError, ["n_kv_heads"]),
    (lambda: sl.DecoderShape("x", -1.0, 32, 4096, 32, 8), ValueError, ["n_params"]),
    (lambda: sl.PublishedRun("x", 1e9, "A100", 8, 3e14, 1e3, "x", 24, 16, 64, 2048, 1.5), ValueError,
     ["reported_mfu"]),
    (lambda: sl.Schedule(0, ()), ValueError, ["p"]),
    (lambda: sl.Schedule(2, ("not a task",)), TypeError, ["tasks"]),
    (lambda: sl.Task("a", -1, 0.0, 1.0), ValueError, ["processor"]),
    (lambda: sl.Accelerator("x", "v", "GPU", {"bf16": -1.0}, 80e9, 2e12), ValueError, ["peak_flops"]),
    (lambda: sl.MegatronRow(1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 440, 4.4), ValueError, ["percent_of_peak"]),
    (lambda: sl.USLFit(-0.1, 0.0), ValueError, ["sigma"]),
    # the last bad inputs a fuzz run found (issue 32)
    (lambda: dataclasses.replace(sl.MFU_RUNS[2], tokens_per_second_per_device=1e308), ValueError,
     ["tokens_per_second_per_device", "n_devices", "at most"]),
    (lambda: sl.amdahl_ceiling(5e-324), ValueError, ["f", "at least"]),
    (lambda: sl.amdahl_ceiling([0.5, 1e-310]), ValueError, ["f", "at least"]),
    (lambda: sl.critical_batch_cost(np.array([2**70]), 175e9, 4e6), ValueError, ["n_gpus", "9,007,199,254,740,992"]),
    (lambda: sl.simulate_replicas(0.5, "none", n_servers=4, n_requests=300, hedge_quantile={}), TypeError,
     ["hedge_quantile"]),
    (lambda: sl.simulate_replicas(0.5, "two_choices", n_servers=4, n_requests=300, hedge_quantile=1.5), ValueError,
     ["hedge_quantile"]),
    (lambda: sl.simulate_replicas(0.5, "none", n_servers=4, n_requests=300, delay="soon"), TypeError, ["delay"]),
    (lambda: sl.plot_device_roofline(plt.subplots()[1], "A100", kernels={"x": 1e308}), ValueError,
     ["kernels['x']", "at most"]),
    (lambda: sl.plot_roofline(plt.subplots()[1], 1e14, 2e12, kernels={"x": (10.0, 1e300)}), ValueError,
     ["kernels['x'] rate", "at most"]),
    (lambda: sl.plot_roofline(plt.subplots()[1], 1e14, 2e12, intensity_range=(1.0, 1e300)), ValueError,
     ["intensity_range", "at most"]),
]


@pytest.mark.parametrize(("call", "error", "words"), REFUSED, ids=[f"refused-{i}" for i in range(len(REFUSED))])
def test_what_a_reader_types_is_refused_at_once_by_name(call, error, words):
    start = time.perf_counter()
    try:
        with pytest.raises(error) as info:
            call()
    finally:
        plt.close("all")
    assert time.perf_counter() - start < 1.0
    message = str(info.value)
    assert "\n" not in message, message
    for word in words:
        assert word in message, f"{word!r} not in: {message}"


def test_gaussian_step_times_are_never_negative():
    steps = sl.simulate_slowest_step(1, 1.0, 0.5, n_steps=20_000, model="gaussian")
    assert steps.min() >= 0.0
    assert sl.simulate_slowest_step(4, 0.0, 1.0, n_steps=2_000, model="gaussian").min() >= 0.0


def test_many_servers_are_summed_not_looped_and_agree_with_the_recursion():
    from scalinglib.latency import _erlang_b

    for c, a in ((65, 40.0), (200, 190.0), (1000, 900.0)):
        blocking = 1.0                  # the recursion, term by term
        for k in range(1, c + 1):
            blocking = a * blocking / (k + a * blocking)
        assert _erlang_b(c, a) == pytest.approx(blocking, rel=1e-12)
    start = time.perf_counter()
    t = sl.mmc_mean_response(0.9e6, 1.0, servers=10**6)
    assert time.perf_counter() - start < 1.0 and math.isfinite(t) and t >= 1.0


def test_overflowing_results_are_refused_with_the_arguments():
    with pytest.raises(ValueError, match=r"speedup has no sensible result for t1=1e\+308, tk=5e-324"):
        sl.speedup(1e308, 5e-324)
    with pytest.raises(ValueError, match="efficiency has no sensible result"):
        sl.efficiency(1e308, 1e-10, 1)


def test_every_public_function_goes_through_the_wrapper():
    """Every function exported at the top level that computes a quantity is wrapped by ``public``."""
    import inspect

    drawing = {"plot_roofline", "plot_device_roofline", "new_figure", "log2_axis", "figure_png", "choice",
               "slider_figure", "slider_html", "check", "figure_html", "table"}
    for name in sl.__all__:
        obj = getattr(sl, name)
        if inspect.isfunction(obj) and name not in drawing:
            assert getattr(obj, "__scalinglib_public__", False), f"{name} is not wrapped by _validate.public"


def test_numpy_small_integers_are_kept_as_python_ints():
    """A count given as a numpy uint8 (255 heads) would overflow in the records' products (255 x 128 does not
    fit a uint8): the records keep every whole field as a Python int, and compute finite results."""
    shape = dataclasses.replace(sl.DECODERS["Llama-3-8B"], n_heads=np.uint8(255), n_kv_heads=np.uint8(255),
                                d_model=255 * 128)
    assert type(shape.n_heads) is int and shape.head_dim == 128
    assert math.isfinite(shape.flops_per_token(2048)) and math.isfinite(shape.kv_bytes_per_token())
    row = dataclasses.replace(sl.MEGATRON_WEAK_SCALING[0], attention_heads=np.uint8(255), hidden=255 * 9)
    assert type(row.attention_heads) is int and 0 < row.mfu() < 1
    run = dataclasses.replace(sl.MFU_RUNS[2], n_heads=np.uint8(255), n_devices=np.uint16(2240))
    assert type(run.n_heads) is int and type(run.n_devices) is int
    assert math.isfinite(run.flops_per_token()) and math.isfinite(run.tokens_per_second)


def test_the_smallest_serial_fraction_has_a_finite_ceiling():
    from scalinglib.laws import SMALLEST_CEILING_FRACTION

    assert math.isfinite(sl.amdahl_ceiling(SMALLEST_CEILING_FRACTION))
    assert sl.amdahl_ceiling(0.0) == math.inf


def test_the_checker_answers_a_key_whose_repr_raises():
    """``check`` never raises, even for an object whose ``__repr__`` does."""

    class Hostile:
        def __repr__(self):
            raise RuntimeError("no repr")

        __str__ = __repr__

    feedback = sl.check(Hostile(), 1.0)
    assert feedback.status == "unknown" and "an object of type Hostile" in feedback.text()
    assert sl.check("ex-3-1-1b", Hostile()).status == "invalid"
