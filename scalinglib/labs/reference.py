"""An established MPI ping-pong beside the lab's: the OSU micro-benchmarks' ``osu_latency``, or a C stand-in.

The lab's ping-pong runs in Python (mpi4py); a benchmark written in C pays no Python call per
message. Running one beside the lab, on the same transport, shows how much of the lab's time is the
Python layer and checks that the lab times the transport as the benchmark does.

* ``osu_latency`` (Ohio State University's micro-benchmarks) is used when it is found: the path given,
  the ``SCALINGLIB_OSU_LATENCY`` environment variable, or ``osu_latency`` on ``PATH``. Build it with
  the MPI the lab uses (``./configure CC=<env>/bin/mpicc && make``).
* Otherwise the lab compiles ``pingpong_ref.c``, a ping-pong timed with osu_latency's method (warm-up
  round trips, then the mean of many), with the ``mpicc`` beside ``mpiexec``; it needs a C compiler.

Both print one line per size, ``<bytes> <microseconds>``, which :func:`parse_latency_output` reads.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._validate import check_positive, single, single_whole
from .launch import MPILaunchError, _environment, _tail, find_mpiexec, mpiexec_command

__all__ = ["ReferencePingPong", "parse_latency_output", "parse_mpi4py_bench", "find_reference", "reference_pingpong",
           "mpi4py_pingpong", "eager_limit", "OSU_ENV", "MPI4PY_NAME"]

OSU_ENV = "SCALINGLIB_OSU_LATENCY"
SOURCE = Path(__file__).with_name("pingpong_ref.c")
C_NAME = "C ping-pong with osu_latency's method (scalinglib/labs/pingpong_ref.c)"
MPI4PY_NAME = "mpi4py's own benchmark (python -m mpi4py.bench pingpong)"


class ReferencePingPong(NamedTuple):
    """One-way times of the reference benchmark: one row per run, one column per size."""

    name: str  #: which benchmark ran
    nbytes: np.ndarray
    seconds: np.ndarray  #: shape (runs, sizes): each run's mean one-way time
    command: str

    @property
    def best(self) -> np.ndarray:
        """The fastest run per size (a run slowed down by other programs only ever takes longer)."""
        return self.seconds.min(axis=0)


def parse_latency_output(text: str) -> dict[int, float]:
    """``{bytes: seconds}`` from osu_latency's output (or the C stand-in's): ``<bytes> <microseconds>`` lines.

    Comment lines (``#``) and anything else are skipped.

    Examples
    --------
    >>> parse_latency_output("# OSU MPI Latency Test v5.3\\n# Size  Latency (us)\\n8   0.45\\n16  0.47\\n")
    {8: 4.5e-07, 16: 4.7e-07}
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}")
    out = {}
    for line in text.splitlines():
        match = re.match(r"^\s*(\d+)\s+([0-9.]+(?:[eE][-+]?\d+)?)\s*$", line)
        if match:
            out[int(match.group(1))] = float(match.group(2)) * 1e-6
    return out


