r"""Where the GPUs of a training cluster go, and what each choice costs (Sections 3.3 and 3.9).

A transformer training run splits its GPUs three ways: tensor parallelism (TP,
inside a node, where the links are fastest), pipeline parallelism (PP, across
nodes) and data parallelism (DP, outermost). Scaling efficiency is written, as
in the seed lesson on the scaling ceiling, as

.. math:: E = \frac{1}{1 + \text{comm\_fraction}}

where the communication fraction is the time spent on work that does not
shrink as GPUs are added, divided by the compute time. Here it has two parts:

* tensor-parallel all-reduces, four per layer per micro-batch (two forward,
  two backward) of ``b*s*h`` activations each, against ``72*b*s*h**2`` FLOPs of
  layer compute split ``t`` ways (Narayanan et al. 2021). With a ring
  all-reduce over ``t`` GPUs this gives

  .. math:: \frac{T_\text{TP comm}}{T_\text{compute}} = \frac{2}{9}\,(t - 1)\,\frac{X}{\beta^{-1} h}

  for achieved FLOP/s X, link bandwidth :math:`\beta^{-1}` (bytes/s each way)
  and hidden size h: wider models pay less;
* the pipeline bubble, (p - 1)/m for p stages and m micro-batches per replica.

The data-parallel gradient all-reduce is taken to hide behind the backward pass.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import (
    check_broadcast,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_whole,
    scalar_or_array,
)
from .batchsize import data_parallel_cap
from .memory import devices_to_hold

__all__ = [
    "scaling_efficiency",
    "pipeline_bubble_fraction",
    "tensor_parallel_comm_fraction",
    "hidden_size_for",
    "Layout",
    "parallel_layout",
    "layout_sweep",
    "A100_ACHIEVED_FLOPS",
    "A100_NVLINK_BANDWIDTH",
]

#: Sustained (not peak) per-GPU throughput used by default: about half of the
#: A100's 312 TFLOP/s dense BF16 peak, the level Megatron-LM reports (138-163 TFLOP/s).
A100_ACHIEVED_FLOPS = 150e12
#: NVLink 3 on an A100 SXM: 600 GB/s in total, 300 GB/s in each direction.
A100_NVLINK_BANDWIDTH = 300e9


def scaling_efficiency(comm_fraction):
    r"""Scaling efficiency from the communication fraction: the speedup got over the speedup paid for.

    .. math:: E = \frac{1}{1 + \text{comm\_fraction}}

    Parameters
    ----------
    comm_fraction : float or array_like
        Non-overlapped communication (or other non-shrinking) time divided by
        compute time, >= 0.

    Returns
    -------
    float or numpy.ndarray
        Efficiency in (0, 1].

    Examples
    --------
    >>> scaling_efficiency(0.25)
    0.8
    >>> scaling_efficiency([0.0, 1.0])
    array([1. , 0.5])
    """
    cf = check_nonnegative("comm_fraction", comm_fraction)
    return scalar_or_array(1.0 / (1.0 + cf), cf)


def pipeline_bubble_fraction(stages, microbatches):
    r"""Idle time of a synchronous pipeline relative to its useful time.

    .. math:: \frac{p - 1}{m}

    for p stages and m micro-batches per optimizer step (GPipe and 1F1B schedules).

    Parameters
    ----------
    stages : int or array_like
        Pipeline stages p, whole >= 1.
    microbatches : int or array_like
        Micro-batches m per step, whole >= 1.

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    D. Narayanan et al., the Megatron-LM training paper, SC 2021, arXiv:2104.04473
    (``narayanan2021efficient`` in the book's bibliography).

    Examples
    --------
    >>> pipeline_bubble_fraction(8, 32)
    0.21875
    >>> pipeline_bubble_fraction(1, 1)
    0.0
    """
    p = check_whole("stages", stages)
    m = check_whole("microbatches", microbatches)
    pb, mb = check_broadcast(stages=p, microbatches=m)
    return scalar_or_array((pb - 1.0) / mb, p, m)


def tensor_parallel_comm_fraction(tp, hidden, achieved_flops=A100_ACHIEVED_FLOPS, link_bandwidth=A100_NVLINK_BANDWIDTH):
    r"""Tensor-parallel communication time as a fraction of layer compute time.

    .. math:: \frac{2}{9}\,(t - 1)\,\frac{X}{B_\text{link}\,h}

    (the derivation is in the module text).

    Parameters
    ----------
    tp : int or array_like
        Tensor-parallel degree t, whole >= 1.
    hidden : float or array_like
        Hidden size h of the transformer, > 0.
    achieved_flops : float or array_like, optional
        Sustained FLOP/s per GPU, > 0.
    link_bandwidth : float or array_like, optional
        Bytes per second each way on the links the all-reduce uses, > 0.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(tensor_parallel_comm_fraction(8, 12288), 4)
    0.0633
    >>> round(tensor_parallel_comm_fraction(8, 12288, link_bandwidth=25e9), 3)   # across InfiniBand
    0.76
    """
    t = check_whole("tp", tp)
    h = check_positive("hidden", hidden)
    x = check_positive("achieved_flops", achieved_flops)
    bw = check_positive("link_bandwidth", link_bandwidth)
    tb, hb, xb, bwb = check_broadcast(tp=t, hidden=h, achieved_flops=x, link_bandwidth=bw)
    return scalar_or_array(2.0 / 9.0 * (tb - 1.0) * xb / (bwb * hb), t, h, x, bw)


def hidden_size_for(n_params, aspect_ratio=128.0):
    r"""Hidden size of a GPT-style model of a given size, for a fixed width-to-depth ratio.

    A transformer layer holds about :math:`12h^2` parameters, so
    :math:`N \approx 12 L h^2`; with :math:`L = h / a` layers,

    .. math:: h = \left(\frac{a N}{12}\right)^{1/3}.

    GPT-3 175B (h = 12288, L = 96) has a = 128.

    Parameters
    ----------
    n_params : float or array_like
        Parameters N, > 0.
    aspect_ratio : float, optional
        h / L, > 0 (default 128).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(hidden_size_for(175e9))
    12313
    """
    n = check_positive("n_params", n_params)
    a = check_positive("aspect_ratio", aspect_ratio)
    nb, ab = check_broadcast(n_params=n, aspect_ratio=a)
    return scalar_or_array(np.cbrt(ab * nb / 12.0), n, a)


class Layout(NamedTuple):
    """One cluster split into data, tensor and pipeline parallelism, and what it costs."""

    n_gpus: int
    fits: bool  #: False when the cluster is too small to hold the model at all
    dp: int
    tp: int
    pp: int
    microbatches: int
    dp_cap: int
    tp_fraction: float
    bubble_fraction: float
    efficiency: float


def _next_power_of_two(x: int) -> int:
    return 1 << max(0, int(np.ceil(np.log2(max(x, 1)))))


def parallel_layout(
    n_gpus,
    n_params,
    global_batch_tokens,
    critical_batch_tokens,
    *,
    seq_len=2048,
    micro_batch=1,
    gpus_per_node=8,
    device_memory_bytes=80e9,
    bytes_per_param="train_mixed_adam",
    usable_fraction=0.8,
    achieved_flops=A100_ACHIEVED_FLOPS,
    link_bandwidth=A100_NVLINK_BANDWIDTH,
):
    r"""Split a cluster the Megatron way and return the split and its scaling efficiency.

    The steps, each a rule from the text of Section 3.3:

    1. The run trains with ``B = min(global_batch_tokens, critical_batch_tokens)``
       tokens per step: past the critical batch, more tokens per step buy
       almost no progress.
    2. The model needs at least ``mp_fit`` GPUs to hold its state
       (:func:`devices_to_hold`, rounded up to a power of two).
    3. Data parallelism is cheap and goes outermost, up to the cap
       ``B / (micro_batch * seq_len)`` (:func:`data_parallel_cap`) and up to
       ``n_gpus / mp_fit``; every other GPU goes to model parallelism.
    4. Model parallelism fills a node with tensor parallelism first
       (up to ``gpus_per_node``), then adds pipeline stages across nodes.
    5. Each replica runs ``m = B / (dp * micro_batch * seq_len)`` micro-batches per step.

    Efficiency is ``1 / (1 + tp_fraction + (pp - 1) / m)``.

    Parameters
    ----------
    n_gpus : int
        GPUs in the cluster, a power of two >= 1.
    n_params : float
        Model parameters, > 0.
    global_batch_tokens : float
        The batch the run would like to use, in tokens per step, > 0.
    critical_batch_tokens : float
        The critical batch size in tokens, > 0.
    seq_len, micro_batch, gpus_per_node : int, optional
        Sequence length, sequences per micro-batch, GPUs per NVLink node.
    device_memory_bytes, bytes_per_param, usable_fraction : optional
        Passed to :func:`devices_to_hold`.
    achieved_flops, link_bandwidth : float, optional
        Passed to :func:`tensor_parallel_comm_fraction`.

    Returns
    -------
    Layout
        ``fits`` is False (and the efficiency NaN) when ``n_gpus < mp_fit``.

    Examples
    --------
    >>> lay = parallel_layout(1024, 13e9, 4e6, 4e6)
    >>> (lay.dp, lay.tp, lay.pp, lay.microbatches)
    (256, 4, 1, 7)
    >>> round(lay.efficiency, 3)
    0.939
    """
    g = int(check_whole("n_gpus", n_gpus))
    if g & (g - 1):
        raise ValueError(f"n_gpus must be a power of two (1, 2, 4, ...); got {g}")
    n = float(check_positive("n_params", n_params))
    batch = float(check_positive("global_batch_tokens", global_batch_tokens))
    crit = float(check_positive("critical_batch_tokens", critical_batch_tokens))
    s = int(check_whole("seq_len", seq_len))
    mb = int(check_whole("micro_batch", micro_batch))
    node = int(check_whole("gpus_per_node", gpus_per_node))
    check_fraction("usable_fraction", usable_fraction, open_low=True)

    run_batch = min(batch, crit)
    mp_fit = _next_power_of_two(devices_to_hold(n, bytes_per_param, device_memory_bytes, usable_fraction))
    cap = max(1, data_parallel_cap(run_batch, mb, 1, s))
    hidden = float(hidden_size_for(n))
    if g < mp_fit:
        nan = float("nan")
        return Layout(g, False, 0, 0, 0, 0, cap, nan, nan, nan)
    dp = max(1, min(g // mp_fit, 1 << int(np.floor(np.log2(cap)))))
    mp = g // dp
    tp = min(mp, node)
    pp = mp // tp
    micro = max(1, int(run_batch // (dp * mb * s)))
    tp_frac = float(tensor_parallel_comm_fraction(tp, hidden, achieved_flops, link_bandwidth))
    bubble = float(pipeline_bubble_fraction(pp, micro))
    eff = float(scaling_efficiency(tp_frac + bubble))
    return Layout(g, True, dp, tp, pp, micro, cap, tp_frac, bubble, eff)


def layout_sweep(n_gpus, n_params, global_batch_tokens, critical_batch_tokens, **kwargs):
    """Run :func:`parallel_layout` over a list of cluster sizes; return each field as an array.

    Parameters
    ----------
    n_gpus : array_like of int
        Cluster sizes, each a power of two.
    n_params, global_batch_tokens, critical_batch_tokens, **kwargs
        As in :func:`parallel_layout`.

    Returns
    -------
    dict of str to numpy.ndarray
        One array per :class:`Layout` field, plus ``"throughput"``: useful GPUs,
        ``n_gpus * efficiency`` (0 where the model does not fit).

    Examples
    --------
    >>> sweep = layout_sweep([8, 64, 512], 1.3e9, 1e6, 1e6)
    >>> sweep["dp"]
    array([  8,  64, 256])
    """
    sizes = check_whole("n_gpus", n_gpus)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError("n_gpus must be a non-empty one-dimensional list of cluster sizes")
    rows = [
        parallel_layout(int(g), n_params, global_batch_tokens, critical_batch_tokens, **kwargs)
        for g in sizes
    ]
    out = {field: np.array([getattr(r, field) for r in rows]) for field in Layout._fields}
    out["throughput"] = np.where(out["fits"], out["n_gpus"] * np.nan_to_num(out["efficiency"]), 0.0)
    return out
