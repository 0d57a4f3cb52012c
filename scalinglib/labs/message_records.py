"""The records of Section 3.8's message labs: the ping-pong beside its reference benchmarks (3.8.6) and Open MPI's
all-reduce algorithms against their model (3.8.7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import NamedTuple

import numpy as np

from ..comm import ALGORITHMS, bus_bandwidth, collective_cost_terms, collective_time, crossover_size
from ..probe import AlphaBeta
from ._shared import HELD_UP_RATIO, RESOLVED_SHARE, STALL_RATIO, _launch_lines, _us, format_bytes
from .analysis import (
    CrossoverReading,
    ProtocolFits,
    RobustAlphaBeta,
    fit_alpha_beta_robust,
    fit_protocols,
    measured_crossover,
    resolve_crossover,
)
from .launch import LaunchInfo
from .ompi import CollectiveCosts, open_mpi_allreduce_choice, open_mpi_allreduce_time
from .reference import ReferencePingPong


@dataclass
class PingPongLab:
    """One-way message times between two MPI ranks, by ping-pong (Section 3.8)."""

    transport: str
    nbytes: np.ndarray
    seconds: np.ndarray  #: one-way seconds (half a batch's median round trip), one row per batch, one column per size
    rounds: np.ndarray  #: round trips per timed batch, per size
    barrier: float
    hosts: list[str]
    rank_startup: np.ndarray
    launch: LaunchInfo
    notes: list[str] = field(default_factory=list)
    python_call: float | None = None  #: seconds per message of the lab's loops run against MPI.PROC_NULL (Python's share)
    eager_limit: float | None = None  #: bytes, header included, from ompi_info (None: unknown)
    reference: ReferencePingPong | None = None  #: the established benchmark in C, run beside the lab
    same_layer: ReferencePingPong | None = None  #: mpi4py's own benchmark, which calls MPI from Python as the lab does

    @property
    def best(self) -> np.ndarray:
        """The fastest batch per size: other programs only ever slow a batch down."""
        return self.seconds.min(axis=0)

    @property
    def protocol_fits(self) -> ProtocolFits | None:
        """alpha and beta below and above the eager limit (None when the limit is unknown)."""
        if self.eager_limit is None:
            return None
        return fit_protocols(self.nbytes, self.best, self.eager_limit)

    def _at_sizes(self, benchmark: ReferencePingPong | None) -> np.ndarray | None:
        if benchmark is None:
            return None
        ref = dict(zip(benchmark.nbytes.tolist(), benchmark.best.tolist()))
        return np.array([ref.get(float(n), np.nan) for n in self.nbytes])

    @property
    def reference_best(self) -> np.ndarray | None:
        """The C reference's fastest run at each of the lab's sizes (NaN where it has none)."""
        return self._at_sizes(self.reference)

    @property
    def same_layer_best(self) -> np.ndarray | None:
        """mpi4py's benchmark's fastest run at each of the lab's sizes (NaN where it has none)."""
        return self._at_sizes(self.same_layer)

    @property
    def reference_fits(self) -> ProtocolFits | None:
        """The same per-protocol fit, to the reference benchmark's times."""
        ref = self.reference_best
        if ref is None or self.eager_limit is None or not np.all(np.isfinite(ref)):
            return None
        return fit_protocols(self.nbytes, ref, self.eager_limit)

    def protocol(self, nbytes) -> np.ndarray:
        """``"eager"`` below the eager limit, ``"rendezvous"`` at or above it (``""`` when unknown)."""
        n = np.asarray(nbytes, dtype=float)
        if self.eager_limit is None:
            return np.full(n.shape, "", dtype=object)
        return np.where(n < self.eager_limit, "eager", "rendezvous").astype(object)

    def protocol_text(self) -> str:
        """The per-protocol fits of the lab and of the reference, and the Python layer's cost, as lines."""
        lines = []
        if self.eager_limit is not None:
            lines.append(f"eager limit (ompi_info, header included): {self.eager_limit:.0f} B: smaller messages go "
                         "at once, larger ones wait for the receiver (rendezvous)")
        sources = [("lab (Python)", self.protocol_fits)]
        if self.reference is not None:
            sources.append((self.reference.name.split(" (")[0], self.reference_fits))
        for who, fits in sources:
            if fits is None:
                continue
            for side in ("eager", "rendezvous"):
                fit = getattr(fits, side)
                if fit is not None:
                    lines.append(f"{who}, {side}: alpha = {fit.alpha * 1e6:.2f} us, beta = {fit.beta * 1e9:.4f} ns/B "
                                 f"(1/beta = {fit.bandwidth / 1e9:.2f} GB/s)")
        if self.python_call is not None:
            lines.append(f"the Python layer: the lab's loops with sends and receives that move nothing (MPI.PROC_NULL) "
                         f"cost {self.python_call * 1e6:.2f} us per message")
        if self.same_layer is not None:
            lines.append(f"same layer: {self.same_layer.name}, fastest of {self.same_layer.seconds.shape[0]} runs")
        if self.reference is not None:
            lines.append(f"in C: {self.reference.name}, fastest of {self.reference.seconds.shape[0]} runs")
        ref = self.reference_best
        if ref is not None and np.isfinite(ref[0]):
            lines.append(f"at {format_bytes(self.nbytes[0])}: lab {_us(self.best[0])}, reference {_us(ref[0])}, "
                         f"difference {(self.best[0] - ref[0]) * 1e6:.2f} us")
        return "\n".join(lines)

    @property
    def median(self) -> np.ndarray:
        return np.median(self.seconds, axis=0)

    @property
    def robust_fit(self) -> RobustAlphaBeta:
        """The fit, and which sizes it kept (see :func:`fit_alpha_beta_robust`)."""
        return fit_alpha_beta_robust(self.nbytes, self.best)

    @property
    def fit(self) -> AlphaBeta:
        """alpha and beta fitted to the best times (relative residuals, see ``fit_alpha_beta``), leaving
        out sizes more than twice above the line: one straight line cannot describe them (a change of
        protocol, or a size whose every batch was held up on a busy machine)."""
        robust = self.robust_fit
        return AlphaBeta(robust.alpha, robust.beta)

    def summary(self) -> str:
        where = "two hosts" if len(set(self.hosts)) > 1 else "one host"
        lines = [f"ping-pong over {self.transport}, ranks on {where} ({', '.join(sorted(set(self.hosts)))}), "
                 f"best of {self.seconds.shape[0]} batches per size"]
        lines += _launch_lines(self.launch, self.rank_startup)
        lines += [f"note: {n}" for n in self.notes]
        held = self.median > STALL_RATIO * self.best
        if held.any():
            where = ", ".join(format_bytes(n) for n in self.nbytes[held])
            lines.append(f"note: the median batch took more than {STALL_RATIO:g} times the best at {where}: batches that "
                         "waited for a CPU (a scheduler time slice of milliseconds), which says nothing about the "
                         "transport; read the best column")
        if self.eager_limit is not None:                  # the per-protocol fits follow (protocol_text)
            return "\n".join(lines)
        try:
            fit = self.robust_fit
        except ValueError as err:
            lines.append(f"no fit: {err}")
            return "\n".join(lines)
        lines.append(f"fit: alpha = {fit.alpha * 1e6:.2f} us, beta = {fit.beta * 1e9:.4f} ns/B "
                     f"(1/beta = {fit.bandwidth / 1e9:.2f} GB/s), n_1/2 = alpha/beta = {fit.half_size / 1e3:.1f} kB")
        if not fit.kept.all():
            left = ", ".join(format_bytes(n) for n in self.nbytes[~fit.kept])
            lines.append(f"left out of the fit (more than twice the line: a change of protocol, or every batch "
                         f"held up by a busy machine): {left}")
        return "\n".join(lines)

    def table(self) -> str:
        """Per size: protocol, best and median, the per-protocol line (or the single line when the eager
        limit is unknown), best/model, and the reference's time and lab/reference when it ran."""
        fits = self.protocol_fits
        kept = np.ones(self.nbytes.shape, dtype=bool)
        if fits is not None:
            model = fits.model(self.nbytes)
        else:
            try:
                fit = self.robust_fit
                model, kept = fit.alpha + self.nbytes * fit.beta, fit.kept
            except ValueError:
                model = np.full(self.nbytes.shape, np.nan)
        ref, same = self.reference_best, self.same_layer_best
        proto = self.protocol(self.nbytes)
        head = f"{'n':>9} {'protocol':>10} {'best':>10} {'median':>10} {'model':>10} {'best/model':>10}"
        head += f" {'n/T (GB/s)':>10}"
        head += f" {'mpi4py':>10} {'lab/mpi4py':>10}" if same is not None else ""
        head += f" {'C':>10} {'lab/C':>6}" if ref is not None else ""
        rows = [head]
        for i, (n, b, m, p, k) in enumerate(zip(self.nbytes, self.best, self.median, model, kept)):
            row = (f"{format_bytes(n):>9} {proto[i]:>10} {_us(b):>10} {_us(m):>10} {_us(p) if np.isfinite(p) else '':>10} "
                   f"{f'{b / p:.2f}' if np.isfinite(p) else '':>10} {n / b / 1e9:>10.3f}")
            if same is not None:
                row += f" {_us(same[i]):>10} {b / same[i]:>10.2f}" if np.isfinite(same[i]) else f" {'':>10} {'':>10}"
            if ref is not None:
                row += f" {_us(ref[i]):>10} {b / ref[i]:>6.2f}" if np.isfinite(ref[i]) else f" {'':>10} {'':>6}"
            rows.append(row + ("" if k else " (left out)"))
        return "\n".join(rows)

    def __str__(self) -> str:
        extra = self.protocol_text()
        return f"{self.summary()}\n" + (f"{extra}\n" if extra else "") + f"\n{self.table()}"


