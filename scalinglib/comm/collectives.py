r"""Collectives: algorithms as schedules of messages, and their price (Sections 3.8.2, 3.8.3 and 3.8.4).

Each algorithm of :data:`ALGORITHMS` is a schedule of messages
(:mod:`scalinglib.comm.p2p`), so its time has the form

.. math:: T = k_\alpha\,\alpha + k_\beta\,n\beta + k_\gamma\,n\gamma,

where ``gamma`` is the time per byte to combine data (a reduction, e.g. an
addition) and the coefficients ``k_alpha`` (messages on the critical path),
``k_beta`` (bytes sent per byte of ``n``) and ``k_gamma`` (bytes reduced per
byte of ``n``) depend on the collective, the algorithm and the number of
processes ``p``. :func:`collective_cost_terms` returns them; they follow
Thakur, Rabenseifner and Gropp (2005), with ``lg`` the base-2 logarithm:

==================  ==================  =================  ===============  ==============
collective          algorithm           k_alpha            k_beta           k_gamma
==================  ==================  =================  ===============  ==============
broadcast           binomial_tree       ceil(lg p)         ceil(lg p)       0
broadcast           scatter_allgather   ceil(lg p) + p-1   2(p-1)/p         0
reduce              binomial_tree       ceil(lg p)         ceil(lg p)       ceil(lg p)
reduce              rabenseifner        2 lg p             2(p-1)/p         (p-1)/p
allgather           ring                p - 1              (p-1)/p          0
allgather           recursive_doubling  lg p               (p-1)/p          0
reduce_scatter      ring                p - 1              (p-1)/p          (p-1)/p
reduce_scatter      recursive_halving   lg p               (p-1)/p          (p-1)/p
allreduce           ring                2(p - 1)           2(p-1)/p         (p-1)/p
allreduce           binomial_tree       2 ceil(lg p)       2 ceil(lg p)     ceil(lg p)
allreduce           recursive_doubling  lg p               lg p             lg p
allreduce           rabenseifner        2 lg p             2(p-1)/p         (p-1)/p
alltoall            pairwise            p - 1              (p-1)/p          0
alltoall            bruck               ceil(lg p)         ceil(lg p)/2     0
==================  ==================  =================  ===============  ==============

Notes on the table:

* ``scatter_allgather`` is van de Geijn's broadcast as MPICH implements it
  for long messages: a binomial-tree scatter then a ring all-gather.
* ``rabenseifner`` is a reduce-scatter by recursive halving followed by an
  all-gather by recursive doubling (all-reduce) or a binomial-tree gather to
  the root (reduce).
* The ring reduce-scatter costs the same as the pairwise-exchange algorithm
  of Thakur et al.; ring all-reduce is ring reduce-scatter then ring
  all-gather (Patarasuk and Yuan 2009 prove its bandwidth term optimal).
* ``binomial_tree`` all-reduce is a binomial-tree reduce then a binomial-tree
  broadcast, the old MPICH all-reduce.
* All-to-all: every rank holds ``n`` bytes, ``n/p`` for each rank (itself
  included), and ends with the ``n/p`` that every rank holds for it. The
  pairwise exchange sends one block to a different partner at each of ``p - 1``
  steps; Bruck's algorithm sends half of the buffer at each of ``ceil(lg p)``
  steps (exact for ``p`` a power of two; its local rotations are left out).
  Thakur et al. (2005) give both.

**What n is.** ``nbytes`` is always the size of the whole buffer on each
rank: the data broadcast (broadcast); each rank's input vector, which is also
the size of the result (reduce, all-reduce); each rank's full input vector, of
which it keeps a reduced ``n/p`` (reduce-scatter); the gathered total that
every rank ends with, to which each rank contributes ``n/p`` (all-gather).
This is the convention of Thakur et al. and of the NCCL tests.

**p not a power of two.** The ring, the binomial trees and
``scatter_allgather`` work for any ``p`` (the trees take ``ceil(lg p)``
steps), and the table gives their cost for every ``p``. Recursive doubling,
recursive halving and Rabenseifner's algorithm pair processes at distance 1,
2, 4, ... and need ``p`` to be a power of two. For the reductions (reduce,
reduce-scatter, all-reduce) MPICH handles other ``p`` by first folding the
surplus processes' data into their neighbours, and by handing results back at
the end where those processes need them: extra messages of up to the whole
buffer, which for Rabenseifner's all-reduce roughly double the bytes (it
costs ``(2 floor(lg p) + 2) alpha + (2(p-1)/p + 2) n beta + (1 + (p-1)/p) n
gamma``, as the comments in MPICH's source state). All-gather needs no fold:
Bruck's algorithm takes ``ceil(lg p)`` steps and moves the same
``(p-1)/p n`` bytes for any ``p`` (Thakur et al. 2005). Neither the fold nor
Bruck's algorithm is modelled here: the power-of-two algorithms refuse other
``p`` (:func:`algorithms_for` lists what applies).

The model assumes every pair of processes can exchange messages at the same
``alpha`` and ``beta`` at the same time (one send and one receive per process
at once) and no contention. Real networks add topology; the model gives the
shape and the order of magnitude.
"""

