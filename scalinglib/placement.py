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

from ._validate import check_positive, single, single_whole

__all__ = ["step_traffic"]


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
