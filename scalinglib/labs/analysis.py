r"""The statistics and fits behind the labs: pure functions of timings, tested on synthetic data.

* :func:`spread` reads the median and the range of repeated timings.
* :func:`speedup_runs` pairs each repeat's T(K) with the same repeat's T(1): the repeats are
  interleaved, so a repeat's timings saw the same machine.
* :func:`plateau_speedup` is the best any program can do on K_cpu usable CPUs, ``min(K, K_cpu)``:
  past K_cpu the operating system time-slices the ranks, and the speedup stays flat.
* :func:`scaling_fits` fits Amdahl's law, the USL (sigma, kappa) and reads the Karp-Flatt e, using
  only K <= K_cpu: the plateau past it is the scheduler's, not the program's.
* :func:`step_parts` splits the measured step times of a strong and a weak run of one program into
  its serial part, its parallel part and the communication added at each K.
* :func:`expected_scaling` is what the scaling lab's program should show on K cores, from its
  known parts, a modelled all-reduce and the clock of busy cores.
* :func:`measured_crossover` finds the message size at which one algorithm's measured time
  overtakes another's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_nonnegative, check_positive, check_whole, single, single_whole
from ..laws import fit_amdahl, karp_flatt
from ..usl import fit_usl_throughput

__all__ = ["Spread", "spread", "speedup_runs", "plateau_speedup", "ScalingFit", "scaling_fits", "StepParts",
           "step_parts", "ExpectedScaling", "expected_scaling",
           "measured_crossover", "RobustAlphaBeta", "fit_alpha_beta_robust", "ProtocolFits", "fit_protocols",
           "CrossoverReading", "resolve_crossover"]

#: The weight of one size in :func:`measured_crossover` is capped at this |log ratio| (a 65% difference).
_CLEAR = float(np.log(1.65))


class Spread(NamedTuple):
    """Median, lowest and highest of repeated measurements, per column."""

    median: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @property
    def relative_range(self) -> np.ndarray:
        """``(high - low) / median``: how far apart the repeats landed, as a fraction of the median."""
        return (self.high - self.low) / self.median


def _repeats(name, values) -> np.ndarray:
    arr = check_positive(name, values)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a (repeats, points) table of timings; got shape {arr.shape}")
    return arr


def spread(samples) -> Spread:
    """Median, minimum and maximum over repeats (axis 0) of a (repeats, points) table.

    Parameters
    ----------
    samples : array_like
        Positive numbers, one row per repeat (a 1-D list is one point repeated).

    Returns
    -------
    Spread

    Examples
    --------
    >>> s = spread([[1.0, 10.0], [3.0, 12.0], [2.0, 11.0]])
    >>> s.median.tolist(), s.low.tolist(), s.high.tolist()
    ([2.0, 11.0], [1.0, 10.0], [3.0, 12.0])
    """
    arr = _repeats("samples", samples)
    return Spread(np.median(arr, axis=0), arr.min(axis=0), arr.max(axis=0))


def speedup_runs(ks, strong_seconds) -> np.ndarray:
    """Speedup of every repeat, ``S_r(K) = T_r(1) / T_r(K)``, from a (repeats, len(ks)) table of times.

    Parameters
    ----------
    ks : array_like
        Rank counts, whole >= 1, increasing, starting at 1.
    strong_seconds : array_like
        Strong-scaling times, > 0, one row per repeat and one column per K.

    Returns
    -------
    numpy.ndarray
        Same shape as the times; the K = 1 column is 1.

    Examples
    --------
    >>> speedup_runs([1, 2, 4], [[4.0, 2.0, 1.25], [4.4, 2.0, 1.1]]).round(2).tolist()
    [[1.0, 2.0, 3.2], [1.0, 2.2, 4.0]]
    """
    k = check_whole("ks", ks)
    t = _repeats("strong_seconds", strong_seconds)
    if k.ndim != 1 or k.size != t.shape[1]:
        raise ValueError(f"ks must list one K per column of strong_seconds; got {k.size} and {t.shape[1]}")
    if k[0] != 1 or np.any(np.diff(k) <= 0):
        raise ValueError(f"ks must increase and start at 1 (the baseline); got {k.astype(int).tolist()}")
    return t[:, :1] / t


def plateau_speedup(ks, k_cpu):
    """The best speedup K ranks can reach on ``k_cpu`` usable CPUs: ``min(K, k_cpu)``.

    With more ranks than CPUs the operating system shares the CPUs out, so K ranks get the
    throughput of ``k_cpu``. The same holds for the weak-scaling speedup ``K T(1)/T(K)``.

    Examples
    --------
    >>> plateau_speedup([1, 2, 4, 8], 2).tolist()
    [1.0, 2.0, 2.0, 2.0]
    """
    k = check_whole("ks", ks)
    c = single_whole("k_cpu", k_cpu)
    return np.minimum(k, float(c))


class ScalingFit(NamedTuple):
    """The models fitted to the strong-scaling speedups with K <= K_cpu."""

    ks: np.ndarray  #: the rank counts used (K <= K_cpu)
    speedup: np.ndarray  #: the median speedups used
    f: float | None  #: Amdahl's serial fraction, None without a K >= 2
    sigma: float | None  #: USL contention, None without two distinct K >= 2
    kappa: float | None  #: USL coherency
    karp_flatt: np.ndarray  #: e(K) for the used K >= 2
    note: str  #: what could not be fitted and why ("" when everything was)


def scaling_fits(ks, speedups, k_cpu) -> ScalingFit:
    """Amdahl's f, the USL's sigma and kappa, and Karp-Flatt's e from speedups at K <= K_cpu.

    Amdahl's f is the linearised least-squares fit (:func:`scalinglib.fit_amdahl`); the USL is fitted
    to the speedups as throughputs (:func:`scalinglib.fit_usl_throughput`), so that the noise of the
    one-rank time is not carried into every point.

    Points past ``k_cpu`` are left out: there the ranks share CPUs, and the flat speedup that
    results is the plateau of :func:`plateau_speedup`, not a cost of the program that a serial
    fraction or a coherency term could describe.

    Parameters
    ----------
    ks : array_like
        Rank counts, whole >= 1, one per speedup.
    speedups : array_like
        Measured speedups T(1)/T(K), > 0 (the medians over repeats).
    k_cpu : int
        Usable CPUs, whole >= 1.

    Returns
    -------
    ScalingFit

    Examples
    --------
    >>> fit = scaling_fits([1, 2, 4, 8, 16], [1.0, 1.9, 3.5, 6.1, 6.0], k_cpu=8)
    >>> fit.ks.tolist(), round(fit.f, 3), fit.karp_flatt.round(3).tolist()
    ([1, 2, 4, 8], 0.045, [0.053, 0.048, 0.044])
    >>> scaling_fits([1, 2, 4], [1.0, 1.9, 1.9], k_cpu=2).note
    'the USL needs speedups at two rank counts of 2 or more within K_cpu = 2; it has 1'
    """
    k = check_whole("ks", ks)
    s = check_positive("speedups", speedups)
    c = single_whole("k_cpu", k_cpu)
    if k.ndim != 1 or s.shape != k.shape:
        raise ValueError(f"ks and speedups must be flat lists of one length; got {k.shape} and {s.shape}")
    use = k <= c
    k_used, s_used = k[use], s[use]
    several = k_used >= 2
    f = sigma = kappa = None
    notes = []
    if several.any():
        f = fit_amdahl(k_used, s_used)
        e = np.atleast_1d(karp_flatt(s_used[several], k_used[several]))
    else:
        e = np.empty(0)
        notes.append(f"Amdahl's law needs a speedup at K >= 2 within K_cpu = {c}; there is none")
    distinct = np.unique(k_used[several]).size
    if distinct >= 2 and k_used.size >= 3:
        fit = fit_usl_throughput(k_used, s_used)       # the speedups as throughputs: S(1) is fitted, not trusted
        sigma, kappa = fit.sigma, fit.kappa
    else:
        notes.append(f"the USL needs speedups at two rank counts of 2 or more within K_cpu = {c}; it has {distinct}")
    return ScalingFit(k_used.astype(int), s_used, f, sigma, kappa, e, "; ".join(notes))


class StepParts(NamedTuple):
    """A program's step split into its parts, from a strong and a weak run (see :func:`step_parts`)."""

    serial: float  #: seconds of a step that no rank count shortens
    parallel: float  #: seconds of a step's divisible work, on one rank
    comm: np.ndarray  #: seconds each step gained at each K in the weak runs: communication, slower cores
    ks: np.ndarray

    @property
    def serial_fraction(self) -> float:
        """``serial / (serial + parallel)``: Amdahl's f of the one-rank job."""
        return self.serial / (self.serial + self.parallel)