from __future__ import annotations

import re

import numpy as np

from .._validate import (
    check_broadcast,
    check_nonnegative,
    check_scalar,
    check_whole,
    public,
    scalar_or_array,
    single,
)

__all__ = [
    "COLLECTIVES",
    "ALGORITHMS",
    "POWER_OF_TWO_ONLY",
    "algorithms_for",
    "collective_cost_terms",
    "collective_time",
    "collective_times",
    "collective_lower_bound",
    "best_algorithm",
    "crossover_size",
]


#: The collectives this module prices, in the order the book introduces them.
COLLECTIVES: tuple[str, ...] = ("broadcast", "reduce", "allgather", "reduce_scatter", "allreduce", "alltoall")

#: Algorithms modelled for each collective; the first is the default of :func:`collective_time`.
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "broadcast": ("binomial_tree", "scatter_allgather"),
    "reduce": ("binomial_tree", "rabenseifner"),
    "allgather": ("ring", "recursive_doubling"),
    "reduce_scatter": ("ring", "recursive_halving"),
    "allreduce": ("ring", "binomial_tree", "recursive_doubling", "rabenseifner"),
    "alltoall": ("pairwise", "bruck"),
}

#: (collective, algorithm) pairs that need p to be a power of two.
POWER_OF_TWO_ONLY: frozenset[tuple[str, str]] = frozenset(
    {
        ("reduce", "rabenseifner"),
        ("allgather", "recursive_doubling"),
        ("reduce_scatter", "recursive_halving"),
        ("allreduce", "recursive_doubling"),
        ("allreduce", "rabenseifner"),
    }
)

_COLLECTIVE_ALIASES = {"bcast": "broadcast", "allgather": "allgather", "reducescatter": "reduce_scatter",
                       "allreduce": "allreduce", "broadcast": "broadcast", "reduce": "reduce",
                       "alltoall": "alltoall"}
_ALGORITHM_ALIASES = {
    "ring": "ring",
    "binomialtree": "binomial_tree",
    "binomial": "binomial_tree",
    "tree": "binomial_tree",
    "recursivedoubling": "recursive_doubling",
    "recursivehalving": "recursive_halving",
    "rabenseifner": "rabenseifner",
    "reducescatterallgather": "rabenseifner",
    "halvingdoubling": "rabenseifner",
    "scatterallgather": "scatter_allgather",
    "vandegeijn": "scatter_allgather",
    "pairwise": "pairwise",
    "pairwiseexchange": "pairwise",
    "bruck": "bruck",
}


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _collective(name) -> str:
    """Canonical collective name; 'All-Reduce', 'all_reduce' and 'allreduce' are the same."""
    valid = ", ".join(map(repr, COLLECTIVES))
    if not isinstance(name, str):
        raise TypeError(f"collective must be one of {valid}; got {_describe(name)}")
    found = _COLLECTIVE_ALIASES.get(_squash(name))
    if found is None:
        raise ValueError(f"collective must be one of {valid}; got {_describe(name)}")
    return found


