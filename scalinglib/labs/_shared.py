"""Shared pieces of the labs' records (Sections 3.5 and 3.8): the thresholds they judge timings by, and the
helpers that format bytes, microseconds and launch lines."""

from __future__ import annotations

from .launch import LaunchInfo

#: A unit of work this many times slower during a scaling run than on one core alone is said in the summary.
SLOW_UNIT = 1.5
#: Share of the round-by-round differences (ring minus recursive doubling) that must be positive for the
#: all-reduce's own smallest sizes to give the collective's alpha.
RESOLVED_SHARE = 0.8

#: An all-reduce time more than this many times its model is marked as held up (:meth:`AllreduceLab.stalled`).
STALL_RATIO = 10.0
#: The same against the Open MPI model, which describes the measured schedules closely (:meth:`AllreduceLab.held_up`).
HELD_UP_RATIO = 3.0



def format_bytes(n: float) -> str:
    """Bytes in binary units for a table: ``8 B``, ``32 KiB``, ``2 MiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == round(value) else f"{value:.1f} {unit}"
    return f"{n:.0f} B"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-4 else f"{seconds * 1e6:.0f} us"


def _launch_lines(launch: LaunchInfo, rank_startup) -> list[str]:
    line = (f"launch: {launch.ranks} ranks past MPI_Init and a first barrier {launch.startup_seconds:.2f} s "
            f"after mpiexec started")
    if rank_startup is not None and len(rank_startup):
        line += f" (slowest rank: {max(rank_startup):.2f} s from its own start to MPI_Init done)"
    return [line] + [f"note: {n}" for n in launch.notes]
