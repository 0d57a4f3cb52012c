"""scalinglib: the models behind "Scalability by the numbers" (Chapter 3 of a book on scale-out AI).

Everything a section of the book computes is importable from here::

    from scalinglib import amdahl_speedup, strong_time, check

Functions take and return numbers or numpy arrays (broadcasting), use SI units
(seconds, bytes, FLOP/s), print nothing, and refuse bad input with a
``ValueError`` or ``TypeError`` that names the parameter and the allowed range.
"""

from . import figures
from .batchsize import data_parallel_cap, examples_to_target, steps_to_target
from .cost import (
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    TrainingCost,
    break_even_utilization,
    cost_per_million_tokens,
    critical_batch_cost,
    decode_tokens_per_second,
    devices_for_demand,
    duty_cycle_cost_factor,
    flops_per_token,
    max_decode_batch,
    mfu,
    training_cost,
    training_time,
)
from .exercises import check
from .hardware import CATALOG, LINKS, Accelerator, accelerator_table, get_accelerator
from .laws import (
    amdahl_ceiling,
    amdahl_efficiency,
    amdahl_speedup,
    amdahl_time,
    largest_serial_fraction,
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
from .memory import BYTES_PER_PARAM, devices_to_hold, model_bytes
from .metrics import efficiency, speedup, weak_efficiency
from .plots import COLORS, figure_png, log2_axis, new_figure
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
from .widgets import choice, slider_figure, slider_html

__version__ = "0.1.0"

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
    # memory (3.2, 3.3)
    "BYTES_PER_PARAM",
    "model_bytes",
    "devices_to_hold",
    # hardware catalog (3.2, 3.7, 3.9)
    "Accelerator",
    "CATALOG",
    "LINKS",
    "get_accelerator",
    "accelerator_table",
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
    "decode_tokens_per_second",
    "max_decode_batch",
    "critical_batch_cost",
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
    "choice",
    "slider_figure",
    "slider_html",
    "check",
    "figures",
]