def _algorithm(collective: str, name, param: str = "algorithm") -> str:
    """Canonical algorithm name, checked against what the collective supports (``param`` names it)."""
    valid = ", ".join(map(repr, ALGORITHMS[collective]))
    if name is None:
        return ALGORITHMS[collective][0]
    if not isinstance(name, str):
        raise TypeError(f"{param} must be one of {valid} for {collective}; got {_describe(name)}")
    found = _ALGORITHM_ALIASES.get(_squash(name))
    if found is None or found not in ALGORITHMS[collective]:
        raise ValueError(f"{param} must be one of {valid} for {collective}; got {_describe(name)}")
    return found


#: How error messages name the parameter ``p``: the book calls the number of processes K.
_P = "p (the K processes of the collective)"


def _is_power_of_two(p: np.ndarray) -> np.ndarray:
    """Exact for every whole float: a power of two has the mantissa 0.5 in ``frexp`` (no cast to int64)."""
    mantissa, _ = np.frexp(np.asarray(p, dtype=float))
    return mantissa == 0.5


def _check_power_of_two(collective, algorithm, p: np.ndarray) -> None:
    if (collective, algorithm) in POWER_OF_TWO_ONLY:
        bad = ~_is_power_of_two(p)
        if bad.any():
            value = int(p[bad].flat[0])
            others = [a for a in ALGORITHMS[collective] if (collective, a) not in POWER_OF_TWO_ONLY]
            raise ValueError(
                f"{_P} must be a power of two (1, 2, 4, 8, ...) for {algorithm} {collective}; got {value}. "
                f"For other K use {' or '.join(map(repr, others))}"
            )


@public
def algorithms_for(collective, p=None):
    """Algorithms modelled for a collective, optionally only those that apply at ``p`` processes.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES` (spelling is forgiving: ``"all-reduce"``
        and ``"AllReduce"`` both work).
    p : int, optional
        Number of processes; when given, algorithms that need a power of two
        are left out for other ``p``.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> algorithms_for("allreduce")
    ('ring', 'binomial_tree', 'recursive_doubling', 'rabenseifner')
    >>> algorithms_for("allreduce", p=6)
    ('ring', 'binomial_tree')
    """
    coll = _collective(collective)
    if p is None:
        return ALGORITHMS[coll]
    pp = check_whole(_P, p)
    if pp.ndim != 0:
        raise ValueError(f"{_P} must be a single whole number here; got an array of shape {pp.shape}")
    power = bool(_is_power_of_two(pp))
    return tuple(a for a in ALGORITHMS[coll] if power or (coll, a) not in POWER_OF_TWO_ONLY)


def _terms(collective: str, algorithm: str, p: np.ndarray):
    """(k_alpha, k_beta, k_gamma) coefficient arrays for a canonical collective and algorithm."""
    return _TERMS[(collective, algorithm)](p)


def _lg(p):
    return np.log2(p)


def _clg(p):
    return np.ceil(np.log2(p) - 1e-12)          # exact for powers of two despite rounding in log2


def _f(p):
    return (p - 1.0) / p


def _zero(p):
    return np.zeros_like(p)


#: (k_alpha, k_beta, k_gamma) of each (collective, algorithm), computed only for the pair asked for.
_TERMS = {
    ("broadcast", "binomial_tree"): lambda p: (_clg(p), _clg(p), _zero(p)),
    ("broadcast", "scatter_allgather"): lambda p: (_clg(p) + p - 1.0, 2.0 * _f(p), _zero(p)),
    ("reduce", "binomial_tree"): lambda p: (_clg(p), _clg(p), _clg(p)),
    ("reduce", "rabenseifner"): lambda p: (2.0 * _lg(p), 2.0 * _f(p), _f(p)),
    ("allgather", "ring"): lambda p: (p - 1.0, _f(p), _zero(p)),
    ("allgather", "recursive_doubling"): lambda p: (_lg(p), _f(p), _zero(p)),
    ("reduce_scatter", "ring"): lambda p: (p - 1.0, _f(p), _f(p)),
    ("reduce_scatter", "recursive_halving"): lambda p: (_lg(p), _f(p), _f(p)),
    ("allreduce", "ring"): lambda p: (2.0 * (p - 1.0), 2.0 * _f(p), _f(p)),
    ("allreduce", "binomial_tree"): lambda p: (2.0 * _clg(p), 2.0 * _clg(p), _clg(p)),
    ("allreduce", "recursive_doubling"): lambda p: (_lg(p), _lg(p), _lg(p)),
    ("allreduce", "rabenseifner"): lambda p: (2.0 * _lg(p), 2.0 * _f(p), _f(p)),
    ("alltoall", "pairwise"): lambda p: (p - 1.0, _f(p), _zero(p)),
    ("alltoall", "bruck"): lambda p: (_clg(p), 0.5 * _clg(p), _zero(p)),
}


