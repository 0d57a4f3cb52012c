"""The three labs a notebook calls: strong and weak scaling (3.5), ping-pong and all-reduce (3.8)."""

from __future__ import annotations

import os

import numpy as np

from .._validate import check_choice, check_nonnegative, check_positive, single, single_whole
from ..probe import MEASURE_ENV, QUICK_REPEATS, CpuInfo, cpu_info, quick_measurements
from .launch import (
    MAX_RANKS_PER_CPU,
    TRANSPORTS,
    MPILaunchError,
    allreduce_algorithm_ids,
    check_counts,
    read_hostfile,
    run_ranks,
    slurm_allocation,
)
from .records import AllreduceLab, PingPongLab, ScalingLab
from .reference import eager_limit, mpi4py_pingpong, reference_pingpong

__all__ = ["default_rank_counts", "fit_limit", "machine_cpus", "busy_note", "scaling", "pingpong", "allreduce",
           "DEFAULT_MESSAGE_SIZES", "DEFAULT_ALLREDUCE_SIZES", "DEFAULT_ALGORITHMS"]

#: Ping-pong sizes: 8 B to 4 MiB, by factors of 2.
DEFAULT_MESSAGE_SIZES = tuple(8 * 2**i for i in range(20))
#: All-reduce sizes: 8 B to 2 MiB of float32, by factors of 2 (a crossover is bracketed within a factor of 2).
DEFAULT_ALLREDUCE_SIZES = tuple(8 * 2**i for i in range(19))
#: The three all-reduce algorithms of Open MPI's tuned component that 3.8's model prices, and ``ignore``:
#: a job in which Open MPI chooses by its own fixed rules.
DEFAULT_ALGORITHMS = ("recursive_doubling", "ring", "rabenseifner", "ignore")

def default_rank_counts(k_fit) -> list[int]:
    """Rank counts for the scaling lab: 1, the powers of two below ``k_fit``, and ``k_fit`` itself.

    ``k_fit`` is the number of physical cores the ranks may use (:func:`fit_limit`): every default K
    gets a core of its own. Larger K may be asked for; the launcher then says that it oversubscribes.

    Examples
    --------
    >>> default_rank_counts(1), default_rank_counts(2), default_rank_counts(12)
    ([1], [1, 2], [1, 2, 4, 8, 12])
    """
    c = single_whole("k_fit", k_fit)
    counts = {1, c}
    power = 2
    while power < c:
        counts.add(power)
        power *= 2
    return sorted(counts)


def machine_cpus(hostfile=None, k_cpu=None, environ=None) -> tuple[int, CpuInfo | None, list[str]]:
    """K_cpu for a run: given, else this machine's usable CPUs, the hostfile's slots, or Slurm's tasks.

    Returns ``(k_cpu, this machine's CpuInfo or None, notes)``.
    """
    notes = []
    env = os.environ if environ is None else environ
    slurm = slurm_allocation(env)
    local = hostfile is None and slurm is None
    cpus = cpu_info() if local else None
    if k_cpu is not None:
        return single_whole("k_cpu", k_cpu), cpus, notes
    if hostfile is not None:
        hosts = read_hostfile(hostfile)
        if any(slots is None for _, slots in hosts):
            raise ValueError("k_cpu must be given when a host in the hostfile has no 'slots=N': "
                             "the lab cannot tell how many CPUs the job may use")
        return sum(slots for _, slots in hosts), None, notes
    if slurm is not None:
        if not slurm["tasks"]:
            raise ValueError("k_cpu must be given: this Slurm allocation does not say its number of tasks")
        return int(slurm["tasks"]), None, notes
    if cpus.limited_by == "cgroup quota":
        notes.append(f"the cgroup allows {cpus.quota:g} CPUs' worth of time although the mask lists {cpus.affinity}")
    if cpus.smt and cpus.smt > 1:
        notes.append(f"the {cpus.usable} usable CPUs are SMT threads of {cpus.cores} cores: two ranks on one core "
                     "share its arithmetic units")
    return cpus.usable, cpus, notes


def busy_note(k_cpu, load=None) -> list[str]:
    """A note when other programs already keep this machine's CPUs busy (1-minute load average >= K_cpu).

    Examples
    --------
    >>> busy_note(2, load=9.5)[0][:44]
    'the 1-minute load average was 9.5 on 2 usabl'
    >>> busy_note(16, load=0.4)
    []
    """
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):          # not on this system
            return []
    if load < k_cpu:
        return []
    return [f"the 1-minute load average was {load:.1f} on {k_cpu} usable CPUs before the run: other programs keep "
            "the CPUs busy, so expect slower and more scattered timings than on a quiet machine"]


