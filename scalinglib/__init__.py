"""scalinglib: the models behind "Scalability by the numbers" (Chapter 3 of a book on scale-out AI).

Everything a section of the book computes is importable from here::

    from scalinglib import amdahl_speedup, strong_time, check

Functions take and return numbers or numpy arrays (broadcasting), use SI units
(seconds, bytes, FLOP/s), print nothing, and refuse bad input with a
``ValueError`` or ``TypeError`` that names the parameter and the allowed range.
"""

from . import figures, measure
from .batchsize import data_parallel_cap, examples_to_target, steps_to_target
from .exercises import check
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
from .measure import scaling_run
from .memory import BYTES_PER_PARAM, devices_to_hold, model_bytes
from .metrics import efficiency, speedup, weak_efficiency
from .plots import COLORS, figure_png, log2_axis, new_figure
from .scaling import (
    best_worker_count,
    isoefficiency_work,
    spill_time,
    strong_model_efficiency,
    strong_time,
    weak_model_efficiency,
    weak_time,
)
from .usl import USLFit, fit_usl, usl_peak_workers, usl_speedup
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
    "USLFit",
    "usl_peak_workers",
    "scaling_run",
    "measure",
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
    # memory (3.2, 3.3)
    "BYTES_PER_PARAM",
    "model_bytes",
    "devices_to_hold",
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