class Crossover(NamedTuple):
    """Where two all-reduce algorithms trade places, measured and as 3.8's model predicts."""

    k: int  #: ranks
    first: str  #: the algorithm faster at the smallest size measured
    second: str  #: the other
    measured: float | None  #: bytes where the measured times cross (None: they do not, in the range measured)
    predicted: float | None  #: bytes where the model's times cross (None: never, or no model)
    status: str = ""  #: how the measurement reads against the run-to-run spread (see resolve_crossover)
    brackets: tuple = ()  #: every measured change of the clear winner: (low, high, winner above) in bytes
    crossings: tuple = ()  #: every size where the model's two times cross, bytes


def model_crossings(nbytes, first, second) -> list[float]:
    """Sizes where ``first(n) - second(n)`` changes sign on a fine grid over ``nbytes``' range (log-interpolated)."""
    grid = np.unique(np.round(np.geomspace(np.min(nbytes), np.max(nbytes), 400) / 4) * 4)
    grid = grid[grid > 0]
    d = np.asarray(first(grid)) - np.asarray(second(grid))
    out = []
    for i in range(grid.size - 1):
        if d[i] < 0 <= d[i + 1] or d[i] > 0 >= d[i + 1]:
            x0, x1 = np.log(grid[i]), np.log(grid[i + 1])
            out.append(float(np.exp(x0 + (x1 - x0) * d[i] / (d[i] - d[i + 1]))))
    return out


