"""Bad input is refused at the boundary with an error that names the parameter and the allowed range.

Every public numeric function is listed with valid arguments; each argument is
then replaced in turn by values the model cannot take (zero workers, a fraction
of 1.5, NaN, infinity, a string, None, a boolean) and the error is checked.
"""

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


def _params():
    for func, good, kinds in CASES:
        for name, kind in kinds.items():
            for bad in BAD_VALUES[kind] + ALWAYS_BAD:
                yield pytest.param(func, good, name, bad, ValueError, id=f"{func.__name__}-{name}-{bad!r}")
            for bad in WRONG_TYPES:
                yield pytest.param(func, good, name, bad, TypeError, id=f"{func.__name__}-{name}-{type(bad).__name__}")


@pytest.mark.parametrize(("func", "good", "name", "bad", "error"), list(_params()))
def test_bad_argument_is_refused_by_name(func, good, name, bad, error):
    func(**good)  # the valid call works
    if name == "bytes_per_param" and isinstance(bad, str):
        error = ValueError  # a string names a preset; an unknown one is a bad value, not a bad type
    with pytest.raises(error) as info:
        func(**{**good, name: bad})
    assert name in str(info.value), f"message does not name {name!r}: {info.value}"


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
        sl.bus_bandwidth_factor("alltoall", 8)


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