def step_parts(ks, strong_step, weak_step, share=None, slowdown=None) -> StepParts:
    r"""Serial part, parallel part and added cost per K, from step times of strong and weak runs.

    A step of the program costs a serial part :math:`t_s`, a parallel part :math:`t_p` of which the
    busiest rank does a share :math:`q_K` (:math:`1/K` when the work splits evenly) in strong
    scaling and all of it in weak scaling, and a cost :math:`c(K)` added by K ranks
    (communication; :math:`c(1) = 0`). With K ranks busy, every core may compute slower by a
    factor :math:`r_K` (a lower clock when more cores are busy, shared caches; :math:`r_1 = 1`),
    which the lab measures as the time per unit of work during the runs:

    .. math::

        t_\text{strong}(K) = r_K (t_s + q_K t_p) + c(K), \qquad t_\text{weak}(K) = r_K (t_s + t_p) + c(K).

    The difference of the two runs at one K holds the parallel part alone,
    :math:`t_\text{weak}(K) - t_\text{strong}(K) = r_K (1 - q_K)\,t_p`, fitted by least squares
    through the origin over every K >= 2. The serial part is what remains of the one-rank step
    (the mean of its strong and weak times), and :math:`c(K) = t_\text{weak}(K) - r_K t_\text{weak}(1)`.
    Without :math:`r_K` a slower clock at K >= 2 would pass for a larger parallel part, and so
    for a smaller serial one.

    Parameters
    ----------
    ks : array_like
        Rank counts, whole >= 1, increasing, starting at 1, at least one of them >= 2.
    strong_step, weak_step : array_like
        Seconds per step, > 0, one per K.
    share : array_like, optional
        :math:`q_K`, the busiest rank's share of the parallel work, in (0, 1]; ``1/K`` by default.
    slowdown : array_like, optional
        :math:`r_K`, time per unit of work at K over that at K = 1, > 0; 1 at every K by default.

    Returns
    -------
    StepParts

    Examples
    --------
    >>> ks = [1, 2, 4]
    >>> strong = [0.010, 0.0055 + 2e-4, 0.00325 + 3e-4]     # 1 ms serial, 9 ms parallel, an all-reduce
    >>> weak = [0.010, 0.010 + 2e-4, 0.010 + 3e-4]
    >>> parts = step_parts(ks, strong, weak)
    >>> round(parts.serial * 1e3, 6), round(parts.parallel * 1e3, 6), (parts.comm * 1e6).round(3).tolist()
    (1.0, 9.0, [0.0, 200.0, 300.0])
    >>> round(parts.serial_fraction, 6)
    0.1
    """
    k = check_whole("ks", ks)
    strong = check_positive("strong_step", strong_step)
    weak = check_positive("weak_step", weak_step)
    if k.ndim != 1 or strong.shape != k.shape or weak.shape != k.shape:
        raise ValueError(f"ks, strong_step and weak_step must be flat lists of one length; got {k.shape}, "
                         f"{strong.shape} and {weak.shape}")
    if k[0] != 1 or np.any(np.diff(k) <= 0) or k.size < 2:
        raise ValueError(f"ks must increase, start at 1 and hold a K >= 2; got {k.astype(int).tolist()}")
    q = 1.0 / k if share is None else check_positive("share", share)
    if q.shape != k.shape or np.any(q > 1):
        raise ValueError("share must hold one fraction in (0, 1] per K")
    r = np.ones(k.shape) if slowdown is None else check_positive("slowdown", slowdown)
    if r.shape != k.shape:
        raise ValueError("slowdown must hold one ratio per K")
    r = r / r[0]
    x = 1.0 - q[1:]
    y = (weak[1:] - strong[1:]) / r[1:]
    parallel = max(float(np.dot(x, y) / np.dot(x, x)), 0.0)
    one = 0.5 * (strong[0] + weak[0])
    serial = max(float(one) - parallel, 0.0)
    comm = weak - r * weak[0]
    return StepParts(serial, parallel, comm, k.astype(int))