@dataclass
class AllreduceLab:
    """All-reduce times by algorithm, rank count and size, with Open MPI's tuned algorithms (Section 3.8).

    ``seconds[a, j]`` is a (repeats, sizes) table for ``algorithms[a]`` on ``ks[j]`` ranks: the
    median time of one all-reduce in each batch of back-to-back all-reduces.
    """

    algorithms: list[str]
    algorithm_ids: dict[str, int]
    ids_source: str
    ks: np.ndarray
    nbytes: np.ndarray
    seconds: np.ndarray  #: shape (algorithms, ks, repeats, sizes)
    gamma: float  #: seconds per byte of MPI's own float32 sum (MPI_Reduce_local), measured on rank 0
    barrier: np.ndarray  #: one barrier, per K (from the first algorithm's job)
    transport: str
    launches: list[LaunchInfo]
    notes: list[str] = field(default_factory=list)
    copy: float | None = None  #: seconds per byte of a local memcpy, measured on rank 0

    CHOICE = "ignore"  #: the job in which Open MPI chose by its fixed rules (no algorithm forced)

    def costs(self, pingpong: PingPongLab, k: int | None = None, small: int = 6) -> CollectiveCosts:
        """The constants the all-reduce pays, from this lab's own smallest sizes and the ping-pong's slopes.

        ``alpha`` is the time of one more message inside the collective: over the ``small`` smallest
        sizes, the ring's time minus recursive doubling's in the same round, the median of these
        differences, over the difference in their message counts (``2(K - 1)`` against ``lg K``).
        Where fewer than ``RESOLVED_SHARE`` of these differences are positive, the rounds cannot resolve
        one message, and ``alpha`` is
        the C ping-pong's eager latency instead (a message sent from C, as inside the collective),
        or zero without one; ``alpha_from`` says which. ``call`` is what remains of recursive
        doubling's fastest time there: the Python call and Open MPI's dispatch. The
        rendezvous's extra latency and the two slopes come from the ping-pong's per-protocol fits
        (the Python layer cancels in the difference of the two latencies); ``gamma`` and ``copy`` from
        rank 0's own timing.
        """
        k = int(self.ks[0]) if k is None else int(k)
        if not {"ring", "recursive_doubling"} <= set(self.algorithms):
            raise ValueError("the lab must have measured ring and recursive_doubling to read the collective's alpha")
        if self.copy is None:
            raise ValueError("this lab has no measured copy time")
        fits = pingpong.protocol_fits
        if fits is None or fits.eager is None or fits.rendezvous is None:
            raise ValueError("the ping-pong needs a fit on each side of its eager limit")
        steps = k.bit_length() - 1
        extra = 2 * (k - 1) - steps
        # the fastest of the small sizes: their byte terms are negligible, and a size whose batches all
        # waited for a CPU only ever reads slower
        a_ring, j = self._index("ring", k)
        a_rd, _ = self._index("recursive_doubling", k)
        paired = self.seconds[a_ring, j, :, :small] - self.seconds[a_rd, j, :, :small]   # round by round
        alpha, source = float(np.median(paired) / extra), "the all-reduce's smallest sizes"
        if alpha <= 0 or np.mean(paired > 0) < RESOLVED_SHARE:
            ref = pingpong.reference_fits
            alpha, source = ((ref.eager.alpha, "the C ping-pong's eager fit (the rounds did not resolve one message)")
                             if ref is not None and ref.eager is not None
                             else (0.0, "nowhere: the rounds did not resolve one message, and no C ping-pong ran"))
        rd = self.best("recursive_doubling", k)[:small].min()
        call = float(rd - steps * alpha)
        return CollectiveCosts(call=max(call, 0.0), alpha=max(alpha, 0.0), eager_limit=fits.eager_limit,
                               rendezvous=max(fits.rendezvous.alpha - fits.eager.alpha, 0.0),
                               beta_eager=fits.eager.beta, beta_rendezvous=fits.rendezvous.beta,
                               gamma=self.gamma, copy=self.copy, alpha_from=source)

    def open_mpi_model(self, algorithm: str, k: int, costs: CollectiveCosts) -> np.ndarray:
        """The Open MPI schedule of ``algorithm`` priced by ``costs`` at every measured size (NaN if not modelled)."""
        name = open_mpi_allreduce_choice if algorithm == self.CHOICE else None
        try:
            if name is not None:
                return np.array([open_mpi_allreduce_time(name(k, n), k, n, costs) for n in self.nbytes])
            return np.asarray(open_mpi_allreduce_time(algorithm, k, self.nbytes, costs))
        except ValueError:
            return np.full(self.nbytes.shape, np.nan)

    def choices(self, k: int) -> list[str]:
        """Open MPI 5.0's fixed choice at every measured size on K ranks."""
        return [open_mpi_allreduce_choice(k, n) for n in self.nbytes]

    def held_up(self, algorithm: str, k: int, costs: CollectiveCosts) -> np.ndarray:
        """True at the sizes whose best batch took more than :data:`HELD_UP_RATIO` times the Open MPI model:
        every batch waited (for a CPU, on a busy machine), so the size says nothing about the algorithm."""
        model = self.open_mpi_model(algorithm, k, costs)
        with np.errstate(invalid="ignore"):
            return np.isfinite(model) & (self.best(algorithm, k) > HELD_UP_RATIO * model)

    def reading(self, first: str, second: str, k: int, costs: CollectiveCosts | None = None) -> CrossoverReading:
        """:func:`resolve_crossover` of two measured algorithms on K ranks, over every batch; with ``costs``,
        the sizes where either was held up (:meth:`held_up`) are left out."""
        a, j = self._index(first, k)
        b, _ = self._index(second, k)
        skip = None if costs is None else self.held_up(first, k, costs) | self.held_up(second, k, costs)
        return resolve_crossover(self.nbytes, self.seconds[a, j], self.seconds[b, j], skip)

    def open_mpi_crossovers(self, costs: CollectiveCosts, k: int | None = None) -> list[Crossover]:
        """Recursive doubling against the ring and against Rabenseifner's algorithm on K ranks: the measured
        crossover (only where the spread resolves it) and the crossings of the Open MPI model."""
        k = int(self.ks[0]) if k is None else int(k)
        out = []
        for second in ("ring", "rabenseifner"):
            if second not in self.algorithms or "recursive_doubling" not in self.algorithms:
                continue
            r = self.reading("recursive_doubling", second, k, costs)
            crossings = model_crossings(
                self.nbytes, lambda n: open_mpi_allreduce_time("recursive_doubling", k, n, costs),
                lambda n, s=second: open_mpi_allreduce_time(s, k, n, costs))
            out.append(Crossover(k, "recursive_doubling", second, r.size, crossings[0] if crossings else None,
                                 r.status, r.brackets, tuple(crossings)))
        return out

    def comparison(self, costs: CollectiveCosts, k: int | None = None) -> str:
        """Per size on K ranks: each forced algorithm's best time with the Open MPI model's in brackets, then
        Open MPI's fixed choice and, when measured, the time of the job that let Open MPI choose."""
        k = int(self.ks[0]) if k is None else int(k)
        forced = [a for a in self.algorithms if a != self.CHOICE]
        head = f"{'n':>9}" + "".join(f" {a[:18]:>20}" for a in forced) + f" {'Open MPI picks':>19}"
        if self.CHOICE in self.algorithms:
            head += f" {'its time':>10}"
        rows = [f"all-reduce on K = {k} ranks over {self.transport}: best time (Open MPI model)", head]
        models = {a: self.open_mpi_model(a, k, costs) for a in forced}
        held = {a: self.held_up(a, k, costs) for a in forced}
        picks = self.choices(k)
        for i, n in enumerate(self.nbytes):
            cells = []
            for a in forced:
                cell = _us(self.best(a, k)[i])
                if np.isfinite(models[a][i]):
                    cell += f" ({_us(models[a][i]).replace(' us', '')})"
                cell += "*" if held[a][i] else " "
                cells.append(f" {cell:>20}")
            row = f"{format_bytes(n):>9}" + "".join(cells) + f" {picks[i]:>19}"
            if self.CHOICE in self.algorithms:
                row += f" {_us(self.best(self.CHOICE, k)[i]):>10}"
            rows.append(row)
        if any(h.any() for h in held.values()):
            rows.append(f"* more than {HELD_UP_RATIO:g} times the model: every batch waited (for a CPU); left out of "
                        "the crossovers")
        return "\n".join(rows)

    def _index(self, algorithm: str, k: int) -> tuple[int, int]:
        if algorithm not in self.algorithms:
            raise ValueError(f"algorithm must be one of {self.algorithms}; got {algorithm!r}")
        where = np.flatnonzero(self.ks == k)
        if where.size == 0:
            raise ValueError(f"k must be one of {self.ks.tolist()}; got {k!r}")
        return self.algorithms.index(algorithm), int(where[0])

    def best(self, algorithm: str, k: int) -> np.ndarray:
        """The fastest batch per size."""
        a, j = self._index(algorithm, k)
        return self.seconds[a, j].min(axis=0)

    def median(self, algorithm: str, k: int) -> np.ndarray:
        a, j = self._index(algorithm, k)
        return np.median(self.seconds[a, j], axis=0)

    def busbw(self, algorithm: str, k: int) -> np.ndarray:
        """Bus bandwidth as the NCCL tests count it: ``n / t * 2 (K - 1) / K`` for an all-reduce, bytes/s."""
        return np.asarray(bus_bandwidth("allreduce", self.nbytes, self.best(algorithm, k), k))

    def modelled(self, algorithm: str, k: int) -> bool:
        """Whether 3.8's model prices this algorithm on K ranks (recursive doubling and Rabenseifner
        are modelled for powers of two only)."""
        if algorithm not in ALGORITHMS["allreduce"]:
            return False
        return k & (k - 1) == 0 or algorithm in ("ring", "binomial_tree")

    def model(self, algorithm: str, k: int, alpha: float, beta: float, gamma: float | None = None) -> np.ndarray:
        """3.8's cost of ``algorithm`` at every measured size, or NaN where the model does not apply."""
        self._index(algorithm, k)
        if not self.modelled(algorithm, k):
            return np.full(self.nbytes.shape, np.nan)
        g = self.gamma if gamma is None else gamma
        return np.asarray(collective_time("allreduce", self.nbytes, k, alpha, beta, g, algorithm=algorithm))

    def _small_first(self, a: str, b: str, k: int) -> tuple[str, str]:
        """The pair ordered so that the first is the one expected to win small messages: the one
        that sends fewer messages in the model, or else the one faster at most of the smaller half
        of the sizes (a single disturbed size cannot decide)."""
        if self.modelled(a, k) and self.modelled(b, k):
            ka, kb = (float(collective_cost_terms("allreduce", k, algorithm=x)[0]) for x in (a, b))
            if ka != kb:
                return (a, b) if ka < kb else (b, a)
        half = max(1, self.nbytes.size // 2)
        wins = np.sum(self.best(a, k)[:half] <= self.best(b, k)[:half])
        return (a, b) if 2 * wins >= half else (b, a)

    def same_schedule(self, a: str, b: str, k: int) -> bool:
        """Whether 3.8's model gives two algorithms the very same cost on K ranks (the ring and
        Rabenseifner's algorithm on two ranks both send two messages of n/2 each way)."""
        if not (self.modelled(a, k) and self.modelled(b, k)):
            return False
        terms = [np.asarray(collective_cost_terms("allreduce", k, algorithm=x), dtype=float) for x in (a, b)]
        return bool(np.allclose(terms[0], terms[1], rtol=1e-12, atol=0.0))

    def crossovers(self, alpha: float, beta: float, gamma: float | None = None) -> list[Crossover]:
        """Every pair of algorithms on every K: the measured and the predicted crossover size.

        Pairs that the model prices identically on that K (:meth:`same_schedule`) are left out: they
        never cross in the model, and where their measured times cross only shows noise."""
        g = self.gamma if gamma is None else gamma
        out = []
        for k in self.ks.tolist():
            for a, b in combinations(self.algorithms, 2):
                if self.same_schedule(a, b, k):
                    continue
                first, second = self._small_first(a, b, k)
                measured = measured_crossover(self.nbytes, self.best(first, k), self.best(second, k))
                predicted = None
                if self.modelled(a, k) and self.modelled(b, k):
                    predicted = crossover_size("allreduce", first, second, k, alpha, beta, g)
                out.append(Crossover(int(k), first, second, measured, predicted))
        return out

    def stalled(self, algorithm: str, k: int, alpha: float, beta: float, gamma: float | None = None) -> np.ndarray:
        """True at the sizes whose best time is more than :data:`STALL_RATIO` times the model's: every
        batch of that size was held up (on a busy machine, a rank waited for a CPU), so the point says
        nothing about the algorithm. False where the model does not apply."""
        model = self.model(algorithm, k, alpha, beta, gamma)
        with np.errstate(invalid="ignore"):
            return np.isfinite(model) & (self.best(algorithm, k) > STALL_RATIO * model)

    def table(self, k: int | None = None, alpha: float | None = None, beta: float | None = None) -> str:
        """Times per size and algorithm on K ranks (the smallest K by default), with the model's
        times when ``alpha`` and ``beta`` are given; a time more than :data:`STALL_RATIO` times its
        model is marked ``*`` (see :meth:`stalled`)."""
        k = int(self.ks[0]) if k is None else int(k)
        head = f"{'n':>9}" + "".join(f" {a[:19]:>19}" for a in self.algorithms)
        rows = [f"all-reduce on K = {k} ranks over {self.transport}: best time (model)" if alpha is not None
                else f"all-reduce on K = {k} ranks over {self.transport}: best time", head]
        models = {a: self.model(a, k, alpha, beta) for a in self.algorithms} if alpha is not None else {}
        stalls = {a: self.stalled(a, k, alpha, beta) for a in self.algorithms} if alpha is not None else {}
        for i, n in enumerate(self.nbytes):
            cells = []
            for a in self.algorithms:
                cell = _us(self.best(a, k)[i])
                if a in models and np.isfinite(models[a][i]):
                    cell += f" ({_us(models[a][i]).replace(' us', '')})"
                cell += "*" if a in stalls and stalls[a][i] else " "
                cells.append(f" {cell:>19}")
            rows.append(f"{format_bytes(n):>9}" + "".join(cells))
        if any(s.any() for s in stalls.values()):
            rows.append(f"* more than {STALL_RATIO:g} times the model: every batch of this size was held up, most likely "
                        "waiting for a CPU for a scheduler time slice (milliseconds); noise, not the algorithm")
        return "\n".join(rows)

    def summary(self) -> str:
        ids = ", ".join(f"{a} = {self.algorithm_ids.get(a, '?')}" for a in self.algorithms)
        rounds = self.seconds.shape[2]
        lines = [f"Open MPI's tuned all-reduce, chosen by number through coll_tuned_allreduce_algorithm ({ids}; "
                 f"numbers read from {self.ids_source})",
                 f"float32 sum, K = {', '.join(map(str, self.ks.tolist()))}, best of {rounds} rounds per size; each "
                 f"round runs one job per algorithm, in turn"]
        if rounds > 1:
            lines.append(f"one algorithm's rounds differ by {self.round_spread:.0%} (slowest over fastest, the median over "
                         f"algorithms, sizes and K): a difference between algorithms smaller than that is not resolved")
        lines += [
                 f"gamma (MPI's own float32 sum on one rank): {self.gamma * 1e12:.1f} ps/B "
                 f"({1 / self.gamma / 1e9:.2f} GB/s)"]
        if self.copy is not None:
            lines.append(f"copy (a local memcpy on one rank): {self.copy * 1e12:.1f} ps/B ({1 / self.copy / 1e9:.2f} GB/s)")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    @property
    def round_spread(self) -> float:
        """Slowest round over fastest, less one, the median over algorithms, K and sizes."""
        s = self.seconds
        return float(np.median(s.max(axis=2) / s.min(axis=2)) - 1)

    def __str__(self) -> str:
        return f"{self.summary()}\n\n{self.table()}"