@public
def collective_cost_terms(collective, p, algorithm=None):
    r"""Coefficients ``(k_alpha, k_beta, k_gamma)`` of a collective's cost.

    .. math:: T = k_\alpha\,\alpha + k_\beta\,n\beta + k_\gamma\,n\gamma

    ``k_alpha`` counts the messages on the critical path, ``k_beta`` the bytes
    each process sends in sequence per byte of ``n``, and ``k_gamma`` the bytes
    it reduces per byte of ``n`` (see the table in the module documentation).

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    p : int or array_like
        Processes taking part, whole >= 1.
    algorithm : str, optional
        One of ``ALGORITHMS[collective]``; default the first listed
        (``"ring"`` for all-gather, reduce-scatter and all-reduce,
        ``"binomial_tree"`` for broadcast and reduce).

    Returns
    -------
    tuple of three floats (or arrays, if ``p`` is an array)
        ``(k_alpha, k_beta, k_gamma)``.

    Raises
    ------
    ValueError
        Unknown collective or algorithm (the message lists the valid ones),
        ``p`` < 1 or not whole, or ``p`` not a power of two for an algorithm
        that needs one.

    Examples
    --------
    >>> collective_cost_terms("allreduce", 8, "ring")
    (14.0, 1.75, 0.875)
    >>> collective_cost_terms("broadcast", 6, "binomial_tree")      # ceil(lg 6) = 3 steps
    (3.0, 3.0, 0.0)
    """
    coll = _collective(collective)
    alg = _algorithm(coll, algorithm)
    pp = check_whole(_P, p)
    _check_power_of_two(coll, alg, pp)
    a, b, c = _terms(coll, alg, pp)
    return tuple(scalar_or_array(x, pp) for x in (a, b, c))


@public
def collective_time(collective, nbytes, p, alpha, beta, gamma=0.0, algorithm=None):
    r"""Time of a collective operation under the alpha-beta-gamma model (Thakur et al. 2005).

    .. math:: T = k_\alpha(p)\,\alpha + k_\beta(p)\,n\beta + k_\gamma(p)\,n\gamma

    with the coefficients of :func:`collective_cost_terms`. For ``p = 1``
    every collective costs nothing.

    Parameters
    ----------
    collective : str
        ``"broadcast"``, ``"reduce"``, ``"allgather"``, ``"reduce_scatter"``
        or ``"allreduce"``.
    nbytes : float or array_like
        n, the bytes of the whole buffer on each rank, >= 0: for all-gather
        the gathered total (each rank contributes n/p), for reduce-scatter each
        rank's full input (each keeps n/p of the result).
    p : int or array_like
        Processes, whole >= 1.
    alpha : float or array_like
        Seconds per message, >= 0.
    beta : float or array_like
        Seconds per byte sent, >= 0.
    gamma : float or array_like, optional
        Seconds per byte reduced, >= 0 (default 0: reduction is free).
    algorithm : str, optional
        One of ``ALGORITHMS[collective]``; default the first listed.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        Unknown collective or algorithm (the valid names are listed), a value
        out of range, or ``p`` not a power of two where the algorithm needs one.

    References
    ----------
    Thakur, Rabenseifner and Gropp (2005), IJHPCA 19(1); Patarasuk and Yuan (2009) for the ring all-reduce.

    Examples
    --------
    >>> t = collective_time("allreduce", 1e9, 8, alpha=5e-6, beta=1 / 50e9)
    >>> round(t * 1e3, 3)                     # 2 (p-1)/p n beta + 2 (p-1) alpha
    35.07
    >>> collective_time("allreduce", 1e9, 1, 5e-6, 1 / 50e9)
    0.0
    >>> collective_time("scatter", 1e6, 8, 5e-6, 1e-10)
    Traceback (most recent call last):
        ...
    ValueError: collective must be one of 'broadcast', 'reduce', 'allgather', 'reduce_scatter', 'allreduce', 'alltoall'; got 'scatter'
    """
    coll = _collective(collective)
    alg = _algorithm(coll, algorithm)
    n = check_nonnegative("nbytes", nbytes)
    pp = check_whole(_P, p)
    a = check_nonnegative("alpha", alpha)
    b = check_nonnegative("beta", beta)
    g = check_nonnegative("gamma", gamma)
    _check_power_of_two(coll, alg, pp)
    nb, pb, ab, bb, gb = check_broadcast(nbytes=n, **{_P: pp}, alpha=a, beta=b, gamma=g)
    ta, tb, tc = _terms(coll, alg, pb)
    return scalar_or_array(ta * ab + tb * nb * bb + tc * nb * gb, n, pp, a, b, g)


