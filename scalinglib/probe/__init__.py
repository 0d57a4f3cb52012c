"""Measure the reader's own machine, and fit the models of Sections 3.7 and 3.8 to the timings.

Four modules:

* :mod:`scalinglib.probe.fits`: the records a measurement returns and the fits
  read off them (a rate, an alpha-beta line, the best and the spread of repeats).
* ``scalinglib.probe.cpus``: the CPUs this process may use (affinity mask,
  cgroup quota, SMT siblings) and the last-level cache.
* ``scalinglib.probe.timing``: timing kernels on this machine (memory bandwidth,
  matrix multiplies, the kernels of Section 3.7.2, numpy's time per byte to add),
  each a few tenths of a second, fewer repeats when the environment asks for quick
  measurements.
* ``scalinglib.probe.roof``: Section 3.7.5's roof of the reader's machine,
  ``machine_roof``, run at one thread count through ``with_threads``.

Every timing is the best of several repeats: on a shared machine, noise only
ever makes a run slower, so the minimum is the least disturbed estimate. The
spread over the repeats says how disturbed the machine was. Messages and
collectives between processes (Section 3.8) and strong and weak scaling
(Section 3.5) are measured with MPI, in :mod:`scalinglib.labs`.

Everything public is importable from here (``scalinglib.probe.cpu_info``).
"""

from .cpus import FALLBACK_CACHE_BYTES, CacheInfo, CpuInfo, cgroup_cpu_quota, cpu_count, cpu_info, last_level_cache
from .cpus import _parse_cpu_list as _parse_cpu_list
from .fits import (
    AlphaBeta,
    KernelRun,
    RateFit,
    RateSpread,
    Timings,
    best_rate,
    fit_alpha_beta,
    fit_rate,
    rate_spread,
    value_spread,
)
from .roof import STREAM_FACTOR, MachineRoof, machine_roof, matmul_order_for, stream_add, stream_elements, with_threads
from .roof import THREAD_VARIABLES as THREAD_VARIABLES
from .timing import MEASURE_ENV as MEASURE_ENV
from .timing import QUICK_REPEATS as QUICK_REPEATS
from .timing import _repeats as _repeats
from .timing import (
    bandwidth_samples,
    bandwidth_timings,
    best_time,
    kernel_runs,
    matmul_timings,
    reduction_time_per_byte,
)
from .timing import quick_measurements as quick_measurements

__all__ = [
    "Timings",
    "RateFit",
    "AlphaBeta",
    "KernelRun",
    "fit_rate",
    "fit_alpha_beta",
    "best_rate",
    "RateSpread",
    "rate_spread",
    "best_time",
    "CpuInfo",
    "cgroup_cpu_quota",
    "cpu_info",
    "cpu_count",
    "bandwidth_timings",
    "bandwidth_samples",
    "matmul_timings",
    "kernel_runs",
    "with_threads",
    "CacheInfo",
    "FALLBACK_CACHE_BYTES",
    "STREAM_FACTOR",
    "last_level_cache",
    "stream_elements",
    "stream_add",
    "matmul_order_for",
    "MachineRoof",
    "machine_roof",
    "value_spread",
    "reduction_time_per_byte",
]
