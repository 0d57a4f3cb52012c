"""Latency, throughput and the tail (Section 3.4).

Three modules:

* :mod:`scalinglib.latency.queues`: Little's law, the M/M/1 and M/M/c queues, Kingman's
  formula, a simulated first-come, first-served queue, and a summary over seeds
  (Sections 3.4.1, 3.4.2 and 3.4.3).
* :mod:`scalinglib.latency.tails`: the tail of a fan-out, the mixture of server latencies,
  hedged requests drawn from that mixture, and the slowest of K synchronous workers
  (Sections 3.4.4, 3.4.5 and 3.4.6).
* :mod:`scalinglib.latency.replicas`: hedged and tied requests in the queues of replicated
  servers, so that the load the second copies add is felt (Section 3.4.5).

Everything public is importable from here (``scalinglib.latency.simulate_mm1``) and from
``scalinglib``. All times are in seconds and rates in requests per second.
"""

from .queues import MAX_REQUESTS as MAX_REQUESTS
from .queues import MAX_SAMPLES as MAX_SAMPLES
from .queues import MAX_SERVERS as MAX_SERVERS
from .queues import MAX_SIGMA as MAX_SIGMA
from .queues import (
    QueueRun,
    SeedSummary,
    kingman_mean_wait,
    littles_law,
    mm1_mean_response,
    mm1_response_percentile,
    mmc_mean_response,
    over_seeds,
    simulate_mm1,
)
from .queues import _erlang_b as _erlang_b
from .replicas import DRIFT_LIMIT as DRIFT_LIMIT
from .replicas import MAX_REPLICA_REQUESTS as MAX_REPLICA_REQUESTS
from .replicas import MAX_REPLICA_SERVERS as MAX_REPLICA_SERVERS
from .replicas import ReplicaRun, simulate_replicas
from .replicas import _hedged_queues as _hedged_queues
from .replicas import _replica_queues as _replica_queues
from .replicas import _served_once as _served_once
from .tails import MAX_DRAWS as MAX_DRAWS
from .tails import (
    HedgeResult,
    expected_slowest_step,
    fanout_slow_probability,
    harmonic_number,
    sample_server_latency,
    simulate_hedged_requests,
    simulate_slowest_step,
)

__all__ = [
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
]