class ExpectedScaling(NamedTuple):
    """What the scaling lab's program should show, by :func:`expected_scaling`."""

    ks: np.ndarray
    speedup: np.ndarray  #: strong-scaling speedup T(1)/T(K)
    weak_efficiency: np.ndarray  #: T(1)/T(K) of the weak runs
    comm_share: np.ndarray  #: the all-reduce's share of a strong-scaling step at K
    amdahl_f: float  #: the f an Amdahl fit to these speedups would report
    karp_flatt: np.ndarray  #: e(K) of these speedups (NaN at K = 1)


def expected_scaling(ks, serial_fraction, step_seconds, comm_seconds, clock_ratio=1.0) -> ExpectedScaling:
    r"""Speedups the scaling lab's program should reach, from its known parts.

    One step is a serial part :math:`f t` and a parallel part :math:`(1 - f) t` on one core
    (:math:`t` = ``step_seconds``), and an all-reduce of :math:`c(K)` seconds. With K cores busy each
    runs at ``clock_ratio`` of the clock one core alone reaches (many servers: 0.75 to 0.85):

    .. math::

        T(K) = \frac{f t + (1 - f) t / K}{r_K} + c(K), \qquad r_1 = 1,\ r_{K \ge 2} = \text{clock\_ratio}.

    Parameters
    ----------
    ks : array_like
        Rank counts, whole >= 1, increasing, starting at 1.
    serial_fraction : float
        f, in [0, 1).
    step_seconds : float
        One step's compute on one core alone, > 0.
    comm_seconds : array_like
        The all-reduce's seconds at each K, >= 0 (0 at K = 1).
    clock_ratio : float
        Clock of busy cores over the clock of one core alone, in (0, 1].

    Returns
    -------
    ExpectedScaling

    Examples
    --------
    >>> e = expected_scaling([1, 2, 4], 0.1, 0.01, [0.0, 0.0, 0.0])
    >>> e.speedup.round(4).tolist(), round(e.amdahl_f, 6)
    ([1.0, 1.8182, 3.0769], 0.1)
    """
    from ..laws import fit_amdahl
    k = check_whole("ks", ks)
    if k.ndim != 1 or k[0] != 1 or np.any(np.diff(k) <= 0):
        raise ValueError(f"ks must increase and start at 1; got {np.atleast_1d(k).tolist()}")
    f = single(check_nonnegative, "serial_fraction", serial_fraction)
    if f >= 1:
        raise ValueError(f"serial_fraction must be in [0, 1); got {serial_fraction!r}")
    t = single(check_positive, "step_seconds", step_seconds)
    c = check_nonnegative("comm_seconds", comm_seconds)
    if c.shape != k.shape:
        raise ValueError("comm_seconds must hold one time per K")
    r = single(check_positive, "clock_ratio", clock_ratio)
    if r > 1:
        raise ValueError(f"clock_ratio must be in (0, 1]; got {clock_ratio!r}")
    rate = np.where(k >= 2, r, 1.0)
    strong = (f * t + (1 - f) * t / k) / rate + c
    weak = t / rate + c
    speedup = strong[0] / strong
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(k >= 2, (1 / speedup - 1 / k) / (1 - 1 / np.maximum(k, 2)), np.nan)
    return ExpectedScaling(k.astype(int), speedup, weak[0] / weak, c / strong, float(fit_amdahl(k, speedup)), e)


