r"""What a run costs: FLOPs, utilization, time and money (Section 3.9).

Three modules:

* :mod:`scalinglib.cost.utilization`: FLOPs per token, model FLOPs utilization
  and training time (Sections 3.9.2, 3.9.4 and 3.9.5).
* :mod:`scalinglib.cost.price`: a device billed by the hour, the cost per
  million tokens, the duty cycle, the break-even against an API, and how many
  devices a sustained demand needs at a given decode rate and batch (Sections 3.9.3,
  3.9.6 and 3.9.7).
* :mod:`scalinglib.cost.bill`: the bill of a whole run: the capstone calculator
  :func:`training_cost`, the critical-batch wall in money and the exposed
  gradient all-reduce (Sections 3.8.8, 3.9.11 and 3.9.12).

Everything public is importable from here (``scalinglib.cost.mfu``) and from ``scalinglib``.
The letters follow the chapter's notation table: N parameters, :math:`\ell`
layers, L sequence length, K devices, P peak FLOP/s, X sustained FLOP/s,
:math:`D_\text{tok}` training tokens, U utilization; :math:`C_h` is
Section 3.9's price of one device-hour and :math:`C_\text{API}` an API's price
per million tokens.
"""

from .bill import TrainingCost, critical_batch_cost, exposed_allreduce_fraction, training_cost
from .price import (
    break_even_utilization,
    cost_per_million_tokens,
    device_decode_rate,
    devices_for_demand,
    duty_cycle_cost_factor,
    max_decode_batch,
)
from .utilization import SECONDS_PER_DAY, SECONDS_PER_HOUR, flops_per_token, mfu, training_time

__all__ = [
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
]
