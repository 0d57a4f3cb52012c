"""The record of the scaling lab of Section 3.5.7: strong and weak runs of a program with a known serial part,
rescaled to one pace, the fits and the table it prints."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..probe import CpuInfo
from ._shared import SLOW_UNIT, _us, format_bytes
from .analysis import (
    ScalingFit,
    StepParts,
    scaling_fits,
    step_parts,
)
from .launch import LaunchInfo


@dataclass
class ScalingLab:
    """Strong and weak scaling of a program with a known serial part and an all-reduce per step (Section 3.5).

    ``strong`` and ``weak`` hold the seconds of each timed run (the slowest rank's), one row per
    repeat and one column per K; a strong run is ``strong_steps`` steps, a weak run ``weak_steps``.
    One MPI job ran per K, with exactly K ranks.

    A machine's speed wanders from one run to the next (a virtual machine's host, turbo, other
    programs), and a speedup divides two runs taken seconds apart. So every run also times its own
    units of work on every rank. The longest compute of any rank sets the pace of a run; the record
    replaces it by the most units any rank computed (rank 0's, with the serial part) at the calibrated
    time per unit (``per_unit``) and keeps the rest of the run, the all-reduces and the waits, as
    measured. The rescaled runs hold the program's own structure at one fixed
    rate of work; ``strong_raw_best`` and ``speedup_raw`` keep the wall clock. Like Section 3.1's
    timings, the record then summarises the repeats by the fastest run.
    """

    ks: np.ndarray
    strong: np.ndarray
    weak: np.ndarray
    strong_steps: int
    weak_steps: int
    serial_units: int  #: units rank 0 computes alone in each step
    parallel_units: int  #: units of a step's parallel part (split over K ranks in strong scaling)
    per_unit: float  #: seconds of one unit on one core alone, measured before the runs
    size: int  #: matrix order of a unit
    allreduce_bytes: int
    allreduce_alone: np.ndarray  #: median seconds of one all-reduce timed alone on K ranks (0 at K = 1)
    unit_strong: np.ndarray  #: seconds per unit during the strong runs (median over ranks), per repeat and K
    unit_weak: np.ndarray
    phases_strong: np.ndarray  #: rank 0's serial, parallel and all-reduce seconds, shape (repeats, K, 3)
    phases_weak: np.ndarray
    clock_khz: list  #: per K, each rank's clock after its last weak run (kHz), None where unreadable
    max_khz: float | None  #: the highest clock of the usable CPUs, kHz
    changes: list  #: per K, the :class:`~scalinglib.labs.machine.StateChange` over its job (None off this machine)
    bound: list  #: per K, the CPUs each rank could run on
    k_cpu: int
    k_fit: int  #: the largest K with a core of its own: the fits use K <= k_fit
    cpus: CpuInfo | None
    rank_startup: list
    launches: list[LaunchInfo]
    notes: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  #: what the machine did not let the lab read
    #: per run (repeats x K x 2): the longest compute of any rank, seconds, and the most units any rank computed
    busiest_strong: np.ndarray | None = None
    busiest_weak: np.ndarray | None = None

    @property
    def repeats(self) -> int:
        return int(self.strong.shape[0])

    @property
    def known_f(self) -> float:
        """The program's serial fraction on one rank: serial units over all the units of a step."""
        return self.serial_units / (self.serial_units + self.parallel_units)

    @property
    def known_step(self) -> tuple[float, float]:
        """(serial, parallel) seconds of one step on one core alone, from the calibration."""
        return self.serial_units * self.per_unit, self.parallel_units * self.per_unit

    @property
    def share(self) -> np.ndarray:
        """The busiest rank's share of the parallel units at each K (1/K when they split evenly)."""
        return np.ceil(self.parallel_units / self.ks) / self.parallel_units

    def _lead_unit(self, phases, steps, units) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(phases, dtype=float)[..., 1] / (steps * np.asarray(units, dtype=float))

    @property
    def lead_unit_strong(self) -> np.ndarray:
        """Rank 0's seconds per unit in each strong run (repeats x K): the pace of the rank with the serial part
        (records without the busiest rank's compute are rescaled by it)."""
        return self._lead_unit(self.phases_strong, self.strong_steps, np.ceil(self.parallel_units / self.ks))

    @property
    def lead_unit_weak(self) -> np.ndarray:
        return self._lead_unit(self.phases_weak, self.weak_steps, self.parallel_units)

    def _rescaled(self, seconds, units, phases, busiest) -> np.ndarray:
        if busiest is not None:             # the longest compute set the pace; on a steady machine the most units would
            busiest = np.asarray(busiest, dtype=float)
            compute, calibrated = busiest[..., 0], busiest[..., 1] * self.per_unit
        else:                               # records without it: rank 0, which computes the serial part
            compute = np.asarray(phases, dtype=float)[..., :2].sum(axis=-1)
            ratio = np.asarray(units, dtype=float) / self.per_unit
            calibrated = compute / np.where(np.isfinite(ratio) & (ratio > 0), ratio, 1.0)
        compute = np.minimum(compute, seconds)
        ok = np.isfinite(calibrated) & (compute > 0)
        return np.where(ok, seconds - compute + calibrated, seconds)   # the all-reduce and the waits keep their clock

    @property
    def strong_rescaled(self) -> np.ndarray:
        """Every strong run's seconds at the calibration's speed: the longest compute of any rank replaced by the
        most units any rank computed (rank 0's) at the calibrated time per unit, the rest of the run (the
        all-reduces and the waits) as measured."""
        return self._rescaled(self.strong, self.lead_unit_strong, self.phases_strong, self.busiest_strong)

    @property
    def weak_rescaled(self) -> np.ndarray:
        return self._rescaled(self.weak, self.lead_unit_weak, self.phases_weak, self.busiest_weak)

    @property
    def strong_best(self) -> np.ndarray:
        """The fastest rescaled strong run per K, seconds at the calibration's speed."""
        return self.strong_rescaled.min(axis=0)

    @property
    def weak_best(self) -> np.ndarray:
        return self.weak_rescaled.min(axis=0)

    @property
    def strong_raw_best(self) -> np.ndarray:
        """The fastest strong run per K by the wall clock, not rescaled."""
        return self.strong.min(axis=0)

    @property
    def weak_raw_best(self) -> np.ndarray:
        return self.weak.min(axis=0)

    @property
    def speedup(self) -> np.ndarray:
        """T(1)/T(K) of the fastest rescaled strong runs: the program's speedup at one rate of work."""
        best = self.strong_best
        return best[0] / best

    @property
    def speedup_raw(self) -> np.ndarray:
        """T(1)/T(K) of the fastest strong runs by the wall clock, the machine's drift included."""
        best = self.strong_raw_best
        return best[0] / best

    @property
    def weak_efficiency(self) -> np.ndarray:
        """T(1)/T(K) of the fastest rescaled weak runs (Section 3.3's weak-scaling efficiency)."""
        best = self.weak_best
        return best[0] / best

    @property
    def spread(self) -> np.ndarray:
        """(slowest - fastest) / fastest rescaled strong run per K: how far the repeats strayed."""
        rescaled = self.strong_rescaled
        return (rescaled.max(axis=0) - self.strong_best) / self.strong_best

    @property
    def drift(self) -> tuple[float, float]:
        """(lowest, highest) unit time of any run over the calibration's: how far the machine's speed wandered."""
        if self.busiest_strong is not None and self.busiest_weak is not None:
            paces = [b[..., 0] / (b[..., 1] * self.per_unit) for b in (self.busiest_strong, self.busiest_weak)]
        else:
            paces = [self.lead_unit_strong / self.per_unit, self.lead_unit_weak / self.per_unit]
        ratios = np.concatenate([np.ravel(p) for p in paces])
        ratios = ratios[np.isfinite(ratios) & (ratios > 0)]
        return (float(ratios.min()), float(ratios.max())) if ratios.size else (1.0, 1.0)

    @property
    def oversubscribed(self) -> np.ndarray:
        """True where K > K_cpu."""
        return self.ks > self.k_cpu

    @property
    def fit(self) -> ScalingFit:
        """Amdahl, USL and Karp-Flatt from the fastest-run speedups with K <= k_fit."""
        return scaling_fits(self.ks, self.speedup, self.k_fit)

    @property
    def parts(self) -> StepParts | None:
        """Serial part, parallel part and the cost added per K, from the rescaled strong and weak steps
        together (:func:`step_parts`; the rescaling already holds the rate of work fixed), over
        K <= k_fit; None without such a K >= 2."""
        use = self.ks <= self.k_fit
        if use.sum() < 2:
            return None
        return step_parts(self.ks[use], self.strong_best[use] / self.strong_steps,
                          self.weak_best[use] / self.weak_steps, self.share[use])

    @property
    def unit_ratio(self) -> np.ndarray:
        """Median over the weak runs of seconds per unit over the calibration's: above 1 when busy cores are slower."""
        return np.nanmedian(self.unit_weak, axis=0) / self.per_unit

    def _mark(self, k) -> str:
        return "over" if k > self.k_cpu else "smt" if k > self.k_fit else ""

    def summary(self) -> str:
        lines = []
        if self.cpus is not None:
            lines.append(f"this machine: {self.cpus.describe()}")
        lines.append(f"K_cpu = {self.k_cpu}; the fits use K <= {self.k_fit}, the K with a core of their own")
        serial, parallel = self.known_step
        lines.append(f"program: each step, rank 0 computes {self.serial_units:,} units alone ({serial * 1e3:.2f} ms), "
                     f"then the ranks compute {self.parallel_units:,} units ({parallel * 1e3:.2f} ms on one core; "
                     f"split over K ranks in strong scaling, on every rank in weak scaling), then all-reduce "
                     f"{format_bytes(self.allreduce_bytes)}")
        lines.append(f"unit: one {self.size}x{self.size} float64 matrix product, {self.per_unit * 1e6:.1f} us on one "
                     f"core alone; known serial fraction f = {self.serial_units}/"
                     f"{self.serial_units + self.parallel_units} = {self.known_f:.4f}")
        lines.append(f"runs: strong {self.strong_steps:,} steps, weak {self.weak_steps:,} steps, {self.repeats} of each "
                     f"per K, the fastest kept; the shortest run lasted {min(self.strong.min(), self.weak.min()):.2f} s")
        low, high = self.drift
        lines.append(f"speed: a unit took {low:.2f} to {high:.2f} times its calibrated time from run to run; every run is "
                     f"rescaled to the calibration's speed (S raw: the wall clock, not rescaled)")
        per_rank = 24 * self.size**2 + 2 * self.allreduce_bytes
        lines.append(f"memory per rank: {format_bytes(per_rank)} of arrays (plus Python, numpy and MPI, about 60 MB); "
                     f"{format_bytes(per_rank * int(self.ks.max()))} of arrays at K = {int(self.ks.max())}")
        for k, cpus in zip(self.ks, self.bound):
            if k > 1 and all(len(c) == 1 for c in cpus):
                lines.append(f"K = {k}: each rank bound to one CPU ({', '.join(str(c[0]) for c in cpus[:16])}"
                             f"{' ...' if len(cpus) > 16 else ''})")
            elif k > 1:
                lines.append(f"K = {k}: ranks not bound to single CPUs")
        lines += self._state_lines()
        lines.append("launch, one job per K (mpiexec started to every rank past MPI_Init): "
                     + ", ".join(f"K={k}: {launch.startup_seconds:.2f} s" for k, launch in zip(self.ks, self.launches)))
        launch_notes = [n for launch in self.launches for n in launch.notes]
        lines += [f"note: {n}" for n in dict.fromkeys(launch_notes + self.notes)]
        lines += [f"cannot read: {n}" for n in self.unreadable]
        return "\n".join(lines)

    def _state_lines(self) -> list[str]:
        lines = []
        clocks = [[c for c in ranks if c] for ranks in self.clock_khz]
        if any(clocks) and self.max_khz:
            text = ", ".join(f"K={k}: {min(c) / 1e6:.2f}-{max(c) / 1e6:.2f}" for k, c in zip(self.ks, clocks) if c)
            lines.append(f"clock after the last weak run, GHz (highest {self.max_khz / 1e6:.2f}): {text}")
        throttled = [(k, c) for k, c in zip(self.ks, self.changes) if c is not None and c.throttled_periods is not None]
        if throttled and not any(c.periods for _, c in throttled):
            lines.append("quota throttling: none (the cgroup counted no quota periods: no CPU quota is set)")
        elif throttled:
            text = ", ".join(f"K={k}: {c.throttled_periods} of {c.periods} periods, {c.throttled_seconds:.2f} s"
                             for k, c in throttled)
            lines.append(f"quota throttling during each job: {text}")
        slow = [(k, r) for k, r in zip(self.ks, self.unit_ratio) if r > SLOW_UNIT]
        if slow:
            lines.append("warning: the ranks computed " + ", ".join(f"{r:.1f} times slower at K={k}" for k, r in slow)
                         + " than one core alone: they did not have whole cores to themselves (other programs, steal "
                         "time, SMT siblings), so the fits describe that sharing more than the program")
        steal = [(k, c) for k, c in zip(self.ks, self.changes) if c is not None and c.steal_seconds is not None]
        if steal:
            lines.append("steal time during each job (CPU-s the hypervisor gave to others): "
                         + ", ".join(f"K={k}: {c.steal_seconds:.2f}" for k, c in steal))
        return lines

    def table(self) -> str:
        s, fit = self.speedup, self.fit
        e = dict(zip(fit.ks[fit.ks >= 2].tolist(), fit.karp_flatt.tolist()))
        parts = self.parts
        comm = dict(zip(parts.ks.tolist(), parts.comm.tolist())) if parts is not None else {}
        head = (f"{'K':>4} {'':>4} {'T strong':>9} {'S':>6} {'E':>5} {'e':>6} {'range':>6} {'S raw':>6} {'T weak':>8} "
                f"{'E weak':>6} {'AR alone':>9} {'added':>9} {'unit':>5}")
        rows = [head]
        for j, k in enumerate(self.ks):
            kf = e.get(int(k))
            added = comm.get(int(k))
            rows.append(f"{k:>4} {self._mark(k):>4} {self.strong_best[j]:>8.3f}s {s[j]:>6.3f} {s[j] / k:>5.3f} "
                        f"{'' if kf is None else f'{kf:.4f}':>6} {self.spread[j]:>6.1%} {self.speedup_raw[j]:>6.3f} "
                        f"{self.weak_best[j]:>7.3f}s "
                        f"{self.weak_efficiency[j]:>6.3f} {_us(self.allreduce_alone[j]) if k > 1 else '':>9} "
                        f"{'' if added is None or k == 1 else _us(added):>9} {self.unit_ratio[j]:>5.2f}")
        return "\n".join(rows)

    def fit_text(self) -> str:
        f = self.fit
        lines = [f"known: f = {self.known_f:.4f}, all-reduce per step = the 'AR alone' column"]
        parts = self.parts
        if parts is not None:
            lines.append(f"strong and weak together: serial {parts.serial * 1e3:.3f} ms (known "
                         f"{self.known_step[0] * 1e3:.3f}), parallel {parts.parallel * 1e3:.3f} ms (known "
                         f"{self.known_step[1] * 1e3:.3f}), f = {parts.serial_fraction:.4f}; the cost K ranks add "
                         f"to a step is the 'added' column")
        if f.f is not None:
            text = f"Amdahl fit to the strong speedups alone (K <= {self.k_fit}): f = {f.f:.4f}"
            if f.sigma is not None:
                text += f"; USL sigma = {f.sigma:.4f}, kappa = {f.kappa:.5f}"
            lines.append(text)
        if f.note:
            lines.append(f"({f.note})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.summary()}\n\n{self.table()}\n\n{self.fit_text()}"