def measured_crossover(nbytes, seconds_a, seconds_b):
    """The message size at which algorithm B's measured time overtakes A's, or None.

    Both algorithms were timed at the same sizes; A is taken to win the small sizes and B the
    large ones. Noise can flip the winner at a size where the two are close, so the crossover is
    the split of the sizes into "A wins" below and "B wins" above that disagrees least with the
    measurements, each disagreement weighted by how clear it is (``|log(t_A / t_B)|``, capped at
    ``log(1.65)`` so that one wildly disturbed size counts no more than a clear win). It is
    placed between the two sizes around the split by linear interpolation of ``log(t_A / t_B)``
    in log-size.

    Parameters
    ----------
    nbytes : array_like
        Sizes in bytes, > 0, increasing.
    seconds_a, seconds_b : array_like
        Times of the two algorithms at those sizes, > 0.

    Returns
    -------
    float or None
        Bytes; None when the best split puts every size on one side (A wins throughout, or B does).

    Examples
    --------
    >>> n = [1e3, 1e4, 1e5, 1e6]
    >>> round(measured_crossover(n, [1, 1, 2, 4], [2, 2, 1, 2]))        # B wins from 10**4.5 bytes up
    31623
    >>> measured_crossover(n, [1, 1, 1, 1], [2, 2, 2, 2]) is None       # A wins throughout
    True
    >>> round(measured_crossover(n, [1, 1.01, 1, 2], [2, 1, 2, 1]))     # the 1% at 10**4 is noise
    316228
    """
    n = check_positive("nbytes", nbytes)
    a = check_positive("seconds_a", seconds_a)
    b = check_positive("seconds_b", seconds_b)
    if n.ndim != 1 or a.shape != n.shape or b.shape != n.shape:
        raise ValueError("nbytes, seconds_a and seconds_b must be flat lists of one length")
    if n.size < 2 or np.any(np.diff(n) <= 0):
        raise ValueError("nbytes must hold at least two sizes, increasing")
    r = np.log(a / b)                        # < 0 where A is faster
    w = np.clip(r, -_CLEAR, _CLEAR)          # a wildly disturbed size counts no more than a clear win
    # cost of splitting before index i: sizes below i where B won, plus sizes from i where A won
    costs = [np.sum(np.maximum(w[:i], 0)) + np.sum(np.maximum(-w[i:], 0)) for i in range(n.size + 1)]
    i = int(np.argmin(costs))
    if i in (0, n.size):
        return None
    x0, x1 = np.log(n[i - 1]), np.log(n[i])
    y0, y1 = r[i - 1], r[i]
    if y0 < 0 < y1 or y0 > 0 > y1:
        return float(np.exp(x0 + (x1 - x0) * y0 / (y0 - y1)))
    return float(np.exp(0.5 * (x0 + x1)))