@public
def collective_times(collective, nbytes, p, alpha, beta, gamma=0.0):
    """The time of every algorithm that applies at ``p`` processes, as a dict.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    nbytes : float or array_like
        Bytes n (see :func:`collective_time`), >= 0.
    p : int
        Processes, a single whole number >= 1.
    alpha, beta, gamma : float
        As in :func:`collective_time`.

    Returns
    -------
    dict of str to float or numpy.ndarray
        Algorithm name -> seconds, in the order of :data:`ALGORITHMS`;
        algorithms that need a power of two are left out for other ``p``.

    Examples
    --------
    >>> times = collective_times("allreduce", 1e3, 64, 5e-6, 1 / 50e9)
    >>> min(times, key=times.get)
    'recursive_doubling'
    """
    names = algorithms_for(collective, p)
    return {alg: collective_time(collective, nbytes, p, alpha, beta, gamma, algorithm=alg) for alg in names}


@public
def collective_lower_bound(collective, nbytes, p, alpha, beta, gamma=0.0):
    r"""A lower bound on the time of any algorithm for the collective (Chan et al. 2007).

    Latency: information must reach ``p`` processes and the number of informed
    processes can at most double per step, so ``ceil(lg p) alpha``. Bandwidth
    and computation, for ``p > 1``:

    ==============  ===================  ==================
    collective      bytes (x n beta)     reduced (x n gamma)
    ==============  ===================  ==================
    broadcast       1                    0
    reduce          1                    (p-1)/p
    allgather       (p-1)/p              0
    reduce_scatter  (p-1)/p              (p-1)/p
    allreduce       2(p-1)/p             (p-1)/p
    alltoall        (p-1)/p              0
    ==============  ===================  ==================

    No single algorithm need reach all three terms at once.

    Parameters
    ----------
    collective, nbytes, p, alpha, beta, gamma
        As in :func:`collective_time`.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    References
    ----------
    Chan, Heimlich, Purkayastha and van de Geijn (2007), Concurrency and
    Computation: Practice and Experience 19(13).

    Examples
    --------
    >>> bound = collective_lower_bound("allreduce", 1e9, 8, 0.0, 1 / 50e9)
    >>> bound == collective_time("allreduce", 1e9, 8, 0.0, 1 / 50e9, algorithm="ring")
    True
    """
    coll = _collective(collective)
    n = check_nonnegative("nbytes", nbytes)
    pp = check_whole(_P, p)
    a = check_nonnegative("alpha", alpha)
    b = check_nonnegative("beta", beta)
    g = check_nonnegative("gamma", gamma)
    nb, pb, ab, bb, gb = check_broadcast(nbytes=n, **{_P: pp}, alpha=a, beta=b, gamma=g)
    clg = np.ceil(np.log2(pb) - 1e-12)
    f = (pb - 1.0) / pb
    many = (pb > 1).astype(float)
    bw, red = {
        "broadcast": (many, 0.0 * f),
        "reduce": (many, f),
        "allgather": (f, 0.0 * f),
        "reduce_scatter": (f, f),
        "allreduce": (2.0 * f, f),
        "alltoall": (f, 0.0 * f),
    }[coll]
    return scalar_or_array(clg * ab + bw * nb * bb + red * nb * gb, n, pp, a, b, g)


