"""Training-step communication: the gradient all-reduce across a cluster of nodes (Section 3.8.8).

A training step's gradient all-reduce spans nodes whose devices talk fast
inside the node (``alpha_intra``, ``beta_intra``) and slower across the network
(``alpha_inter``, ``beta_inter``). :func:`multiring_allreduce_time` prices a
flat ring all-reduce laid out node by node, one ring per network port, and
:func:`hierarchical_allreduce_time` the three-phase all-reduce (inside the
node, across nodes, inside the node again), both priced with
:func:`scalinglib.comm.collective_time`. Times are in seconds and sizes in bytes.
"""

from __future__ import annotations

import numpy as np

from .._validate import (
    check_broadcast,
    check_nonnegative,
    check_whole,
    public,
    scalar_or_array,
)
from .collectives import collective_time

__all__ = [
    "multiring_allreduce_time",
    "hierarchical_allreduce_time",
]


def _cluster(nbytes, nodes, per_node, alpha_intra, beta_intra, alpha_inter, beta_inter, gamma, nics,
             ports_shared=False):
    """Check a cluster's parameters up front and broadcast them together (nics defaults to per_node).

    With ``ports_shared`` the node's ``per_node`` devices share its ``nics`` ports evenly, so ``nics``
    must divide ``per_node``."""
    values = {
        "nbytes": check_nonnegative("nbytes", nbytes),
        "nodes": check_whole("nodes", nodes),
        "per_node": check_whole("per_node", per_node),
        "alpha_intra": check_nonnegative("alpha_intra", alpha_intra),
        "beta_intra": check_nonnegative("beta_intra", beta_intra),
        "alpha_inter": check_nonnegative("alpha_inter", alpha_inter),
        "beta_inter": check_nonnegative("beta_inter", beta_inter),
        "gamma": check_nonnegative("gamma", gamma),
    }
    values["nics"] = values["per_node"] if nics is None else check_whole("nics", nics)
    out = dict(zip(values, check_broadcast(**values)))
    too_many = out["nics"] > out["per_node"]
    if too_many.any():
        k, g = out["nics"][too_many].flat[0], out["per_node"][too_many].flat[0]
        raise ValueError(f"nics must be a whole number from 1 to per_node (one network port per device at most); "
                         f"got {k:g} with per_node = {g:g}")
    if ports_shared:
        uneven = np.mod(out["per_node"], out["nics"]) != 0
        if uneven.any():
            k, g = out["nics"][uneven].flat[0], out["per_node"][uneven].flat[0]
            raise ValueError(f"nics must be a divisor of per_node (the node's devices share its ports evenly); "
                             f"got {k:g} with per_node = {g:g}")
    return out, tuple(values.values())


@public
def multiring_allreduce_time(nbytes, nodes, per_node, alpha_intra, beta_intra, alpha_inter, beta_inter,
                             gamma=0.0, nics=None):
    r"""Flat ring all-reduce over ``nodes`` nodes of ``per_node`` devices, rings laid out node by node.

    Each ring visits the ``g`` devices of a node over the fast links inside
    it and crosses to the next node once, so only one hop per node and ring
    uses the network. ``k`` rings run side by side, one per network port of a
    node, each carrying ``n/k`` of the buffer; this is how NCCL lays out its
    rings on a cluster. All ``p = m g`` devices take part in every ring, so it
    is a ring all-reduce of :func:`collective_time` with ``2(p-1)`` steps of a
    chunk of ``n/(k p)`` bytes. A step lasts as long as its slowest hop:

    .. math::
        T = 2(p-1)\,\alpha_\text{step}
            + 2\frac{p-1}{p}\,\frac{n}{k}\,\max(\beta_o,\; c\,\beta_i)
            + \frac{p-1}{p}\,n\gamma

    where ``alpha_step`` is the larger of the two latencies, ``beta_o`` the
    network's time per byte (one port per ring), and ``c`` the number of the
    rings' chunks the busiest device pushes through its own fast link in one
    step: ``min(k, g-1)`` (a device where a ring leaves the node sends that
    ring's chunk over the network instead). With one node there is no network
    hop and the rings share each device's link: ``T`` is the ring all-reduce
    over ``g`` devices at ``alpha_intra`` and ``beta_intra``.

    Parameters
    ----------
    nbytes : float or array_like
        Buffer size n on each device, >= 0.
    nodes : int or array_like
        Nodes m, whole >= 1.
    per_node : int or array_like
        Devices per node g, whole >= 1.
    alpha_intra, beta_intra : float or array_like
        Latency (s) and time per byte (s/B) of each device's link inside a
        node, >= 0.
    alpha_inter, beta_inter : float or array_like
        The same for one network port, >= 0.
    gamma : float or array_like, optional
        Seconds per byte reduced, >= 0 (default 0).
    nics : int or array_like, optional
        Network ports per node k, whole from 1 to ``per_node``; one ring
        per port, so ``k`` need not divide ``per_node``. Default
        ``per_node`` (a port per device).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        A value out of range, ``nics`` > ``per_node``, or shapes that do not
        broadcast together.

    See Also
    --------
    hierarchical_allreduce_time : the same cluster, reducing inside the nodes first.

    Examples
    --------
    Four nodes of eight GPUs, NVLink at 450 GB/s inside, one 50 GB/s port per GPU:

    >>> t = multiring_allreduce_time(1e9, 4, 8, 0.0, 1 / 450e9, 0.0, 1 / 50e9)
    >>> round(t * 1e3, 2)                    # 2 (p-1)/p (n/8) / 50 GB/s
    4.84
    >>> round(multiring_allreduce_time(1e9, 4, 8, 0.0, 1 / 450e9, 0.0, 1 / 50e9, nics=1) * 1e3, 2)
    38.75
    """
    v, inputs = _cluster(nbytes, nodes, per_node, alpha_intra, beta_intra, alpha_inter, beta_inter, gamma, nics)
    n, m, g, k = v["nbytes"], v["nodes"], v["per_node"], v["nics"]
    p = m * g
    one_node = m == 1
    chunks = np.where(one_node, k, np.minimum(k, g - 1.0))       # chunks per step on the busiest device's link
    beta_step = np.where(one_node, k * v["beta_intra"], np.maximum(v["beta_inter"], chunks * v["beta_intra"]))
    alpha_step = np.where(one_node, v["alpha_intra"],
                          np.where(g > 1, np.maximum(v["alpha_intra"], v["alpha_inter"]), v["alpha_inter"]))
    f = (p - 1.0) / p
    total = 2.0 * (p - 1.0) * alpha_step + 2.0 * f * (n / k) * beta_step + f * n * v["gamma"]
    return scalar_or_array(total, *inputs)


