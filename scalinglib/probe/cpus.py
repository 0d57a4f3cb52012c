"""The CPUs this process may use, and the machine's last-level cache (Sections 3.5 and 3.7).

:func:`cpu_info` reads the CPUs this process may use from its affinity mask and
its cgroup's CPU quota (containers, CI runners, Binder, Kubernetes), and the SMT
siblings from ``/sys``; :func:`cpu_count` is its short form. :func:`last_level_cache`
reads the last-level cache from ``/sys`` or ``sysconf`` (or falls back to
:data:`FALLBACK_CACHE_BYTES`), from which Section 3.7.5 sizes the arrays of its
bandwidth kernel.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "CpuInfo",
    "cgroup_cpu_quota",
    "cpu_info",
    "cpu_count",
    "CacheInfo",
    "FALLBACK_CACHE_BYTES",
    "last_level_cache",
]


class CpuInfo(NamedTuple):
    """The CPUs this process may use, and what limits them (see :func:`cpu_info`)."""

    logical: int  #: logical CPUs of the machine, ``os.cpu_count()``
    affinity: int  #: logical CPUs in this process's affinity mask
    quota: float | None  #: CPUs' worth of time the cgroup grants per period, or None if unlimited
    usable: int  #: K_cpu: min(affinity, floor(quota)), at least 1
    cores: int | None  #: physical cores among the affinity CPUs (distinct SMT sibling groups), None if unknown
    smt: int | None  #: most hardware threads of one core inside the mask, None if unknown
    limited_by: str  #: "affinity", "cgroup quota" or "none": what set ``usable`` below ``logical``

    def describe(self) -> str:
        """One line: the counts and what limits them."""
        quota = "no cgroup CPU quota" if self.quota is None else f"cgroup quota {self.quota:g} CPUs"
        text = (f"{self.logical} logical CPUs, {self.affinity} in the affinity mask, {quota}: "
                f"K_cpu = {self.usable} usable")
        if self.cores is not None and self.smt is not None and self.smt > 1:
            text += f" ({self.cores} physical cores, {self.smt} SMT threads each)"
        elif self.cores is not None:
            text += " (no SMT siblings among them)"
        return text


def _parse_cpu_list(text: str) -> set[int]:
    """CPUs of a Linux list such as ``0-3,8,10-11``."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def _quota_v2(text: str) -> float | None:
    """CPUs granted by a cgroup v2 ``cpu.max`` line ``"<quota> <period>"`` (``max`` means unlimited)."""
    fields = text.split()
    if not fields or fields[0] == "max":
        return None
    period = float(fields[1]) if len(fields) > 1 else 100_000.0
    return float(fields[0]) / period if period > 0 else None


def _quota_v1(quota: str, period: str) -> float | None:
    """CPUs granted by cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (a quota of -1 is unlimited)."""
    q, p = float(quota), float(period)
    return q / p if q > 0 and p > 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _levels(root: Path, relative: str):
    """``root/relative`` and each of its parents up to ``root``: a limit set on any of them applies."""
    here = root / relative.strip("/")
    while True:
        yield here
        if here == root or root not in here.parents:
            return
        here = here.parent