def _local(hostfile) -> bool:
    return hostfile is None and slurm_allocation() is None


def _transport(transport, hostfile):
    """``shm`` on this machine and ``auto`` on a cluster when not given; checked when given."""
    if transport is None:
        return "shm" if _local(hostfile) else "auto"
    return check_choice("transport", transport, tuple(TRANSPORTS))


def _transport_notes(transport) -> list[str]:
    return {"shm": ["the ranks reach each other through shared memory (Open MPI's sm transport): no network is used"],
            "tcp": ["the ranks talk TCP on the loopback interface: the kernel's network stack, no network card or wire"],
            "auto": ["Open MPI picks the transport: shared memory inside a node, the fastest network between nodes"]
            }[transport]


def _launch_options(hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout):
    return {"hostfile": hostfile, "launcher": launcher, "mpiexec": mpiexec,
            "extra_args": tuple(str(a) for a in mpiexec_args),
            "start_timeout": single(check_positive, "start_timeout", start_timeout),
            "timeout": single(check_positive, "timeout", timeout)}


#: With ``SCALINGLIB_MEASURE=quick`` (:data:`scalinglib.probe.MEASURE_ENV`; ``make nbval`` sets it) every lab
#: runs two repeats of short batches: the same code runs end to end in a fraction of the time, and the
#: numbers it prints are rough. The summary says so.
QUICK = {"repeats": QUICK_REPEATS, "seconds": 0.02, "target": 5e-4}
QUICK_NOTE = f"a quick run ({MEASURE_ENV}=quick): two short repeats, so every number here is rough"


def _quick(notes: list[str], **values):
    """``values`` as given, or capped at :data:`QUICK` when the environment asks for quick measurements."""
    if not quick_measurements():
        return tuple(values.values())
    notes.append(QUICK_NOTE)
    return tuple(type(v)(min(v, QUICK[k])) for k, v in values.items())


def _bounded(name, value, low, high, kind=float):
    number = single_whole(name, value) if kind is int else single(check_positive, name, value)
    if not low <= number <= high:
        raise ValueError(f"{name} must be between {low} and {high}; got {value!r}")
    return number


#: The most bytes the scaling lab's all-reduce may carry: every rank holds two buffers of this size.
MAX_ALLREDUCE_BYTES = 2**24


def fit_limit(k_cpu, cpus) -> int:
    """The largest K a scaling fit should use: K_cpu, or the physical cores behind it under SMT.

    Examples
    --------
    >>> from scalinglib.probe import CpuInfo
    >>> fit_limit(16, CpuInfo(16, 16, None, 16, 8, 2, "none")), fit_limit(4, None)
    (8, 4)
    """
    c = single_whole("k_cpu", k_cpu)
    if cpus is not None and cpus.smt is not None and cpus.smt > 1 and cpus.cores:
        return max(1, min(c, int(cpus.cores)))
    return c


def _binding(k, k_fit, local, launcher):
    """How the ranks of a K-rank job are placed: one per core up to the cores, else as the launcher decides."""
    if launcher == "srun":
        return {"extra": ("--cpu-bind=cores",), "bind": None, "oversubscribe": None}
    if local and k > k_fit:
        return {"extra": (), "bind": None, "oversubscribe": None}       # mpiexec_command says why it does not bind
    return {"extra": ("--map-by", "core"), "bind": "core", "oversubscribe": False if local else None}


