"""scalinglib: the models behind "Scalability by the numbers" (Chapter 3 of a book on scale-out AI).

Everything a section of the book computes is importable from here::

    from scalinglib import amdahl_speedup, strong_time, check

Functions take and return numbers or numpy arrays (broadcasting), use SI units
(seconds, bytes, FLOP/s), print nothing, and refuse bad input with a
``ValueError`` or ``TypeError`` that names the parameter and the allowed range.
"""

from . import figures, labs, probe
from .batchsize import data_parallel_cap, examples_to_target, steps_to_target
from .comm import (
    ALGORITHMS,
    COLLECTIVES,
    algorithm_bandwidth,
    algorithms_for,
    best_algorithm,
    bus_bandwidth,
    bus_bandwidth_factor,
    collective_cost_terms,
    collective_lower_bound,
    collective_time,
    collective_times,
    crossover_size,
    effective_bandwidth,
    half_performance_size,
    hierarchical_allreduce_time,
    multiring_allreduce_time,
    p2p_time,
)
from .cost import (
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    TrainingCost,
    break_even_utilization,
    cost_per_million_tokens,
    critical_batch_cost,
    device_decode_rate,
    devices_for_demand,
    duty_cycle_cost_factor,
    exposed_allreduce_fraction,
    flops_per_token,
    max_decode_batch,
    mfu,
    training_cost,
    training_time,
)
from .exercises import check
from .figures.s3_7 import plot_device_roofline, plot_roofline
from .hardware import CATALOG, LINKS, Accelerator, accelerator_table, get_accelerator, load_devices
from .latency import (
    HedgeResult,
    QueueRun,
    ReplicaRun,
    SeedSummary,
    expected_slowest_step,
    fanout_slow_probability,
    harmonic_number,
    kingman_mean_wait,
    littles_law,
    mm1_mean_response,
    mm1_response_percentile,
    mmc_mean_response,
    over_seeds,
    sample_server_latency,
    simulate_hedged_requests,
    simulate_mm1,
    simulate_replicas,
    simulate_slowest_step,
)
from .laws import (
    amdahl_ceiling,
    amdahl_efficiency,
    amdahl_speedup,
    amdahl_time,
    fit_amdahl,
    gustafson_speedup,
    karp_flatt,
    largest_serial_fraction,
    scaled_serial_fraction,
)
from .layout import (
    Layout,
    hidden_size_for,
    layout_sweep,
    parallel_layout,
    pipeline_bubble_fraction,
    scaling_efficiency,
    tensor_parallel_comm_fraction,
)
from .layout_search import (
    A100_NETWORKS,
    activation_bytes_per_layer,
    evaluate_layout,
    search_layout,
)
from .memory import BYTES_PER_PARAM, devices_to_hold, kv_cache_bytes, model_bytes
from .metrics import efficiency, speedup, weak_efficiency
from .placement import step_traffic, tensor_parallel_ring_fraction
from .plots import COLORS, figure_html, figure_png, log2_axis, new_figure
from .plots import install_display as _install_display
from .probe import AlphaBeta, RateFit, best_rate, fit_alpha_beta, fit_rate
from .roofline import (
    arithmetic_intensity,
    attainable_flops,
    decode_intensity,
    decode_step_time,
    decode_time_terms,
    decode_tokens_per_second,
    elementwise_intensity,
    gemm_bytes,
    gemm_flops,
    gemm_intensity,
    ridge_point,
    roofline_regime,
    roofline_time,
)
from .runs import (
    MEGATRON_TRAINING_TIMES,
    MEGATRON_WEAK_SCALING,
    MFU_RUNS,
    MegatronRow,
    PublishedRun,
    megatron_flops_per_token,
    megatron_param_count,
    mfu_table,
)
from .scaling import (
    best_worker_count,
    isoefficiency_work,
    spill_time,
    strong_model_efficiency,
    strong_time,
    weak_model_efficiency,
    weak_time,
)
from .serving import DECODERS, DecoderShape, decode_profile, get_decoder
from .tables import table
from .usl import USLFit, USLThroughputFit, fit_usl, fit_usl_throughput, usl_peak_workers, usl_speedup
from .widgets import choice, slider_figure, slider_html
from .workdepth import (
    Schedule,
    Task,
    blelloch_scan_dag,
    brent_bounds,
    critical_path,
    depth,
    evaluate,
    greedy_schedule,
    hillis_steele_scan_dag,
    layer_stack_dag,
    matmul_dag,
    matmul_depth,
    matmul_work,
    parallelism,
    pipeline_dag,
    reduction_tree_dag,
    sequential_sum_dag,
    work,
)

__version__ = "0.1.0"

# In a notebook, figures show as crisp SVG with a phone layout, the same in JupyterLab and in the book
# (scalinglib.plots.figure_html); outside IPython this does nothing.
_install_display()