def cgroup_cpu_quota(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup") -> float | None:
    """The CPUs' worth of time this process's cgroup may use per period, or None when unlimited.

    Reads ``/proc/self/cgroup`` to find the process's cgroup, then the
    tightest quota on it or any parent: ``cpu.max`` (cgroup v2) or
    ``cpu.cfs_quota_us / cpu.cfs_period_us`` (v1, under ``cpu`` or
    ``cpu,cpuacct``). A container usually sees its own cgroup as the root of
    the mount, so the root's files count too.

    Parameters
    ----------
    root : str or Path, optional
        Where the cgroup file system is mounted.
    proc_cgroup : str or Path, optional
        The file naming the process's cgroups.

    Returns
    -------
    float or None

    Examples
    --------
    >>> q = cgroup_cpu_quota()
    >>> q is None or q > 0
    True
    """
    root = Path(root)
    text = _read(Path(proc_cgroup)) or ""
    quotas = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, relative = parts
        if controllers == "":                                   # cgroup v2: "0::/path"
            for level in _levels(root, relative):
                found = _read(level / "cpu.max")
                if found is not None and (q := _quota_v2(found)) is not None:
                    quotas.append(q)
        elif "cpu" in controllers.split(","):                   # cgroup v1: "4:cpu,cpuacct:/path"
            for mount in dict.fromkeys([controllers, "cpu,cpuacct", "cpu", "cpuacct,cpu"]):
                base = root / mount
                if not base.is_dir():
                    continue
                for level in _levels(base, relative):
                    quota, period = _read(level / "cpu.cfs_quota_us"), _read(level / "cpu.cfs_period_us")
                    if quota is not None and period is not None and (q := _quota_v1(quota, period)) is not None:
                        quotas.append(q)
    return min(quotas) if quotas else None


def _smt_groups(cpus, sys_cpu="/sys/devices/system/cpu") -> list[frozenset[int]] | None:
    """The SMT sibling groups of ``cpus`` (each group cut to ``cpus``), or None if /sys does not tell."""
    groups = set()
    for cpu in cpus:
        topo = Path(sys_cpu) / f"cpu{cpu}" / "topology"
        text = _read(topo / "core_cpus_list") or _read(topo / "thread_siblings_list")
        if text is None:
            return None
        groups.add(frozenset(_parse_cpu_list(text) & set(cpus)))
    return sorted(groups, key=min)


def cpu_info(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup", sys_cpu="/sys/devices/system/cpu") -> CpuInfo:
    """The CPUs this process may really use: affinity mask, cgroup quota and SMT siblings.

    ``os.cpu_count()`` counts the machine's logical CPUs. A process may be
    allowed fewer: its affinity mask (``taskset``, a batch scheduler's
    binding) lists the CPUs it may run on, and a cgroup quota (Docker's
    ``--cpus``, a Kubernetes CPU limit, a CI runner) caps the CPU time it may
    use per period whatever the mask says. The usable count, written K_cpu
    in the book, is the smaller of the two, rounded down: two processes on a
    quota of 1.5 CPUs share 1.5 CPUs. Where ``/sys`` shows the SMT siblings,
    the physical cores behind the usable CPUs are counted too.

    Parameters
    ----------
    root, proc_cgroup : str or Path, optional
        As for :func:`cgroup_cpu_quota`.
    sys_cpu : str or Path, optional
        Where Linux describes each CPU's topology.

    Returns
    -------
    CpuInfo

    Examples
    --------
    >>> info = cpu_info()
    >>> 1 <= info.usable <= info.affinity <= info.logical
    True
    """
    logical = os.cpu_count() or 1
    try:
        mask = sorted(os.sched_getaffinity(0))
    except AttributeError:                                      # not Linux: no mask to read
        mask = list(range(logical))
    affinity = max(1, min(len(mask), logical))
    quota = cgroup_cpu_quota(root, proc_cgroup)
    usable, limited_by = affinity, "affinity" if affinity < logical else "none"
    if quota is not None and math.floor(quota + 1e-9) < usable:
        usable, limited_by = max(1, math.floor(quota + 1e-9)), "cgroup quota"
    groups = _smt_groups(mask, sys_cpu)
    cores = len(groups) if groups else None
    smt = max(len(g) for g in groups) if groups else None
    return CpuInfo(logical, affinity, quota, usable, cores, smt, limited_by)


def cpu_count() -> tuple[int, int]:
    """(logical CPUs of the machine, CPUs this process may use): the short form of :func:`cpu_info`.

    The second number honours the affinity mask and the cgroup CPU quota.

    Examples
    --------
    >>> total, usable = cpu_count()
    >>> 1 <= usable <= total
    True
    """
    info = cpu_info()
    return info.logical, info.usable


# --- Section 3.7: the machine's roof, sized from its caches, at one thread count -------------------------

#: The cache the arrays of the bandwidth kernel are sized from when the machine does not say (no ``/sys``,
#: no ``sysconf``): 128 MiB, more than the last-level cache of most laptops and desktops.
FALLBACK_CACHE_BYTES = 128 * 2**20


class CacheInfo(NamedTuple):
    """The machine's last-level cache, as read by :func:`last_level_cache`."""

    level: int | None  #: cache level (3 on most machines), None when unknown
    instance_bytes: float | None  #: bytes of one cache of that level, None when unknown
    instances: int  #: distinct caches of that level (one per socket, or per chiplet on AMD), 0 when unknown
    total_bytes: float  #: bytes of all of them together: what the arrays are sized from
    source: str  #: where the size came from: "sysfs", "sysconf" or "fallback"

    def describe(self) -> str:
        """One line: the size and where it came from."""
        mib = self.total_bytes / 2**20
        if self.source == "fallback":
            return f"last-level cache unknown: assumed {mib:.0f} MiB"
        each = f" ({self.instances} x {self.instance_bytes / 2**20:.0f} MiB)" if self.instances > 1 else ""
        return f"L{self.level} cache {mib:.0f} MiB{each}, from {self.source}"


def _cache_size(text: str | None) -> float | None:
    """Bytes of a ``/sys`` cache size such as ``32768K``, ``32M`` or ``1024``; None if unreadable."""
    if text is None:
        return None
    t = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in "KMG" else t
    try:
        value = float(digits) * scale
    except ValueError:
        return None
    return value if value > 0 else None


def last_level_cache(sys_cpu="/sys/devices/system/cpu", sysconf=None) -> CacheInfo:
    """The machine's last-level cache: its size, summed over every instance, and where it was read.

    Linux describes each CPU's caches under ``/sys/devices/system/cpu/cpuN/cache/indexM`` (``level``,
    ``type``, ``size``, ``shared_cpu_list``). The highest level holding data is the last-level cache.
    One instance may serve one socket (Intel) or one chiplet of eight cores (AMD), so the instances
    are told apart by the CPUs that share them and their sizes summed: a 96-core EPYC 9654 shows
    twelve 32 MiB caches, 384 MiB in all. Without ``/sys``, ``sysconf("SC_LEVEL3_CACHE_SIZE")`` is
    tried (glibc reads it from the processor, so under a hypervisor it may report the host's whole
    cache); failing that, :data:`FALLBACK_CACHE_BYTES` is assumed.

    Parameters
    ----------
    sys_cpu : str or Path, optional
        Where Linux describes the CPUs (a copy of that tree simulates another machine).
    sysconf : callable, optional
        ``os.sysconf`` or a stand-in taking a name and returning bytes (default ``os.sysconf``
        where it exists).

    Returns
    -------
    CacheInfo

    Examples
    --------
    >>> info = last_level_cache(sys_cpu="/nonexistent", sysconf=lambda name: 0)
    >>> info.source, info.total_bytes == FALLBACK_CACHE_BYTES
    ('fallback', True)
    """
    by_level: dict[int, dict[frozenset, float]] = {}
    root = Path(sys_cpu)
    cpu_dirs = [d for d in root.glob("cpu[0-9]*") if d.name[3:].isdigit()] if root.is_dir() else []
    for cpu_dir in sorted(cpu_dirs, key=lambda d: int(d.name[3:])):
        for index in sorted((cpu_dir / "cache").glob("index[0-9]*")):
            level, size = _read(index / "level"), _cache_size(_read(index / "size"))
            kind = (_read(index / "type") or "Unified").strip()
            if level is None or size is None or kind == "Instruction" or not level.strip().isdigit():
                continue
            shared = _read(index / "shared_cpu_list")
            cpus = frozenset(_parse_cpu_list(shared)) if shared and shared.strip() else frozenset({cpu_dir.name})
            by_level.setdefault(int(level), {})[cpus] = size
    if by_level:
        top = max(by_level)
        sizes = list(by_level[top].values())
        return CacheInfo(top, max(sizes), len(sizes), float(sum(sizes)), "sysfs")
    if sysconf is None:
        sysconf = getattr(os, "sysconf", None)
    for level, name in ((3, "SC_LEVEL3_CACHE_SIZE"), (2, "SC_LEVEL2_CACHE_SIZE")):
        try:
            value = float(sysconf(name)) if sysconf is not None else 0.0
        except (ValueError, OSError, TypeError):
            value = 0.0
        if value > 0:
            return CacheInfo(level, value, 1, value, "sysconf")
    return CacheInfo(None, None, 0, float(FALLBACK_CACHE_BYTES), "fallback")