def parse_mpi4py_bench(text: str) -> dict[int, float]:
    """``{bytes: seconds}`` from ``python -m mpi4py.bench pingpong``: its mean one-way time per size.

    Its lines read ``<bytes> <MB/s> | <mean s> ± <std s> <samples>``; anything else is skipped.

    Examples
    --------
    >>> parse_mpi4py_bench("# MPI PingPong Test\\n     8   5.01 | 1.5968596e-06 ± 1.2596e-06  10000\\n")
    {8: 1.5968596e-06}
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}")
    out = {}
    for line in text.splitlines():
        match = re.match(r"^\s*(\d+)\s+[0-9.]+\s*\|\s*([0-9.]+(?:[eE][-+]?\d+)?)", line)
        if match:
            out[int(match.group(1))] = float(match.group(2))
    return out


def _settings(sizes, runs, iterations, timeout):
    """The sizes (sorted, distinct), runs, iterations and timeout of a reference run, checked."""
    return (sorted({single_whole("sizes", s) for s in sizes}), single_whole("runs", runs, 1, 20),
            single_whole("iterations", iterations, 10), single(check_positive, "timeout", timeout))


def _run_table(command, env, values, count, limit, name, parse) -> list[list[float]]:
    table = []
    for _ in range(count):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=limit, env=env)
        except subprocess.TimeoutExpired:
            raise MPILaunchError(f"the reference ping-pong did not finish within {limit:g} s") from None
        times = parse(done.stdout)
        missing = [n for n in values if n not in times]
        if done.returncode != 0 or missing:
            raise MPILaunchError(f"the reference ping-pong ({name}) ended with exit code {done.returncode} and no "
                                 f"time for {missing[:3]}:\n{_tail(done.stderr + done.stdout)}")
        table.append([times[n] for n in values])
    return table


def _compile(mpicc: Path) -> Path:
    source = SOURCE.read_bytes()
    key = hashlib.sha256(source + str(mpicc).encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"scalinglib-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / f"pingpong_ref-{key}"
    if binary.is_file():
        return binary
    env, _ = _environment()
    env["PATH"] = str(mpicc.parent) + os.pathsep + env.get("PATH", "")
    partial = binary.with_suffix(".part")
    try:
        done = subprocess.run([str(mpicc), "-O2", "-o", str(partial), str(SOURCE)], capture_output=True, text=True,
                              timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise MPILaunchError(f"could not compile the C ping-pong with {mpicc}: {err}") from None
    if done.returncode != 0:
        raise MPILaunchError(f"could not compile the C ping-pong with {mpicc} (a C compiler such as gcc is "
                             f"needed):\n{_tail(done.stderr + done.stdout)}")
    partial.replace(binary)
    return binary


def find_reference(benchmark=None, mpiexec=None) -> tuple[str, Path]:
    """The reference benchmark to run: ``(name, path)``.

    ``benchmark`` (a path to ``osu_latency``), else ``$SCALINGLIB_OSU_LATENCY``, else ``osu_latency``
    on ``PATH``, else the C stand-in compiled with the ``mpicc`` beside ``mpiexec``.

    Raises
    ------
    MPILaunchError
        When a given path does not exist, or no osu_latency is found and the C stand-in cannot be
        compiled (no mpicc, no C compiler).
    """
    if benchmark is not None:
        if not isinstance(benchmark, (str, os.PathLike)):
            raise TypeError(f"benchmark must be a path to osu_latency; got {benchmark!r}")
        found = shutil.which(os.fspath(benchmark))
        if found is None:
            raise MPILaunchError(f"benchmark {os.fspath(benchmark)!r} was not found or is not executable")
        return "OSU micro-benchmarks' osu_latency", Path(found)
    for candidate in (os.environ.get(OSU_ENV), shutil.which("osu_latency")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return "OSU micro-benchmarks' osu_latency", Path(candidate)
    exe = Path(find_mpiexec(mpiexec))
    mpicc = exe.with_name("mpicc")
    if not mpicc.is_file():
        found = shutil.which("mpicc")
        if found is None:
            raise MPILaunchError("no osu_latency found and no mpicc to compile the C ping-pong: install the OSU "
                                 f"micro-benchmarks and set {OSU_ENV} to osu_latency's path")
        mpicc = Path(found)
    return C_NAME, _compile(mpicc)


def reference_pingpong(sizes, *, mca=(), runs=3, benchmark=None, mpiexec=None, timeout=300.0, iterations=200,
                       extra_args=()) -> ReferencePingPong:
    """Run the reference benchmark ``runs`` times on two ranks and keep the sizes in ``sizes``.

    Parameters
    ----------
    sizes : list of int
        Message sizes in bytes, powers of two.
    mca : sequence of (name, value)
        Open MPI parameters: the same transport as the lab's.
    runs : int
        Runs, 1 to 20 (default 3); :attr:`ReferencePingPong.best` keeps the fastest per size.
    benchmark, mpiexec :
        See :func:`find_reference`.
    timeout : float
        Seconds for each run, > 0.
    iterations : int
        Timed round trips per size up to 8 KiB (a tenth above), >= 10 (default 200: short runs, so that
        fewer of them are slowed down by other programs; the fastest run per size is kept).

    Returns
    -------
    ReferencePingPong
    """
    values, count, iters, limit = _settings(sizes, runs, iterations, timeout)
    name, path = find_reference(benchmark, mpiexec)
    if name == C_NAME:
        args = [str(values[0]), str(values[-1]), str(iters), str(max(1, iters // 20)), str(max(1, iters // 10)),
                str(max(1, iters // 200)), "8192"]
    else:
        args = ["-i", str(iters), "-x", str(max(1, iters // 20))]
    command, env, _ = mpiexec_command(2, mpiexec=mpiexec, mca=mca, python=str(path), extra_args=extra_args)
    command = command[:-3] + [str(path), *args]
    table = _run_table(command, env, values, count, limit, name, parse_latency_output)
    import shlex
    return ReferencePingPong(name, np.array(values, dtype=float), np.array(table),
                             " ".join(shlex.quote(c) for c in command))


def mpi4py_pingpong(sizes, *, mca=(), runs=3, mpiexec=None, timeout=300.0, iterations=1000,
                    extra_args=()) -> ReferencePingPong:
    """Run mpi4py's own ping-pong benchmark (``python -m mpi4py.bench pingpong``) ``runs`` times on two ranks.

    It calls MPI from Python as the lab does, one ``Send`` and one ``Recv`` per rank and round trip,
    and reports each size's mean one-way time. Agreement with it says that the lab times the
    messages as an established benchmark on the same layer does; the C reference
    (:func:`reference_pingpong`) then shows what that layer costs.

    Parameters
    ----------
    sizes : list of int
        Message sizes in bytes, powers of two.
    mca, runs, mpiexec, timeout, extra_args :
        As for :func:`reference_pingpong`.
    iterations : int
        Timed round trips per size up to 64 KiB, >= 10 (default 1,000; a fifth of them to 1 MiB and
        a fiftieth above, at least 10).

    Returns
    -------
    ReferencePingPong
    """
    values, count, iters, limit = _settings(sizes, runs, iterations, timeout)
    args = ["-m", "mpi4py.bench", "pingpong", "-a", "none", "-m", str(values[0]), "-n", str(values[-1]), "-l", str(iters),
            "-s", str(max(1, iters // 10)), "--loop-large", str(max(10, iters // 5)),
            "--skip-large", str(max(1, iters // 50)), "--loop-huge", str(max(10, iters // 50)),
            "--skip-huge", str(max(1, iters // 500))]
    command, env, _ = mpiexec_command(2, mpiexec=mpiexec, mca=mca, extra_args=extra_args)
    command = command[:-2] + args
    table = _run_table(command, env, values, count, limit, MPI4PY_NAME, parse_mpi4py_bench)
    import shlex
    return ReferencePingPong(MPI4PY_NAME, np.array(values, dtype=float), np.array(table),
                             " ".join(shlex.quote(c) for c in command))


@lru_cache(maxsize=8)
def _btl_text(mpiexec: str, btl: str) -> str:
    tool = Path(mpiexec).with_name("ompi_info")
    if not tool.is_file():
        return ""
    try:
        done = subprocess.run([str(tool), "--param", "btl", btl, "--level", "9"], capture_output=True, text=True,
                              timeout=30, env=_environment()[0])
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def eager_limit(transport, mpiexec=None) -> float | None:
    """The eager limit in bytes (header included) of the transport's Open MPI BTL, read from ``ompi_info``.

    ``btl_sm_eager_limit`` for ``shm``, ``btl_tcp_eager_limit`` for ``tcp``; None for ``auto`` or when
    ``ompi_info`` does not say. A message whose payload and header fit goes at once (eager); a larger
    one waits for the receiver (rendezvous).
    """
    btl = {"shm": "sm", "tcp": "tcp"}.get(transport)
    if btl is None:
        return None
    text = _btl_text(find_mpiexec(mpiexec), btl)
    match = re.search(rf'"btl_{btl}_eager_limit" \(current value: "(\d+)"', text)
    return float(match.group(1)) if match else None