__all__ = [
    # metrics (3.1)
    "speedup",
    "efficiency",
    "weak_efficiency",
    # laws (3.1, 3.5)
    "amdahl_time",
    "amdahl_speedup",
    "amdahl_efficiency",
    "amdahl_ceiling",
    "largest_serial_fraction",
    # Gustafson, Karp-Flatt, the USL and fits (3.5)
    "gustafson_speedup",
    "scaled_serial_fraction",
    "karp_flatt",
    "fit_amdahl",
    "usl_speedup",
    "fit_usl",
    "fit_usl_throughput",
    "USLThroughputFit",
    "USLFit",
    "usl_peak_workers",
    "labs",
    # work, depth and scheduling (3.6)
    "work",
    "depth",
    "critical_path",
    "parallelism",
    "brent_bounds",
    "greedy_schedule",
    "Schedule",
    "Task",
    "evaluate",
    "sequential_sum_dag",
    "reduction_tree_dag",
    "hillis_steele_scan_dag",
    "blelloch_scan_dag",
    "matmul_dag",
    "matmul_work",
    "matmul_depth",
    "layer_stack_dag",
    "pipeline_dag",
    # strong and weak scaling (3.3)
    "strong_time",
    "weak_time",
    "strong_model_efficiency",
    "weak_model_efficiency",
    "best_worker_count",
    "isoefficiency_work",
    "spill_time",
    # critical batch and layout (3.3, 3.9)
    "steps_to_target",
    "examples_to_target",
    "data_parallel_cap",
    "scaling_efficiency",
    "pipeline_bubble_fraction",
    "tensor_parallel_comm_fraction",
    "hidden_size_for",
    "Layout",
    "parallel_layout",
    "layout_sweep",
    # the layout search (3.9)
    "A100_NETWORKS",
    "evaluate_layout",
    "search_layout",
    "activation_bytes_per_layer",
    # memory (3.2, 3.3)
    "BYTES_PER_PARAM",
    "model_bytes",
    "kv_cache_bytes",
    "devices_to_hold",
    # scaling up and out (3.2)
    "step_traffic",
    "tensor_parallel_ring_fraction",
    # latency, throughput and the tail (3.4)
    "littles_law",
    "mm1_mean_response",
    "mm1_response_percentile",
    "mmc_mean_response",
    "kingman_mean_wait",
    "QueueRun",
    "simulate_mm1",
    "SeedSummary",
    "over_seeds",
    "fanout_slow_probability",
    "sample_server_latency",
    "HedgeResult",
    "simulate_hedged_requests",
    "ReplicaRun",
    "simulate_replicas",
    "harmonic_number",
    "expected_slowest_step",
    "simulate_slowest_step",
    # serving and batching (3.4)
    "DecoderShape",
    "DECODERS",
    "get_decoder",
    "decode_profile",
    # hardware catalog (3.2, 3.7, 3.9)
    "Accelerator",
    "CATALOG",
    "LINKS",
    "get_accelerator",
    "accelerator_table",
    "load_devices",
    # roofline (3.7)
    "attainable_flops",
    "ridge_point",
    "arithmetic_intensity",
    "roofline_time",
    "roofline_regime",
    "elementwise_intensity",
    "gemm_flops",
    "gemm_bytes",
    "gemm_intensity",
    "decode_intensity",
    "decode_time_terms",
    "decode_step_time",
    "decode_tokens_per_second",
    "plot_roofline",
    "plot_device_roofline",
    # communication (3.8)
    "COLLECTIVES",
    "ALGORITHMS",
    "p2p_time",
    "half_performance_size",
    "effective_bandwidth",
    "algorithms_for",
    "collective_cost_terms",
    "collective_time",
    "collective_times",
    "collective_lower_bound",
    "best_algorithm",
    "crossover_size",
    "multiring_allreduce_time",
    "hierarchical_allreduce_time",
    "bus_bandwidth_factor",
    "algorithm_bandwidth",
    "bus_bandwidth",
    # measuring this machine (3.7, 3.8)
    "probe",
    "fit_rate",
    "fit_alpha_beta",
    "best_rate",
    "RateFit",
    "AlphaBeta",
    # utilization, time and cost (3.9)
    "SECONDS_PER_HOUR",
    "SECONDS_PER_DAY",
    "flops_per_token",
    "mfu",
    "training_time",
    "cost_per_million_tokens",
    "duty_cycle_cost_factor",
    "break_even_utilization",
    "devices_for_demand",
    "device_decode_rate",
    "max_decode_batch",
    "critical_batch_cost",
    "exposed_allreduce_fraction",
    "TrainingCost",
    "training_cost",
    # published runs (3.9)
    "PublishedRun",
    "MFU_RUNS",
    "MegatronRow",
    "MEGATRON_WEAK_SCALING",
    "MEGATRON_TRAINING_TIMES",
    "megatron_param_count",
    "megatron_flops_per_token",
    "mfu_table",
    # figures, sliders, exercises
    "COLORS",
    "new_figure",
    "log2_axis",
    "figure_png",
    "figure_html",
    "table",
    "choice",
    "slider_figure",
    "slider_html",
    "check",
    "figures",
]
