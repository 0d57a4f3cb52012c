"""What a lab returns: the timings as numpy arrays, the derived numbers, and a plain text table.

Each record prints as a short summary followed by its table (``print(lab)``); the arrays are
there for plots and further analysis. Formatting stays minimal on purpose. The records live in
:mod:`~scalinglib.labs.scaling_record` (Section 3.5's scaling lab) and
:mod:`~scalinglib.labs.message_records` (Section 3.8's ping-pong and all-reduce labs); this module
gathers them.
"""

from ._shared import HELD_UP_RATIO, RESOLVED_SHARE, SLOW_UNIT, STALL_RATIO, format_bytes
from .message_records import AllreduceLab, Crossover, PingPongLab, model_crossings
from .scaling_record import ScalingLab

__all__ = ["ScalingLab", "PingPongLab", "AllreduceLab", "Crossover", "format_bytes", "STALL_RATIO", "model_crossings",
           "SLOW_UNIT", "RESOLVED_SHARE", "HELD_UP_RATIO"]
