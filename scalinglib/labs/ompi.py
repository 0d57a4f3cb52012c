r"""Open MPI's all-reduce as it runs: its fixed choice of algorithm, and each algorithm's real schedule.

Section 3.8's table prices the textbook algorithms. Open MPI's ``tuned`` component (``coll/base``)
implements them with details the table leaves out, and the lab of 3.8.6 measures those
implementations, so its model has to carry them:

* **Recursive doubling** copies the send buffer into a temporary buffer first, exchanges the whole
  vector ``lg K`` times, adds after each exchange, and copies the result back into the receive
  buffer on the ranks where it ended in the temporary (on two ranks, one of the two): two copies
  of ``n`` bytes on the critical path.
* **Ring** copies the send buffer into the receive buffer once and works there (in place). Its
  blocks are not cut into segments: each of its ``2(K - 1)`` steps is one message of ``n/K``
  bytes. The pipelined, segmented ring is a separate algorithm (``segmented_ring``); asked for
  with a segment size of 0, as the fixed rules ask for it, it runs the plain ring.
* **Rabenseifner** (``redscat_allgather``) copies once too, then halves and doubles. On two ranks
  it runs the ring's schedule exactly: two messages of ``n/2`` and ``n/2`` bytes added.

Messages above the transport's eager limit go by a rendezvous (a handshake, then the data), whose
fixed cost is larger than an eager message's; :class:`CollectiveCosts` carries both.

The fixed decision rules are Open MPI 5.0's (``coll_tuned_decision_fixed.c``, commutative
operations); :func:`open_mpi_allreduce_choice` restates them as a table.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_choice, check_nonnegative, check_positive, single, single_whole

__all__ = ["OPEN_MPI_ALLREDUCE_RULES", "open_mpi_allreduce_choice", "AllreduceSchedule",
           "open_mpi_allreduce_schedule", "CollectiveCosts", "open_mpi_allreduce_time", "SCHEDULED_ALGORITHMS"]

#: Algorithms whose Open MPI schedule :func:`open_mpi_allreduce_schedule` knows.
SCHEDULED_ALGORITHMS = ("recursive_doubling", "ring", "segmented_ring", "rabenseifner")

#: Open MPI 5.0's fixed all-reduce rules for commutative operations: for communicators of fewer than
#: ``below`` ranks, a list of (size limit in bytes, algorithm) read in order: the first limit the
#: vector is smaller than picks the algorithm; ``None`` is no limit.
OPEN_MPI_ALLREDUCE_RULES = (
    (4, ((8, "ring"), (4096, "recursive_doubling"), (8192, "ring"), (16384, "recursive_doubling"),
         (65536, "ring"), (262144, "segmented_ring"), (None, "rabenseifner"))),
    (8, ((16, "ring"), (8192, "recursive_doubling"), (None, "rabenseifner"))),
    (16, ((8192, "recursive_doubling"), (None, "rabenseifner"))),
    (32, ((64, "segmented_ring"), (4096, "recursive_doubling"), (None, "rabenseifner"))),
    (64, ((128, "segmented_ring"), (None, "rabenseifner"))),
    (128, ((262144, "recursive_doubling"), (None, "rabenseifner"))),
    (256, ((131072, "nonoverlapping"), (262144, "recursive_doubling"), (None, "rabenseifner"))),
    (512, ((4096, "nonoverlapping"), (None, "rabenseifner"))),
    (2048, ((2048, "nonoverlapping"), (16384, "recursive_doubling"), (None, "rabenseifner"))),
    (4096, ((2048, "nonoverlapping"), (4096, "segmented_ring"), (16384, "recursive_doubling"),
            (None, "rabenseifner"))),
    (None, ((2048, "nonoverlapping"), (16384, "segmented_ring"), (32768, "recursive_doubling"),
            (None, "rabenseifner"))),
)


def open_mpi_allreduce_choice(k, nbytes) -> str:
    """The all-reduce algorithm Open MPI 5.0's ``tuned`` component picks by its fixed rules.

    For a commutative operation (a sum) on ``k`` ranks and a vector of ``nbytes`` bytes, as
    ``ompi_coll_tuned_allreduce_intra_dec_fixed`` decides when no rules file and no forced
    algorithm are given. The rules were tuned by Open MPI's developers on their clusters.

    Parameters
    ----------
    k : int
        Ranks, whole >= 1.
    nbytes : int
        Bytes of each rank's vector, whole >= 0.

    Returns
    -------
    str
        ``recursive_doubling``, ``ring``, ``segmented_ring``, ``rabenseifner`` or ``nonoverlapping``.

    Examples
    --------
    >>> [open_mpi_allreduce_choice(2, n) for n in (4, 1024, 4096, 8192, 32768, 2**20)]
    ['ring', 'recursive_doubling', 'ring', 'recursive_doubling', 'ring', 'rabenseifner']
    >>> open_mpi_allreduce_choice(8, 4096), open_mpi_allreduce_choice(64, 2**20)
    ('recursive_doubling', 'rabenseifner')
    """
    ranks = single_whole("k", k)
    size = single(check_nonnegative, "nbytes", nbytes)
    for below, rules in OPEN_MPI_ALLREDUCE_RULES:
        if below is None or ranks < below:
            for limit, name in rules:
                if limit is None or size < limit:
                    return name
    raise AssertionError("the rules end with an open limit")   # pragma: no cover


class AllreduceSchedule(NamedTuple):
    """What one rank on the critical path of an Open MPI all-reduce does, in order of cost."""

    messages: tuple  #: bytes of each message sent in turn (each step sends one and receives one)
    reduced: float  #: bytes added
    copied: float  #: bytes copied between local buffers


def open_mpi_allreduce_schedule(algorithm, k, nbytes) -> AllreduceSchedule:
    """The messages, additions and local copies of Open MPI's all-reduce ``algorithm`` on ``k`` ranks.

    ``k`` must be a power of two for recursive doubling and Rabenseifner's algorithm (the lab
    measures powers of two). A ring with fewer elements than ranks runs recursive doubling, as
    Open MPI does; ``segmented_ring`` is the plain ring (the fixed rules give it no segment size).

    Parameters
    ----------
    algorithm : str
        One of :data:`SCHEDULED_ALGORITHMS`.
    k : int
        Ranks, whole >= 2.
    nbytes : float
        Bytes of each rank's vector, > 0.

    Returns
    -------
    AllreduceSchedule

    Examples
    --------
    >>> open_mpi_allreduce_schedule("recursive_doubling", 2, 1024)
    AllreduceSchedule(messages=(1024.0,), reduced=1024.0, copied=2048.0)
    >>> open_mpi_allreduce_schedule("ring", 2, 1024)
    AllreduceSchedule(messages=(512.0, 512.0), reduced=512.0, copied=1024.0)
    >>> open_mpi_allreduce_schedule("rabenseifner", 8, 1024).messages
    (512.0, 256.0, 128.0, 128.0, 256.0, 512.0)
    """
    name = check_choice("algorithm", algorithm, SCHEDULED_ALGORITHMS)
    ranks = single_whole("k", k)
    if ranks < 2:
        raise ValueError(f"k must be at least 2 ranks; got {k!r}")
    n = float(single(check_positive, "nbytes", nbytes))
    power = ranks & (ranks - 1) == 0
    if name in ("ring", "segmented_ring") and n < 4 * ranks:    # fewer float32 elements than ranks
        name = "recursive_doubling"
    if name in ("recursive_doubling", "rabenseifner") and not power:
        raise ValueError(f"k must be a power of two for {name}; got {k!r}")
    steps = ranks.bit_length() - 1
    if name == "recursive_doubling":
        return AllreduceSchedule((n,) * steps, steps * n, 2 * n)
    if name in ("ring", "segmented_ring"):
        block = n / ranks
        return AllreduceSchedule((block,) * (2 * (ranks - 1)), (ranks - 1) * block, n)
    halves = tuple(n / 2 ** (i + 1) for i in range(steps))
    return AllreduceSchedule(halves + halves[::-1], n * (ranks - 1) / ranks, n)


class CollectiveCosts(NamedTuple):
    """The constants an Open MPI all-reduce pays, in seconds and seconds per byte.

    ``call`` is paid once per all-reduce (the Python call into MPI and Open MPI's dispatch);
    ``alpha`` per message inside it; ``rendezvous`` more per message of ``eager_limit`` bytes or
    more; ``beta_eager`` and ``beta_rendezvous`` per byte of a message on either side of the limit;
    ``gamma`` per byte added; ``copy`` per byte copied locally.
    """

    call: float
    alpha: float
    eager_limit: float
    rendezvous: float
    beta_eager: float
    beta_rendezvous: float
    gamma: float
    copy: float
    alpha_from: str = "the all-reduce's smallest sizes"  #: where ``alpha`` was read

    def message(self, nbytes) -> np.ndarray:
        """Seconds of one message of ``nbytes`` inside the collective."""
        n = np.asarray(nbytes, dtype=float)
        eager = n < self.eager_limit
        return np.where(eager, self.alpha + n * self.beta_eager,
                        self.alpha + self.rendezvous + n * self.beta_rendezvous)


def open_mpi_allreduce_time(algorithm, k, nbytes, costs: CollectiveCosts):
    """Seconds of Open MPI's all-reduce ``algorithm`` on ``k`` ranks, its schedule priced by ``costs``.

    ``T = call + sum over messages (alpha [+ rendezvous] + m beta) + reduced gamma + copied copy``,
    with the schedule of :func:`open_mpi_allreduce_schedule`.

    Parameters
    ----------
    algorithm, k :
        As for :func:`open_mpi_allreduce_schedule`.
    nbytes : array_like
        Bytes of each rank's vector, > 0.
    costs : CollectiveCosts

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> c = CollectiveCosts(call=0.5e-6, alpha=0.4e-6, eager_limit=4096, rendezvous=1e-6,
    ...                     beta_eager=0.2e-9, beta_rendezvous=0.1e-9, gamma=0.05e-9, copy=0.1e-9)
    >>> round(open_mpi_allreduce_time("recursive_doubling", 2, 1024, c) * 1e6, 4)
    1.3608
    >>> round(open_mpi_allreduce_time("ring", 2, 1024, c) * 1e6, 4)
    1.6328
    """
    if not isinstance(costs, CollectiveCosts):
        raise TypeError(f"costs must be a CollectiveCosts; got {type(costs).__name__}")
    n = check_positive("nbytes", nbytes)
    flat = np.atleast_1d(n).ravel()
    out = np.empty(flat.shape)
    for i, size in enumerate(flat):
        s = open_mpi_allreduce_schedule(algorithm, k, size)
        out[i] = (costs.call + float(np.sum(costs.message(np.array(s.messages))))
                  + s.reduced * costs.gamma + s.copied * costs.copy)
    return float(out[0]) if np.ndim(n) == 0 else out.reshape(np.shape(n))