@public
def best_algorithm(collective, nbytes, p, alpha, beta, gamma=0.0):
    """The fastest algorithm under the model for these parameters.

    Only algorithms that apply at ``p`` compete (see :func:`algorithms_for`).
    Ties go to the algorithm listed first in :data:`ALGORITHMS` (at ``p = 1``
    every algorithm costs nothing).

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    nbytes : float or array_like
        Bytes n, >= 0.
    p : int
        Processes, a single whole number >= 1.
    alpha, beta, gamma : float
        As in :func:`collective_time`.

    Returns
    -------
    str, or numpy.ndarray of str when ``nbytes`` is an array

    Examples
    --------
    >>> best_algorithm("allreduce", 1e3, 64, 5e-6, 1 / 50e9)      # small: few messages win
    'recursive_doubling'
    >>> best_algorithm("allreduce", 1e9, 64, 5e-6, 1 / 50e9)      # large: few bytes win
    'rabenseifner'
    >>> best_algorithm("allreduce", 1e9, 48, 5e-6, 1 / 50e9)      # not a power of two
    'ring'
    """
    times = collective_times(collective, nbytes, p, alpha, beta, gamma)
    names = list(times)
    stacked = np.stack([np.asarray(t, dtype=float) for t in times.values()])
    winner = np.asarray(names)[np.argmin(stacked, axis=0)]
    return str(winner) if winner.ndim == 0 else winner


@public
def crossover_size(collective, algorithm_a, algorithm_b, p, alpha, beta, gamma=0.0):
    r"""The message size at which two algorithms cost the same.

    Both costs are straight lines in ``n``, so they meet at

    .. math::
        n^{*} = \frac{(k_{\alpha,A} - k_{\alpha,B})\,\alpha}
                      {(k_{\beta,B} - k_{\beta,A})\,\beta + (k_{\gamma,B} - k_{\gamma,A})\,\gamma}.

    Below ``n*`` the algorithm with fewer messages (smaller ``k_alpha``) wins; above it,
    the one that moves fewer bytes.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    algorithm_a, algorithm_b : str
        Two algorithms of that collective.
    p : int
        Processes, a single whole number >= 1.
    alpha, beta, gamma : float
        As in :func:`collective_time`.

    Returns
    -------
    float or None
        Bytes, or None when the two lines do not cross at a positive size
        (one algorithm is never slower, or they are identical).

    Examples
    --------
    >>> n = crossover_size("allreduce", "recursive_doubling", "ring", 64, 5e-6, 1 / 50e9)
    >>> round(n / 1e6, 2)        # MB: below it recursive doubling wins, above it the ring
    7.44
    """
    coll = _collective(collective)
    alg_a = _algorithm(coll, algorithm_a, "algorithm_a")
    alg_b = _algorithm(coll, algorithm_b, "algorithm_b")
    pp = check_whole(_P, check_scalar(_P, p))
    alpha = single(check_nonnegative, "alpha", alpha)
    beta = single(check_nonnegative, "beta", beta)
    gamma = single(check_nonnegative, "gamma", gamma)
    for alg in (alg_a, alg_b):
        _check_power_of_two(coll, alg, pp)
    a1, b1, c1 = (float(x) for x in _terms(coll, alg_a, pp))
    a2, b2, c2 = (float(x) for x in _terms(coll, alg_b, pp))
    num = (a1 - a2) * alpha
    den = (b2 - b1) * beta + (c2 - c1) * gamma
    if den == 0 or num == 0 or (num > 0) != (den > 0):
        return None
    return num / den
