"""What the scaling lab can read of the machine's state around a run: clocks, quota throttling, steal time.

A speedup measured on a real machine carries more than the program: cores that run at a lower clock
when many are busy, a cgroup quota that stops the job for the rest of a period, a hypervisor that
runs another guest on the same core. Linux exposes some of this, and only where it is allowed to:

* the clock of each CPU, ``/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq`` and
  ``cpuinfo_max_freq`` (kHz): absent in most virtual machines and containers;
* the quota's throttling, ``cpu.stat`` of the process's cgroup: ``nr_periods``, ``nr_throttled``
  and ``throttled_usec`` (cgroup v2) or ``throttled_time`` in ns (v1);
* steal time, the ``steal`` column of the ``cpu`` line of ``/proc/stat``: time a virtual CPU was
  ready to run while the hypervisor ran something else.

:func:`read_state` takes one snapshot; :func:`state_change` says what happened between two, and
:func:`unreadable` what could not be read and why that matters.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

__all__ = ["MachineState", "read_state", "state_change", "StateChange", "unreadable", "cgroup_cpu_stat",
           "cpu_clocks"]


class MachineState(NamedTuple):
    """One snapshot (see :func:`read_state`)."""

    clock_khz: dict | None  #: current clock of each CPU, kHz, or None where cpufreq is not exposed
    max_khz: dict | None  #: the highest clock of each CPU, kHz
    throttle: dict | None  #: the cgroup's ``nr_periods``, ``nr_throttled``, ``throttled_usec``, or None
    steal_ticks: int | None  #: steal time of all CPUs so far, in USER_HZ ticks, or None
    ticks_per_second: int


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def cpu_clocks(cpus, sys_cpu="/sys/devices/system/cpu"):
    """``({cpu: current kHz}, {cpu: max kHz})`` for ``cpus``, or ``(None, None)`` where Linux does not say.

    Examples
    --------
    >>> cur, top = cpu_clocks([0], sys_cpu="/nonexistent")
    >>> cur is None and top is None
    True
    """
    current, highest = {}, {}
    for cpu in cpus:
        base = Path(sys_cpu) / f"cpu{int(cpu)}" / "cpufreq"
        now = _read(base / "scaling_cur_freq")
        top = _read(base / "cpuinfo_max_freq") or _read(base / "scaling_max_freq")
        if now is None:
            return None, None
        current[int(cpu)] = int(now.split()[0])
        if top is not None:
            highest[int(cpu)] = int(top.split()[0])
    return (current or None), (highest or None)


def _parse_stat(text: str, version: int) -> dict:
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    if "nr_throttled" not in values:
        return {}
    usec = values.get("throttled_usec")
    if usec is None and "throttled_time" in values:          # cgroup v1 counts nanoseconds
        usec = values["throttled_time"] // 1000
    return {"nr_periods": values.get("nr_periods", 0), "nr_throttled": values["nr_throttled"],
            "throttled_usec": usec or 0, "cgroup_version": version}


def cgroup_cpu_stat(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup") -> dict | None:
    """Throttling counters of this process's cgroup (the deepest level that has them), or None.

    Returns ``{"nr_periods", "nr_throttled", "throttled_usec", "cgroup_version"}``: periods with
    runnable tasks, periods in which the quota ran out, and the time the group stood still.

    Examples
    --------
    >>> stat = cgroup_cpu_stat()
    >>> stat is None or stat["nr_throttled"] >= 0
    True
    """
    root = Path(root)
    text = _read(Path(proc_cgroup)) or ""
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, relative = parts
        if controllers == "":
            bases, version = [root], 2
        elif "cpu" in controllers.split(","):
            bases = [root / m for m in dict.fromkeys([controllers, "cpu,cpuacct", "cpu", "cpuacct,cpu"])]
            version = 1
        else:
            continue
        for base in bases:
            here = base / relative.strip("/")
            while True:
                found = _read(here / "cpu.stat")
                if found is not None and (stat := _parse_stat(found, version)):
                    return stat
                if here == base or base not in here.parents:
                    break
                here = here.parent
    return None


def _steal(proc_stat="/proc/stat") -> int | None:
    text = _read(Path(proc_stat))
    if not text:
        return None
    fields = text.splitlines()[0].split()
    return int(fields[8]) if fields and fields[0] == "cpu" and len(fields) > 8 else None


def read_state(cpus=None, *, sys_cpu="/sys/devices/system/cpu", root="/sys/fs/cgroup",
               proc_cgroup="/proc/self/cgroup", proc_stat="/proc/stat") -> MachineState:
    """A snapshot of the clocks of ``cpus`` (this process's affinity mask by default), the cgroup's
    throttling counters and the steal time.

    Examples
    --------
    >>> state = read_state()
    >>> state.ticks_per_second > 0
    True
    """
    if cpus is None:
        try:
            cpus = sorted(os.sched_getaffinity(0))
        except AttributeError:
            cpus = list(range(os.cpu_count() or 1))
    current, highest = cpu_clocks(cpus, sys_cpu)
    try:
        hz = os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        hz = 100
    return MachineState(current, highest, cgroup_cpu_stat(root, proc_cgroup), _steal(proc_stat), int(hz))


class StateChange(NamedTuple):
    """What happened between two snapshots (None: not readable)."""

    throttled_periods: int | None  #: quota periods in which the group ran out of time
    periods: int | None  #: quota periods with runnable tasks
    throttled_seconds: float | None  #: time the group stood still
    steal_seconds: float | None  #: CPU time the hypervisor gave to others, summed over all CPUs
    clock_ratio: float | None  #: lowest current clock / highest clock, at the second snapshot


def state_change(before: MachineState, after: MachineState) -> StateChange:
    """Throttling, steal time and clock between two snapshots of :func:`read_state`.

    Examples
    --------
    >>> a = MachineState({0: 3_000_000}, {0: 3_500_000}, {"nr_periods": 10, "nr_throttled": 1,
    ...                  "throttled_usec": 500, "cgroup_version": 2}, 40, 100)
    >>> b = a._replace(throttle={"nr_periods": 30, "nr_throttled": 4, "throttled_usec": 80_500,
    ...                "cgroup_version": 2}, steal_ticks=45, clock_khz={0: 2_800_000})
    >>> change = state_change(a, b)
    >>> change.throttled_periods, change.throttled_seconds, change.steal_seconds, round(change.clock_ratio, 3)
    (3, 0.08, 0.05, 0.8)
    """
    throttled = periods = still = steal = ratio = None
    if before.throttle and after.throttle:
        throttled = after.throttle["nr_throttled"] - before.throttle["nr_throttled"]
        periods = after.throttle["nr_periods"] - before.throttle["nr_periods"]
        still = (after.throttle["throttled_usec"] - before.throttle["throttled_usec"]) / 1e6
    if before.steal_ticks is not None and after.steal_ticks is not None:
        steal = (after.steal_ticks - before.steal_ticks) / after.ticks_per_second
    if after.clock_khz and after.max_khz:
        ratio = min(after.clock_khz.values()) / max(after.max_khz.values())
    return StateChange(throttled, periods, still, steal, ratio)


def unreadable(state: MachineState) -> list[str]:
    """Sentences on what this machine does not let the lab read, and what follows from it.

    Examples
    --------
    >>> unreadable(MachineState(None, None, None, None, 100))[0][:40]
    'the CPU clock cannot be read (no cpufreq'
    """
    notes = []
    if state.clock_khz is None:
        notes.append("the CPU clock cannot be read (no cpufreq in /sys, as in most virtual machines): a clock that "
                     "drops when more cores are busy shows only as a longer unit time during the runs")
    if state.throttle is None:
        notes.append("the cgroup's cpu.stat cannot be read: throttling by a CPU quota would go unseen")
    if state.steal_ticks is None:
        notes.append("/proc/stat has no steal time: a hypervisor's other guests would go unseen")
    notes.append("never readable here: what other guests of the same host do to shared caches and memory bandwidth")
    return notes
