r"""Communication cost models: one message, and the collectives built from messages (Section 3.8).

Four modules, from one message up to a cluster of nodes:

* :mod:`scalinglib.comm.p2p`: one message, :math:`T(n) = \alpha + n\beta`, its
  half-performance size and effective bandwidth (Section 3.8.1).
* :mod:`scalinglib.comm.collectives`: the collectives and their algorithms as
  schedules of messages, their cost terms, times and lower bounds, and which
  algorithm wins at which size (Sections 3.8.2, 3.8.3 and 3.8.4).
* :mod:`scalinglib.comm.bandwidth`: the algorithm bandwidth and the bus bandwidth
  that the NCCL tests report (Section 3.8.5).
* :mod:`scalinglib.comm.clusters`: the all-reduce of a training step across nodes,
  as a flat multi-ring or in three phases (Section 3.8.8).

Everything public is importable from here (``scalinglib.comm.collective_time``) and from
``scalinglib``. Times are in seconds, sizes in bytes, ``alpha`` in seconds per
message and ``beta`` and ``gamma`` in seconds per byte.
"""

from .bandwidth import algorithm_bandwidth, bus_bandwidth, bus_bandwidth_factor
from .clusters import hierarchical_allreduce_time, multiring_allreduce_time
from .collectives import (
    ALGORITHMS,
    COLLECTIVES,
    POWER_OF_TWO_ONLY,
    algorithms_for,
    best_algorithm,
    collective_cost_terms,
    collective_lower_bound,
    collective_time,
    collective_times,
    crossover_size,
)
from .collectives import _is_power_of_two as _is_power_of_two
from .p2p import effective_bandwidth, half_performance_size, p2p_time

__all__ = [
    "COLLECTIVES",
    "ALGORITHMS",
    "POWER_OF_TWO_ONLY",
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
]