def scaling(ranks=None, *, serial_fraction=0.1, step_seconds=0.01, allreduce_bytes=2**20, seconds=1.0, repeats=5,
            size=64, k_cpu=None, hostfile=None, transport=None, launcher="mpiexec", mpiexec=None, mpiexec_args=(),
            start_timeout=60.0, timeout=1800.0) -> ScalingLab:
    """Strong and weak scaling of a program with a known serial part and an all-reduce in every step.

    One step of the program (:mod:`scalinglib.labs._scaling_rank`): rank 0 computes the serial part
    while the others wait; every rank computes its share of the parallel part (the whole part split
    over the K ranks in strong scaling, the whole part on every rank in weak scaling); then all K ranks
    join one all-reduce of ``allreduce_bytes``. The work is counted in units of one ``size x size``
    float64 matrix product, timed first on one core alone, so the serial fraction of the one-rank job
    is known: about ``serial_fraction`` (exactly the ratio of the units, which the record prints).

    One MPI job per K starts exactly K ranks, each bound to a core of its own up to the physical
    cores (``--map-by core --bind-to core``); past them the launcher says that it oversubscribes.
    Each job times the all-reduce alone, then ``repeats`` strong and weak runs, each at least
    ``seconds`` long (many periods of a CPU quota, which are 0.1 s by default). Before and after each
    job the machine's clocks, the cgroup's throttling counters and the steal time are read where
    Linux exposes them (:mod:`scalinglib.labs.machine`).

    Parameters
    ----------
    ranks : list of int, optional
        The K to measure, whole >= 1, including 1; by default 1, the powers of two below the
        physical cores among the usable CPUs, and that count itself.
    serial_fraction : float
        Share of a one-rank step that rank 0 computes alone, in [0, 0.9] (default 0.1).
    step_seconds : float
        One step's compute on one core alone, in seconds, between 0.001 and 1 (default 0.01).
    allreduce_bytes : int
        Bytes of float32 each step all-reduces, a multiple of 4 from 4 to 2**24 (default 1 MiB).
    seconds : float
        Least length of a timed run, between 0.01 and 600 s (default 1).
    repeats : int
        Runs of each kind at each K, between 1 and 100 (default 5). The record keeps the fastest.
    size : int
        Matrix order of the unit of work, 16 to 256 (default 64: three matrices of 32 KiB).
    k_cpu : int, optional
        Usable CPUs; this machine's (affinity mask and cgroup quota), the hostfile's slots or the
        Slurm allocation's tasks by default.
    transport : {"shm", "tcp", "auto"}, optional
        How the ranks reach each other (see :func:`pingpong`).
    hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout :
        Where and how to launch; see :func:`scalinglib.labs.launch.run_ranks` (``timeout`` is per job).

    Returns
    -------
    ScalingLab
    """
    import math
    from pathlib import Path

    from .machine import read_state, state_change, unreadable

    c, cpus, notes = machine_cpus(hostfile, k_cpu)
    local = _local(hostfile)
    k_fit = fit_limit(c, cpus) if local else c
    ks = default_rank_counts(k_fit) if ranks is None else check_counts("ranks", ranks)
    if ks[0] != 1:
        raise ValueError(f"ranks must include 1, the baseline of every speedup; got {ks}")
    f = single(check_nonnegative, "serial_fraction", serial_fraction)
    if f > 0.9:
        raise ValueError(f"serial_fraction must be between 0 and 0.9; got {serial_fraction!r}")
    step = _bounded("step_seconds", step_seconds, 1e-3, 1.0)
    nbytes = _bounded("allreduce_bytes", allreduce_bytes, 4, MAX_ALLREDUCE_BYTES, int)
    if nbytes % 4:
        raise ValueError(f"allreduce_bytes must be a multiple of 4 (float32 values); got {allreduce_bytes!r}")
    seconds = _bounded("seconds", seconds, 0.01, 600.0)
    repeats = _bounded("repeats", repeats, 1, 100, int)
    size = _bounded("size", size, 16, 256, int)
    launcher = check_choice("launcher", launcher, ("mpiexec", "srun"))
    options = _launch_options(hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout)
    repeats, seconds = _quick(notes, repeats=repeats, seconds=seconds)
    transport = _transport(transport, hostfile)
    notes += _transport_notes(transport)
    if local:
        notes += busy_note(c)
    if local and max(ks) > MAX_RANKS_PER_CPU * c:
        raise ValueError(f"ranks must be at most {MAX_RANKS_PER_CPU} per usable CPU on this machine "
                         f"({MAX_RANKS_PER_CPU * c} here); got {max(ks)}")
    lcm = math.lcm(*ks)
    fitted = [k for k in ks if k <= k_fit]
    config = {"repeats": repeats, "seconds": seconds, "serial_fraction": f, "step_seconds": step,
              "allreduce_bytes": nbytes, "size": size, "lcm": lcm if lcm <= 4096 else max(ks),
              "k_largest": max(fitted) if fitted else max(ks), "calibrate_seconds": min(0.05, seconds)}
    program = Path(__file__).with_name("_scaling_rank.py")
    extra = options.pop("extra_args")
    jobs, launches, changes = {}, [], []
    first = None
    for k in ks:
        place = _binding(k, k_fit, local, launcher)
        before = read_state() if local else None
        out, launch = run_ranks("scaling", config, k, mca=TRANSPORTS[transport], program=program,
                                extra_args=(*place["extra"], *extra), bind=place["bind"],
                                oversubscribe=place["oversubscribe"], **options)
        after = read_state() if local else None
        changes.append(state_change(before, after) if local else None)
        if first is None:
            first = after
            config.update({name: out[name] for name in ("per_unit", "serial_units", "parallel_units",
                                                         "strong_steps", "weak_steps")})
        jobs[k] = out
        launches.append(launch)

    def table(mode, field):
        return np.array([[jobs[k][mode][r][field] for k in ks] for r in range(repeats)], dtype=float)

    phases = {mode: np.stack([table(mode, name) for name in ("serial", "parallel", "reduce")], axis=-1)
              for mode in ("strong", "weak")}
    return ScalingLab(
        ks=np.array(ks), strong=table("strong", "seconds"), weak=table("weak", "seconds"),
        strong_steps=config["strong_steps"], weak_steps=config["weak_steps"],
        serial_units=config["serial_units"], parallel_units=config["parallel_units"], per_unit=config["per_unit"],
        size=size, allreduce_bytes=nbytes, allreduce_alone=np.array([jobs[k]["allreduce_alone"] for k in ks]),
        unit_strong=table("strong", "unit"), unit_weak=table("weak", "unit"),
        busiest_strong=np.stack([table("strong", "busiest"), table("strong", "busiest_units")], axis=-1),
        busiest_weak=np.stack([table("weak", "busiest"), table("weak", "busiest_units")], axis=-1),
        phases_strong=phases["strong"], phases_weak=phases["weak"],
        clock_khz=[jobs[k]["weak"][-1]["clock"] for k in ks],
        max_khz=None if first is None or first.max_khz is None else max(first.max_khz.values()),
        changes=changes, bound=[jobs[k]["bound"] for k in ks], k_cpu=c, k_fit=k_fit, cpus=cpus,
        rank_startup=[np.array(jobs[k]["rank_startup"]) for k in ks], launches=launches, notes=notes,
        unreadable=unreadable(first) if first is not None else [])