class RobustAlphaBeta(NamedTuple):
    """alpha and beta fitted to the sizes that fit a line, and the sizes left out."""

    alpha: float
    beta: float
    kept: np.ndarray  #: True for the sizes the final fit used

    @property
    def bandwidth(self) -> float:
        return 1.0 / self.beta

    @property
    def half_size(self) -> float:
        return self.alpha / self.beta


def fit_alpha_beta_robust(nbytes, seconds, *, ratio=2.0, max_dropped=None) -> RobustAlphaBeta:
    """``t = alpha + n beta`` fitted as :func:`scalinglib.fit_alpha_beta` does, leaving out sizes whose
    time is more than ``ratio`` times the fitted line's, the worst first, one at a time.

    On a busy machine every batch of one size can be slowed down (a rank waits for a CPU in most of
    its rounds); such a size lies far above the line and would drag the fit. At most a third of the
    sizes are left out (``max_dropped``), and never so many that fewer than three remain.

    Parameters
    ----------
    nbytes, seconds : array_like
        As for :func:`scalinglib.fit_alpha_beta`.
    ratio : float
        A size is left out when measured / fitted exceeds this, > 1 (default 2).
    max_dropped : int, optional
        At most this many sizes left out (default: a third of them).

    Returns
    -------
    RobustAlphaBeta

    Examples
    --------
    >>> n = np.array([8, 64, 512, 4096, 32768, 262144, 2097152])
    >>> t = 1e-6 + n / 5e9
    >>> t[2] = 0.014                                  # one size whose batches all waited for a CPU
    >>> fit = fit_alpha_beta_robust(n, t)
    >>> round(fit.alpha * 1e6, 6), round(fit.bandwidth / 1e9, 6), fit.kept.tolist()
    (1.0, 5.0, [True, True, False, True, True, True, True])
    """
    from ..probe import fit_alpha_beta

    n = check_positive("nbytes", nbytes)
    t = check_positive("seconds", seconds)
    if not ratio > 1:
        raise ValueError(f"ratio must be > 1; got {ratio!r}")
    keep = np.ones(n.shape, dtype=bool)
    limit = n.size // 3 if max_dropped is None else int(max_dropped)
    fit = fit_alpha_beta(n, t)
    while keep.sum() > 3 and (~keep).sum() < limit:
        excess = np.where(keep, t / (fit.alpha + n * fit.beta), 0.0)
        worst = int(np.argmax(excess))
        if excess[worst] <= ratio:
            break
        keep[worst] = False
        fit = fit_alpha_beta(n[keep], t[keep])
    return RobustAlphaBeta(fit.alpha, fit.beta, keep)


