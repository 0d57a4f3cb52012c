"""Work, depth and parallelism of a computation drawn as a DAG; Brent's bounds; greedy scheduling (Section 3.6).

Three modules:

* :mod:`scalinglib.workdepth.measures`: a computation as a DAG, and its work,
  depth, critical path, parallelism and Brent's bounds (Sections 3.6.1, 3.6.2 and 3.6.3).
* :mod:`scalinglib.workdepth.schedule`: a greedy list schedule of a DAG on K
  processors, task by task (Section 3.6.3).
* :mod:`scalinglib.workdepth.builders`: the DAGs of the section (sums, scans,
  matrix products, layer stacks and pipelines) and :func:`evaluate`, which runs
  the arithmetic ones on numbers (Sections 3.6.4, 3.6.5 and 3.6.6).

Everything public is importable from here (``scalinglib.workdepth.work``) and from ``scalinglib``.
"""

from .builders import (
    blelloch_scan_dag,
    evaluate,
    hillis_steele_scan_dag,
    layer_stack_dag,
    matmul_dag,
    matmul_depth,
    matmul_work,
    pipeline_dag,
    reduction_tree_dag,
    sequential_sum_dag,
)
from .measures import COST, Input, brent_bounds, critical_path, depth, parallelism, work
from .measures import MAX_NODES as MAX_NODES
from .schedule import PRIORITIES as PRIORITIES
from .schedule import Schedule, Task, greedy_schedule

__all__ = [
    "COST",
    "Input",
    "work",
    "depth",
    "critical_path",
    "parallelism",
    "brent_bounds",
    "Task",
    "Schedule",
    "greedy_schedule",
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
]