@public
def hierarchical_allreduce_time(nbytes, nodes, per_node, alpha_intra, beta_intra, alpha_inter, beta_inter,
                                gamma=0.0, nics=None):
    r"""All-reduce over ``nodes`` nodes of ``per_node`` devices, in three ring phases, one after another.

    1. Reduce-scatter inside each node over the fast links: each device ends
       with a reduced ``1/g`` of the buffer.
    2. All-reduce of those shares across the nodes over the network, one ring
       per device position; the ``g`` rings share the node's ``k`` network
       ports, so each port carries ``n/k`` bytes of them.
    3. All-gather inside each node.

    .. math::
        T = T_\text{RS}(n, g; \alpha_i, \beta_i)
            + 2(m-1)\,\alpha_o + 2\frac{m-1}{m}\,\frac{n}{k}\,\beta_o + \frac{m-1}{m}\,\frac{n}{g}\,\gamma
            + T_\text{AG}(n, g; \alpha_i, \beta_i)

    for ``g`` devices per node, ``m`` nodes and ``k`` network ports per node,
    the inside terms being the ring costs of :func:`collective_time`. The
    network carries ``2(m-1)/m`` bytes per byte of ``n/k`` where a flat
    node-ordered ring (:func:`multiring_allreduce_time`) carries ``2(p-1)/p``,
    and ``2(m-1) + 2(g-1)`` latencies replace ``2(p-1)``; but the phases are
    not overlapped, so the time inside the nodes adds to the network's.

    Parameters
    ----------
    nbytes : float or array_like
        Buffer size n on each device, >= 0.
    nodes : int or array_like
        Nodes m, whole >= 1.
    per_node : int or array_like
        Devices per node g, whole >= 1.
    alpha_intra, beta_intra : float or array_like
        Latency (s) and time per byte (s/B) of the links inside a node, >= 0.
    alpha_inter, beta_inter : float or array_like
        The same for one network port between nodes, >= 0.
    gamma : float or array_like, optional
        Seconds per byte reduced, >= 0 (default 0).
    nics : int or array_like, optional
        Network ports per node k, a whole number from 1 to ``per_node`` that
        divides it: the ``g`` rings of phase 2 share the ports evenly,
        ``g/k`` to a port. Default ``per_node``: one port per device, so the
        rings run at once, each on its own port.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        A value out of range, ``nics`` > ``per_node``, ``nics`` that does not
        divide ``per_node`` (with 3 ports for 8 devices the busiest port would
        carry three rings' ``3n/8``, not ``n/3``), or shapes that do not
        broadcast together.

    See Also
    --------
    multiring_allreduce_time : the flat ring over the same cluster.

    Examples
    --------
    >>> t = hierarchical_allreduce_time(1e9, 4, 8, 0.0, 1 / 450e9, 0.0, 1 / 50e9)
    >>> round(t * 1e3, 2)      # ms, with NVLink inside the nodes and a 50 GB/s port per GPU
    7.64
    >>> round(hierarchical_allreduce_time(1e9, 4, 8, 0.0, 1 / 450e9, 0.0, 1 / 50e9, nics=1) * 1e3, 2)
    33.89
    >>> hierarchical_allreduce_time(1e9, 4, 8, 0.0, 1 / 450e9, 0.0, 1 / 50e9, nics=3)
    Traceback (most recent call last):
        ...
    ValueError: nics must be a divisor of per_node (the node's devices share its ports evenly); got 3 with per_node = 8
    """
    v, inputs = _cluster(nbytes, nodes, per_node, alpha_intra, beta_intra, alpha_inter, beta_inter, gamma, nics,
                         ports_shared=True)
    n, m, g, k = v["nbytes"], v["nodes"], v["per_node"], v["nics"]
    inside_rs = collective_time("reduce_scatter", n, g, v["alpha_intra"], v["beta_intra"], v["gamma"])
    across = (collective_time("allreduce", n / k, m, v["alpha_inter"], v["beta_inter"])
              + collective_time("allreduce", n / g, m, 0.0, 0.0, v["gamma"]))
    inside_ag = collective_time("allgather", n, g, v["alpha_intra"], v["beta_intra"])
    total = np.asarray(inside_rs) + np.asarray(across) + np.asarray(inside_ag)
    return scalar_or_array(total, *inputs)