class ProtocolFits(NamedTuple):
    """alpha and beta fitted on each side of the eager limit: ``None`` where too few sizes lie there."""

    eager_limit: float  #: bytes: sizes below go eagerly, sizes at or above by rendezvous
    eager: RobustAlphaBeta | None
    rendezvous: RobustAlphaBeta | None

    def model(self, nbytes) -> np.ndarray:
        """Each size's time on its own side's line (NaN where that side has no fit)."""
        n = np.asarray(nbytes, dtype=float)
        out = np.full(n.shape, np.nan)
        for fit, side in ((self.eager, n < self.eager_limit), (self.rendezvous, n >= self.eager_limit)):
            if fit is not None:
                out[side] = fit.alpha + n[side] * fit.beta
        return out


def fit_protocols(nbytes, seconds, eager_limit) -> ProtocolFits:
    """``t = alpha + n beta`` fitted separately below the eager limit and at or above it.

    Below the limit a message is copied out at once (eager); from the limit up the sender first
    waits for the receiver (rendezvous) and the bytes then move by another path. One straight line
    across the limit mixes two protocols. Each side uses :func:`fit_alpha_beta_robust` and needs
    three sizes or more. Where the eager sizes' times do not grow above their noise, that side takes
    the rendezvous side's beta and the median latency it leaves.

    Parameters
    ----------
    nbytes, seconds : array_like
        Sizes in bytes (> 0) and one-way times (> 0), one per size.
    eager_limit : float
        Bytes, > 0 (``btl_sm_eager_limit`` or ``btl_tcp_eager_limit`` from ``ompi_info``).

    Returns
    -------
    ProtocolFits

    Examples
    --------
    >>> n = 8.0 * 2 ** np.arange(12)
    >>> t = np.where(n < 4096, 0.3e-6 + n / 4e9, 1.2e-6 + n / 10e9)
    >>> fits = fit_protocols(n, t, 4096)
    >>> round(fits.eager.alpha * 1e6, 6), round(fits.rendezvous.alpha * 1e6, 6), round(1 / fits.rendezvous.beta / 1e9, 6)
    (0.3, 1.2, 10.0)
    """
    n = check_positive("nbytes", nbytes)
    t = check_positive("seconds", seconds)
    limit = float(check_positive("eager_limit", eager_limit))
    if n.ndim != 1 or t.shape != n.shape:
        raise ValueError("nbytes and seconds must be flat lists of one length")
    fits = []
    for side in (n < limit, n >= limit):
        try:
            fits.append(fit_alpha_beta_robust(n[side], t[side]) if side.sum() >= 3 else None)
        except ValueError:          # no growth above the noise: the sizes there are all latency
            fits.append(None)
    eager, rendezvous = fits
    below = n < limit
    if eager is None and rendezvous is not None and below.sum() >= 3:
        # the eager sizes are too small for their bytes to show: take the rendezvous side's time per byte (the
        # copy is no cheaper below the limit) and the latency that leaves
        alpha = max(float(np.median(t[below] - n[below] * rendezvous.beta)), 0.0)
        eager = RobustAlphaBeta(alpha, rendezvous.beta, np.ones(int(below.sum()), dtype=bool))
    return ProtocolFits(limit, eager, rendezvous)


