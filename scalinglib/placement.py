r"""What each kind of parallelism sends per training step, and so where it can live (Section 3.2).

A transformer training step on ``tp * pp * dp`` GPUs (tensor, pipeline and
data parallelism, as in Megatron-LM, Narayanan et al. 2021) moves three kinds
of traffic. With micro-batches of ``b`` sequences of ``L`` tokens, hidden size
``h`` and ``v`` bytes per value, one activation tensor holds
:math:`a = v\,b\,L\,h` bytes, and per GPU per step:

* **tensor parallelism** all-reduces a layer's activations four times per
  micro-batch (twice in the forward pass, twice in the backward pass); a ring
  all-reduce over ``t`` GPUs sends :math:`2(t-1)/t` of the data from each GPU.
  Over ``m`` micro-batches and the :math:`n_\text{layers}/p` layers of a stage:

  .. math:: \text{TP bytes} = m \cdot \frac{n_\text{layers}}{p} \cdot 4 \cdot \frac{2(t-1)}{t}\, a

* **pipeline parallelism** passes one activation forward and one gradient
  backward across each stage boundary per micro-batch, split over the ``t``
  GPUs of the stage (Megatron's scatter-gather optimization):
  :math:`\text{PP bytes} = 2 m a / t` (zero with one stage);
* **data parallelism** all-reduces the GPU's share of the gradients once per
  step, :math:`\frac{2(d-1)}{d} \cdot \frac{v N}{t p}` bytes with a ring.

The compute they share is :math:`6 N` FLOPs per token, so
:math:`6 N \cdot m b L / (t p)` per GPU per step (no recomputation, attention
FLOPs left out), as in :mod:`scalinglib.layout`.

The frequencies differ as much as the volumes: tensor-parallel all-reduces sit
between the matrix multiplies of every layer and cannot be hidden; pipeline
sends are point-to-point, once per micro-batch; the data-parallel all-reduce
happens once per step and can overlap the backward pass.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_broadcast,
    check_nonnegative,
    check_positive,
    check_whole,
    public,
    scalar_or_array,
    single,
    single_whole,
)
from .comm import multiring_allreduce_time

__all__ = ["step_traffic", "tensor_parallel_ring_fraction"]


@public
def step_traffic(n_params, n_layers, hidden, *, seq_len=2048, micro_batch=1, microbatches=1, tp=1, pp=1, dp=1,
                 bytes_per_value=2.0):
    r"""Bytes each GPU sends per training step for tensor, pipeline and data parallelism, and its FLOPs.

    The formulas are in the module documentation.

    Parameters
    ----------
    n_params : float
        Parameters N, > 0.
    n_layers : int
        Transformer layers, whole >= 1, divisible by ``pp``.
    hidden : float
        Hidden size h, > 0.
    seq_len, micro_batch, microbatches : int, optional
        Tokens per sequence L, sequences per micro-batch b, micro-batches per
        step m (each whole >= 1; defaults 2048, 1, 1).
    tp, pp, dp : int, optional
        Tensor-parallel, pipeline and data-parallel degrees t, p, d (whole >= 1).
    bytes_per_value : float, optional
        Bytes per activation or gradient value, > 0 (default 2: bf16).

    Returns
    -------
    dict
        ``"tp"``, ``"pp"``, ``"dp"``: bytes sent per GPU per step;
        ``"flops"``: FLOPs per GPU per step.

    Raises
    ------
    TypeError
        An array or list given for any argument: each takes one number (one layout at a time).
    ValueError
        A value out of its range, or ``pp`` not dividing ``n_layers``.

    Examples
    --------
    >>> t = step_traffic(175e9, 96, 12288, microbatches=32, tp=8, pp=8, dp=16)
    >>> {k: round(v / 1e9, 1) for k, v in t.items() if k != "flops"}      # GB per GPU per step
    {'tp': 135.3, 'pp': 0.4, 'dp': 10.3}
    >>> round(t["flops"] / 150e12, 2)      # seconds of compute at 150 TFLOP/s
    7.17
    """
    n = single(check_positive, "n_params", n_params)
    layers = single_whole("n_layers", n_layers)
    h = single(check_positive, "hidden", hidden)
    seq = single_whole("seq_len", seq_len)
    b = single_whole("micro_batch", micro_batch)
    m = single_whole("microbatches", microbatches)
    t = single_whole("tp", tp)
    p = single_whole("pp", pp)
    d = single_whole("dp", dp)
    v = single(check_positive, "bytes_per_value", bytes_per_value)
    if layers % p:
        raise ValueError(f"pp must divide n_layers ({layers}) so that every stage has whole layers; got {p}")
    activation = v * b * seq * h
    tp_bytes = m * (layers / p) * 4 * 2 * (t - 1) / t * activation
    pp_bytes = 2 * m * activation / t if p > 1 else 0.0
    dp_bytes = 2 * (d - 1) / d * v * n / (t * p)
    flops = 6 * n * m * b * seq / (t * p)
    return {"tp": float(tp_bytes), "pp": float(pp_bytes), "dp": float(dp_bytes), "flops": float(np.float64(flops))}


@public
def tensor_parallel_ring_fraction(tp, hidden, achieved_flops, intra_bandwidth, network_bandwidth, *,
                                  gpus_per_node=8, alpha=0.0, tokens=2048, bytes_per_value=2.0):
    r"""Tensor-parallel communication fraction with the all-reduces laid out as node-ordered rings.

    :func:`scalinglib.layout.tensor_parallel_comm_fraction` prices every
    all-reduce at one link's time per byte :math:`\beta_\text{link}`; given a
    network port's, that is the worst case, every hop of every ring on the
    network. A group of ``tp`` GPUs spread over servers of ``gpus_per_node``
    does better when its rings run node by node, one ring per network port (a
    port per GPU), as NCCL lays them out (:func:`scalinglib.comm.multiring_allreduce_time`,
    Section 3.8.8): each ring crosses the network once per server, and the
    rings share the bytes. Per layer and micro-batch of ``tokens`` tokens, the
    four all-reduces of :math:`n = v\,\text{tokens}\,h` bytes take
    :math:`4\,T_\text{ring}(n)` against :math:`72\,\text{tokens}\,h^2/(t X)`
    seconds of compute, so

    .. math:: \rho = \frac{4\,T_\text{ring}(n)}{72\,\text{tokens}\,h^2/(t X)} .

    Inside one server (``tp <= gpus_per_node``) and with ``alpha = 0`` it is
    the formula's :math:`\frac{2}{9}(t-1)X\beta_\text{link}/h` on the server's
    links; across servers, while the network hop sets the pace, it is that
    formula on the network divided by the number of ports per server. The
    latency ``alpha`` is paid at each of the ring's :math:`2(t-1)` steps and
    does not cancel: it makes the result depend on ``tokens``.

    Parameters
    ----------
    tp : int or array_like
        Tensor-parallel degree t, whole >= 1; above ``gpus_per_node`` a
        multiple of it (whole servers).
    hidden : float or array_like
        Hidden size h, > 0.
    achieved_flops : float or array_like
        Sustained FLOP/s per GPU X, > 0.
    intra_bandwidth, network_bandwidth : float or array_like
        Bytes per second each way of a GPU's link inside the server and of one
        network port, > 0.
    gpus_per_node : int, optional
        GPUs per server, each with its own network port, whole >= 1 (default 8).
    alpha : float, optional
        Seconds per ring step on either kind of link, >= 0 (default 0, as in
        the bandwidth-only formula).
    tokens : float, optional
        Tokens per micro-batch, b L, > 0 (default 2048); matters only when
        ``alpha`` > 0.
    bytes_per_value : float, optional
        Bytes per activation value, > 0 (default 2: bf16).

    Returns
    -------
    float or numpy.ndarray
        :math:`\rho`; the efficiency is :math:`1/(1 + \rho)`.

    Raises
    ------
    TypeError
        An array for ``gpus_per_node``, ``alpha``, ``tokens`` or ``bytes_per_value``.
    ValueError
        A value out of range, or a degree above ``gpus_per_node`` that is not a
        multiple of it.

    Examples
    --------
    GPT-3's width on A100s: NVLink 3 at 300 GB/s, one HDR port at 25 GB/s per GPU.

    >>> rho = tensor_parallel_ring_fraction([8, 16], 12288, 150e12, 300e9, 25e9)
    >>> [round(float(1 / (1 + r)), 2) for r in rho]                  # efficiency; worst case at 16: 0.38
    [0.94, 0.83]
    >>> r16 = tensor_parallel_ring_fraction(16, 12288, 150e12, 300e9, 25e9, alpha=5e-6)
    >>> round(1 / (1 + r16), 2)                                      # 5 us per ring step
    0.79
    """
    t = check_whole("tp", tp)
    h = check_positive("hidden", hidden)
    x = check_positive("achieved_flops", achieved_flops)
    bw_in = check_positive("intra_bandwidth", intra_bandwidth)
    bw_out = check_positive("network_bandwidth", network_bandwidth)
    g = single_whole("gpus_per_node", gpus_per_node)
    a = single(check_nonnegative, "alpha", alpha)
    n_tok = single(check_positive, "tokens", tokens)
    v = single(check_positive, "bytes_per_value", bytes_per_value)
    tb, hb, xb, inb, outb = check_broadcast(tp=t, hidden=h, achieved_flops=x, intra_bandwidth=bw_in,
                                            network_bandwidth=bw_out)
    ragged = (tb > g) & (tb % g != 0)
    if ragged.any():
        raise ValueError(f"tp above gpus_per_node ({g}) must be a multiple of it (whole servers); "
                         f"got {int(tb[ragged].flat[0])}")
    nodes = np.maximum(tb // g, 1)
    per_node = np.minimum(tb, g)
    ring = multiring_allreduce_time(v * n_tok * hb, nodes, per_node, a, 1.0 / inb, a, 1.0 / outb,
                                    nics=per_node)
    compute = 72.0 * n_tok * hb**2 / (tb * xb)
    return scalar_or_array(4.0 * ring / compute, t, h, x, bw_in, bw_out)