def _sizes(name, sizes, default, multiple=1):
    values = list(default) if sizes is None else check_counts(name, sizes)
    for n in values:
        if n % multiple or n > 2**28:
            raise ValueError(f"{name} must be whole multiples of {multiple} bytes, at most 2**28; got {n}")
    if len(values) < 2:
        raise ValueError(f"{name} must hold at least two sizes to fit a line; got {values}")
    return values


def pingpong(*, transport=None, sizes=None, repeats=5, target_seconds=0.002, reference=None, benchmark=None,
             reference_runs=9, hostfile=None, launcher="mpiexec", mpiexec=None, mpiexec_args=(), start_timeout=60.0,
             timeout=300.0) -> PingPongLab:
    """One-way message times between two MPI ranks by ping-pong, and alpha and beta fitted to them.

    Rank 0 sends n bytes, rank 1 sends them back. Round trips follow each other for about
    ``target_seconds`` (a batch); half the batch's median round trip is one timing, so that a
    round in which a rank waited for a CPU does not count. Each size is timed in ``repeats``
    batches.

    Parameters
    ----------
    transport : {"shm", "tcp", "auto"}, optional
        ``shm``: Open MPI's shared-memory transport between ranks on one machine (the default
        there); ``tcp``: the same two ranks through the kernel's TCP stack on the loopback
        interface; ``auto``: whatever Open MPI picks (the default with a hostfile or inside Slurm:
        on a cluster, the network between two nodes).
    sizes : list of int, optional
        Message sizes in bytes (default 8 B to 2 MiB by factors of 4).
    repeats : int
        Timed batches per size, 1 to 100 (default 5). With the references, each batch is a round of
        its own: one job of the lab, then the two benchmarks, in turn.
    target_seconds : float
        Rough length of one batch, between 1e-4 and 1 s (default 0.002).
    reference : bool, optional
        Also run two established ping-pongs on the same transport, right after the lab (by default
        on this machine, not on a cluster): mpi4py's own benchmark, which calls MPI from Python as
        the lab does, and one written in C: OSU's ``osu_latency`` when found, else a C ping-pong
        with its method compiled with ``mpicc`` (see :mod:`scalinglib.labs.reference`). When one
        cannot run, the lab says why in a note and goes on without it.
    benchmark : str, optional
        Path of ``osu_latency``.
    reference_runs : int
        Runs of each reference, 1 to 20 (default 9); the fastest run per size is kept.
    hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout :
        Where and how to launch. With a hostfile, add ``mpiexec_args=["--map-by", "node"]`` to put
        the two ranks on two nodes.

    Returns
    -------
    PingPongLab
    """
    transport = _transport(transport, hostfile)
    values = _sizes("sizes", sizes, DEFAULT_MESSAGE_SIZES)
    repeats = _bounded("repeats", repeats, 1, 100, int)
    target = _bounded("target_seconds", target_seconds, 1e-4, 1.0)
    options = _launch_options(hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout)
    notes = _transport_notes(transport) + (busy_note(cpu_info().usable) if _local(hostfile) else [])
    repeats, target = _quick(notes, repeats=repeats, target=target)
    ref = same_layer = None
    if reference is None:
        reference = _local(hostfile)
    if reference is not True and reference is not False:
        raise TypeError(f"reference must be True, False or None; got {reference!r}")
    reference = reference and launcher == "mpiexec"
    # With references, the lab and the two benchmarks take turns, one batch per size each round: a
    # machine whose speed wanders over seconds then slows all three alike.
    rounds = repeats if reference else 1
    config = {"sizes": values, "repeats": 1 if reference else repeats, "target": target, "min_ranks": 2}
    runs = _bounded("reference_runs", reference_runs, 1, 20, int)
    if quick_measurements():
        runs = min(runs, QUICK["repeats"])
    per_round = -(-runs // rounds)
    where = options["extra_args"] + (("--hostfile", str(hostfile)) if hostfile is not None else ())
    jobs, c_runs, py_runs, failed = [], [], [], set()
    for _ in range(rounds):
        jobs.append(run_ranks("pingpong", config, 2, mca=TRANSPORTS[transport], **options))
        if not reference:
            continue
        if "c" not in failed:
            try:
                c_runs.append(reference_pingpong(values, mca=TRANSPORTS[transport], runs=per_round,
                                                 benchmark=benchmark, mpiexec=mpiexec, timeout=options["timeout"],
                                                 iterations=100 if quick_measurements() else 200, extra_args=where))
            except (MPILaunchError, OSError) as err:
                notes.append(f"no reference benchmark: {str(err).splitlines()[0]}")
                failed.add("c")
        if "py" not in failed:
            try:
                py_runs.append(mpi4py_pingpong(values, mca=TRANSPORTS[transport], runs=per_round, mpiexec=mpiexec,
                                               timeout=options["timeout"],
                                               iterations=200 if quick_measurements() else 1000, extra_args=where))
            except (MPILaunchError, OSError) as err:
                notes.append(f"no mpi4py benchmark: {str(err).splitlines()[0]}")
                failed.add("py")
    ref, same_layer = _joined(c_runs), _joined(py_runs)
    out, launch = jobs[0]
    outs = [o for o, _ in jobs]
    calls = [o.get("python_call") for o in outs if o.get("python_call") is not None]
    limit = eager_limit(transport, mpiexec)
    return PingPongLab(transport=transport, nbytes=np.array(values, dtype=float),
                       seconds=np.vstack([np.array(o["seconds"]).T for o in outs]),
                       rounds=np.min([o["rounds"] for o in outs], axis=0),
                       barrier=float(min(o["barrier"] for o in outs)), hosts=list(out["hosts"]),
                       rank_startup=np.array(out["rank_startup"]), launch=launch, notes=notes,
                       python_call=min(calls) if calls else None, eager_limit=limit, reference=ref,
                       same_layer=same_layer)


def _joined(runs):
    """One ReferencePingPong holding every run of a benchmark's rounds (None without any)."""
    if not runs:
        return None
    first = runs[0]
    return first._replace(seconds=np.vstack([r.seconds for r in runs]))


def allreduce(*, algorithms=DEFAULT_ALGORITHMS, ranks=None, sizes=None, repeats=5, target_seconds=0.002,
              transport=None, k_cpu=None, hostfile=None, launcher="mpiexec", mpiexec=None, mpiexec_args=(),
              start_timeout=60.0, timeout=300.0) -> AllreduceLab:
    """All-reduce times of Open MPI's tuned algorithms across sizes and rank counts.

    Open MPI fixes the algorithm for a whole job (``coll_tuned_use_dynamic_rules 1``,
    ``coll_tuned_allreduce_algorithm N``, with N read from ``ompi_info``; the hierarchical ``han``
    component is switched off so that ``tuned`` decides). So each of ``repeats`` rounds runs one job
    per algorithm, the order rotating from round to round: a machine whose speed wanders over
    seconds then slows every algorithm alike, instead of the one whose job ran at the wrong time.
    In each job, every K in ``ranks`` is measured on ranks 0..K-1 while the others sleep. Each
    timing is the median all-reduce of a batch of back-to-back all-reduces of float32 vectors
    (MPI_SUM) lasting about ``target_seconds``, timed on rank 0 (every rank leaves an all-reduce
    within a message of the others). Rank 0 also times MPI's own float32 sum of two 1 MiB
    vectors for gamma.

    Parameters
    ----------
    algorithms : sequence of str
        Names as ``ompi_info`` lists them (``recursive_doubling``, ``ring``, ``rabenseifner``,
        ``segmented_ring``, ``nonoverlapping``, ``basic_linear``, or ``ignore`` for Open MPI's own choice).
    ranks : list of int, optional
        K values, whole >= 2; the powers of two from 2 to K_cpu by default (2 on a 2-CPU machine).
    sizes : list of int, optional
        Vector sizes in bytes, multiples of 4 (default 8 B to 2 MiB by factors of 4).
    repeats : int
        Rounds, 1 to 100 (default 5): each runs one job per algorithm, timing one batch per size.
    target_seconds, transport, k_cpu, hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout :
        As for :func:`pingpong` and :func:`scaling`.

    Returns
    -------
    AllreduceLab
    """
    if isinstance(algorithms, str) or not algorithms:
        raise TypeError(f"algorithms must be a non-empty list of names; got {algorithms!r}")
    ids, source = allreduce_algorithm_ids(mpiexec)
    names = []
    for a in algorithms:
        if not isinstance(a, str) or a not in ids:
            raise ValueError(f"algorithms must be among {', '.join(ids)}; got {a!r}")
        if a not in names:
            names.append(a)
    c, _, notes = machine_cpus(hostfile, k_cpu)
    if ranks is None:
        ks, power = [], 2
        while power <= max(c, 2):
            ks.append(power)
            power *= 2
    else:
        ks = check_counts("ranks", ranks, minimum=2)
    values = _sizes("sizes", sizes, DEFAULT_ALLREDUCE_SIZES, multiple=4)
    repeats = _bounded("repeats", repeats, 1, 100, int)
    target = _bounded("target_seconds", target_seconds, 1e-4, 1.0)
    transport = _transport(transport, hostfile)
    options = _launch_options(hostfile, launcher, mpiexec, mpiexec_args, start_timeout, timeout)
    notes = _transport_notes(transport) + notes
    if max(ks) > c:
        notes.append(f"K = {max(ks)} is more ranks than the {c} usable CPUs: ranks wait for a CPU between messages, "
                     "which 3.8's model does not describe")
    repeats, target = _quick(notes, repeats=repeats, target=target)
    config = {"sizes": values, "counts": ks, "repeats": 1, "rounds": repeats, "target": target, "gamma_bytes": 2**20}
    if _local(hostfile):
        notes += busy_note(c)
    table = np.empty((len(names), len(ks), repeats, len(values)))
    gammas, copies, barrier, launches = [], [], None, [None] * len(names)
    # A machine's speed wanders over seconds, so the algorithms take turns: each round runs one job per
    # algorithm (one batch per size), in an order that rotates from round to round.
    for r in range(repeats):
        for a in np.roll(np.arange(len(names)), -r):
            mca = (*TRANSPORTS[transport], ("coll", "^han"), ("coll_tuned_use_dynamic_rules", "1"),
                   ("coll_tuned_allreduce_algorithm", str(ids[names[a]])))
            out, launch = run_ranks("allreduce", config, max(ks), mca=mca, **options)
            for j, k in enumerate(ks):
                table[a, j, r] = np.array(out["seconds"][str(k)]).T[0]
            gammas.append(out["gamma"])
            if out.get("copy") is not None:
                copies.append(out["copy"])
            if barrier is None:
                barrier = np.array([out["barrier"][str(k)] for k in ks])
            launches[a] = launches[a] or launch
    if source != "ompi_info":
        notes.append("ompi_info could not be read: the algorithm numbers are Open MPI 5.0's")
    return AllreduceLab(algorithms=names, algorithm_ids={n: ids[n] for n in names}, ids_source=source,
                        ks=np.array(ks), nbytes=np.array(values, dtype=float), seconds=table,
                        gamma=float(min(gammas)), barrier=barrier, transport=transport, launches=launches,
                        notes=notes, copy=float(min(copies)) if copies else None)