class CrossoverReading(NamedTuple):
    """Whether two algorithms' measured times cross, read against the run-to-run spread."""

    status: str  #: "resolved" (one crossing), "several", "first wins", "second wins" or "unresolved"
    brackets: tuple  #: ((low, high, winner above), ...): each change of the clear winner, in bytes
    clear_first: np.ndarray  #: True where every run of the first beat every run of the second
    clear_second: np.ndarray  #: the other way round

    @property
    def low(self) -> float | None:
        """The first crossing's bracket: the last size clearly won before it (bytes), or None."""
        return self.brackets[0][0] if self.brackets else None

    @property
    def high(self) -> float | None:
        """The first size clearly won after the first crossing (bytes), or None."""
        return self.brackets[0][1] if self.brackets else None

    @property
    def size(self) -> float | None:
        """The first crossing's best single value: the geometric middle of its bracket, or None."""
        if not self.brackets:
            return None
        return float(np.sqrt(self.low * self.high))


def resolve_crossover(nbytes, runs_first, runs_second, skip=None) -> CrossoverReading:
    """Read crossovers from repeated timings only where the two algorithms differ beyond their spread.

    At each size an algorithm *clearly* wins when its slowest run is faster than the other's
    fastest run; at the other sizes the measurement cannot tell them apart. Walking up the sizes,
    every change of the clear winner is a crossover, bracketed by the last size the one clearly won
    and the first size the other clearly won. One change is ``resolved``; more than one is
    ``several`` (a change of protocol can make the winner change twice; each bracket is listed).
    Without a change the reading says why: one algorithm wins every size that is clear (``first
    wins``, ``second wins``), or no size is clear (``unresolved``).

    Parameters
    ----------
    nbytes : array_like
        Sizes in bytes, > 0, increasing.
    runs_first, runs_second : array_like
        Times, > 0, shape (runs, sizes): one row per repeat.
    skip : array_like of bool, optional
        Sizes to leave out, one flag per size: those where every batch of either algorithm was held
        up (on a busy machine, waiting for a CPU), whose timings say nothing about the algorithms.

    Returns
    -------
    CrossoverReading

    Examples
    --------
    >>> n = [1e3, 1e4, 1e5, 1e6]
    >>> a = [[1.0, 1.0, 2.0, 4.0], [1.1, 1.2, 2.1, 4.2]]
    >>> b = [[2.0, 1.1, 1.0, 2.0], [2.2, 1.3, 1.1, 2.1]]
    >>> r = resolve_crossover(n, a, b)
    >>> r.status, r.low, r.high, round(r.size)
    ('resolved', 1000.0, 100000.0, 10000)
    >>> resolve_crossover(n, a, [[1.05, 1.1, 2.05, 4.1], [0.9, 0.95, 1.9, 3.9]]).status
    'unresolved'
    """
    n = check_positive("nbytes", nbytes)
    a = _repeats("runs_first", runs_first)
    b = _repeats("runs_second", runs_second)
    if n.ndim != 1 or a.shape[1] != n.size or b.shape[1] != n.size:
        raise ValueError("runs_first and runs_second must have one column per size of nbytes")
    if n.size < 2 or np.any(np.diff(n) <= 0):
        raise ValueError("nbytes must hold at least two sizes, increasing")
    first = a.max(axis=0) < b.min(axis=0)
    second = b.max(axis=0) < a.min(axis=0)
    if skip is not None:
        left_out = np.asarray(skip, dtype=bool)
        if left_out.shape != n.shape:
            raise ValueError(f"skip must hold one flag per size; got shape {left_out.shape}")
        first, second = first & ~left_out, second & ~left_out
    clear = [(float(n[i]), "first" if first[i] else "second") for i in range(n.size) if first[i] or second[i]]
    brackets = tuple((lo, hi, who) for (lo, was), (hi, who) in zip(clear, clear[1:]) if who != was)
    if brackets:
        return CrossoverReading("resolved" if len(brackets) == 1 else "several", brackets, first, second)
    if not clear:
        return CrossoverReading("unresolved", (), first, second)
    return CrossoverReading(f"{clear[0][1]} wins", (), first, second)
