r"""Where the GPUs of a training cluster go, and what each choice costs (Sections 3.2, 3.3, 3.8 and 3.9).

A transformer training run splits its GPUs three ways: tensor parallelism (TP,
inside a node, where the links are fastest), pipeline parallelism (PP, across
nodes) and data parallelism (DP, outermost). If each step spends ``T_c`` computing
and ``T_x`` on communication (or idling) that adding GPUs does not shrink, the
useful share of the step is ``T_c / (T_c + T_x)``, that is

.. math:: E = \frac{1}{1 + \rho}, \qquad \rho = T_x / T_c,

the scaling efficiency, with :math:`\rho` the communication fraction. Here
:math:`\rho` has two parts.

Tensor parallelism over ``t`` GPUs all-reduces a layer's activations four times
per micro-batch (twice forward, twice backward); with ``b`` sequences of length
``L`` and hidden size ``h`` in 2-byte precision that is ``2 b L h`` bytes each. A
ring all-reduce moves ``2 (t-1)/t`` of that per GPU at link bandwidth
``B_link`` (bytes/s each way). The layer's forward and backward passes cost
``72 b L h**2`` FLOPs (Narayanan et al. 2021, without activation recomputation
and without the attention term ``L/(6h)``), split ``t`` ways and run at the
sustained rate ``X`` FLOP/s. The ratio is

.. math:: \rho_\text{TP} = \frac{16\,(t-1)\,b L h / (t\,B_\text{link})}{72\,b L h^2 / (t\,X)}
          = \frac{2}{9}\,(t - 1)\,\frac{X}{B_\text{link}\,h},

so wider models pay less. (With recomputation the forward pass runs twice:
six all-reduces against ``96 b L h**2`` FLOPs, a factor 1/4 in place of 2/9.)
The communication is assumed not to overlap with compute.

Pipeline parallelism over ``p`` stages with ``m`` micro-batches per step idles
for ``(p - 1)`` micro-batch slots out of ``m + p - 1``: :math:`\rho_\text{PP} = (p-1)/m`
(divided by v with v interleaved model chunks per device, :func:`pipeline_bubble_fraction`).
A slot lasts as long as one micro-batch's compute and its tensor-parallel traffic, so
the bubble scales the whole slot and the two overheads multiply:

.. math:: E = \frac{1}{(1 + \rho_\text{TP})(1 + \rho_\text{PP})}.

The data-parallel gradient all-reduce is taken to hide behind the backward pass,
so it adds nothing to :math:`\rho`. That holds only while each replica has enough
compute per step to cover it; Section 3.8.8 prices the exposed part, and where it is
not zero the efficiencies here are upper bounds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import (
    check_broadcast,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_whole,
    checked_record,
    public,
    scalar_or_array,
    single,
    single_whole,
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


@public
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


@public
def pipeline_bubble_fraction(stages, microbatches, chunks=1):
    r"""Idle time of a synchronous pipeline relative to its useful time.

    .. math:: \frac{p - 1}{v\,m}

    for p stages, m micro-batches per optimizer step and v model chunks per
    device. With v = 1 (the default) this is the GPipe and 1F1B schedules'
    :math:`(p-1)/m`. The interleaved 1F1B schedule of Narayanan et al. (2021)
    gives each device v chunks of layers instead of one contiguous stage, which
    divides the bubble by v at the price of v times as many stage-to-stage
    messages (not counted here). Their schedule takes m as a multiple of p, and
    v can be at most the layers per stage.

    Parameters
    ----------
    stages : int or array_like
        Pipeline stages p, whole >= 1.
    microbatches : int or array_like
        Micro-batches m per step, whole >= 1.
    chunks : int or array_like, optional
        Model chunks v per device (the interleaved schedule), whole >= 1; default 1.

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    Narayanan et al. (2021), the Megatron-LM paper at SC '21 (arXiv:2104.04473),
    section 2.2.2 (the interleaved schedule).

    Examples
    --------
    >>> pipeline_bubble_fraction(8, 32)
    0.21875
    >>> pipeline_bubble_fraction(1, 1)
    0.0
    >>> pipeline_bubble_fraction(4, 4, chunks=10)   # ten one-layer chunks per device
    0.075
    """
    p = check_whole("stages", stages)
    m = check_whole("microbatches", microbatches)
    v = check_whole("chunks", chunks)
    pb, mb, vb = check_broadcast(stages=p, microbatches=m, chunks=v)
    return scalar_or_array((pb - 1.0) / (vb * mb), p, m, v)


@public
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


@public
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


def _check_layout(lay) -> None:
    single_whole("n_gpus", lay.n_gpus)
    fits = check_flag("fits", lay.fits)
    for name in ("dp", "tp", "pp", "dp_cap"):
        single_whole(name, getattr(lay, name), minimum=1 if fits and name != "dp_cap" else 0)
    for name in ("microbatches", "layers", "min_gpus"):
        single_whole(name, getattr(lay, name))
    check_flag("batch_over_limit", lay.batch_over_limit)
    for name, check, options in (("batch_tokens", check_positive, {}), ("tp_fraction", check_nonnegative, {}),
                                 ("bubble_fraction", check_nonnegative, {}),
                                 ("efficiency", check_fraction, {"open_low": True})):
        value = getattr(lay, name)
        if not fits and isinstance(value, float) and value != value:     # NaN: no layout
            continue
        single(check, name, value, **options)


@checked_record(_check_layout)
class Layout(NamedTuple):
    """One cluster split into data, tensor and pipeline parallelism, and what it costs.

    Its fields are checked when it is made: counts are whole numbers, the batch, fractions and
    efficiency finite (NaN only when ``fits`` is False).
    """

    n_gpus: int
    #: False when the model cannot be laid out on this cluster: too few GPUs to hold it
    #: (``n_gpus < min_gpus``), or the split would need more pipeline stages than it has layers
    fits: bool
    dp: int
    tp: int
    pp: int
    microbatches: int  #: micro-batches per replica per step (m)
    dp_cap: int  #: the most replicas the critical batch (or the target batch) allows
    batch_tokens: float  #: the global batch the run uses, tokens per step
    tp_fraction: float
    bubble_fraction: float
    efficiency: float
    layers: int  #: the model's layers, the most pipeline stages it can be cut into
    min_gpus: int  #: the fewest GPUs that hold the model (a power of two)
    #: True when a single replica's batch already exceeds the batch limit (``dp_cap == 0``):
    #: the layout still runs one replica, with a batch past the critical (or target) batch
    batch_over_limit: bool


#: Fields of a :class:`Layout` that are NaN when the model cannot be laid out (``fits`` False).
_UNFIT_FIELDS = ("batch_tokens", "tp_fraction", "bubble_fraction", "efficiency")


def _next_power_of_two(x: int) -> int:
    return 1 << max(0, int(np.ceil(np.log2(max(x, 1)))))


@public(allow_nan=_UNFIT_FIELDS)
def parallel_layout(
    n_gpus,
    n_params,
    global_batch_tokens,
    critical_batch_tokens,
    *,
    seq_len=2048,
    micro_batch=1,
    microbatches_per_stage=4,
    gpus_per_node=8,
    n_layers=None,
    device_memory_bytes=80e9,
    bytes_per_param="train_mixed_adam",
    usable_fraction=0.8,
    achieved_flops=A100_ACHIEVED_FLOPS,
    link_bandwidth=A100_NVLINK_BANDWIDTH,
):
    r"""Split a cluster the Megatron way and return the split and its scaling efficiency.

    The rules, each from the text of Section 3.3.7:

    1. The model needs at least ``mp_fit`` GPUs to hold its training state
       (:func:`devices_to_hold`, rounded up to a power of two); they are filled
       with tensor parallelism up to one node (``gpus_per_node``), then with
       pipeline stages ``p_fit``.
    2. Each replica runs ``m = microbatches_per_stage * p_fit`` micro-batches of
       ``micro_batch`` sequences per step (``m`` is the gradient-accumulation
       count), fixed by the pipeline the model needs to fit and kept when rule 4
       deepens the pipeline. Four per stage, the default, keep that pipeline's
       bubble below a quarter; a model with ``p_fit = 1`` gets four too, which
       spreads the gradient all-reduce over more compute but makes the cap four
       times smaller than one micro-batch would (``microbatches_per_stage=1``).
       This is a fixed policy, not a search for the best layout. A replica
       therefore adds ``r = micro_batch * m * seq_len`` tokens to every step.
    3. Data parallelism grows the global batch, one replica of ``r`` tokens at a
       time (weak scaling: each replica's work stays fixed), up to the cap
       ``min(global_batch_tokens, critical_batch_tokens) / r``
       (:func:`data_parallel_cap`), rounded down to a power of two. If even one
       replica's batch is past that limit (a cap of 0), the layout keeps one
       replica and sets ``batch_over_limit``.
    4. GPUs beyond ``mp_fit * dp`` deepen the model split of every replica:
       tensor parallelism up to a node, then more pipeline stages, with the
       same ``m`` micro-batches.
    5. A pipeline stage holds at least one layer, so ``pp`` may not exceed the
       model's layers :math:`\ell` (``n_layers``; by default
       :math:`h / 128` rounded, the width-to-depth ratio of
       :func:`hidden_size_for`). A cluster that would need more stages cannot be
       laid out: it is reported like one too small to hold the model.

    Efficiency is ``1 / ((1 + tp_fraction) (1 + (pp - 1) / m))``: the pipeline
    idles for whole micro-batch slots, each of which includes the slot's
    tensor-parallel traffic (Megatron-LM's bubble of ``(p - 1)(t_f + t_b)``), so
    the two overheads multiply rather than add. The data-parallel
    gradient all-reduce is assumed to hide behind the backward pass (see the
    module text), so the efficiency is an upper bound.

    Parameters
    ----------
    n_gpus : int
        GPUs in the cluster, a power of two >= 1 (one number, not a list: see
        :func:`layout_sweep`).
    n_params : float
        Model parameters, > 0.
    global_batch_tokens : float
        The largest batch the run is willing to use, in tokens per step, > 0.
    critical_batch_tokens : float
        The critical batch size in tokens, > 0.
    seq_len, micro_batch, microbatches_per_stage : int, optional
        Sequence length, sequences per micro-batch, micro-batches per pipeline
        stage of the fitted model, each whole >= 1.
    gpus_per_node : int, optional
        GPUs per NVLink node, a power of two (1, 2, 4, 8, ...), so that tensor
        parallelism divides the cluster exactly.
    n_layers : int, optional
        The model's layers, whole >= 1 (default: ``round(hidden_size_for(n_params) / 128)``).
    device_memory_bytes, bytes_per_param, usable_fraction : optional
        Passed to :func:`devices_to_hold`.
    achieved_flops, link_bandwidth : float, optional
        Passed to :func:`tensor_parallel_comm_fraction`.

    Returns
    -------
    Layout
        ``fits`` is False (``dp``, ``tp``, ``pp`` 0, the batch and efficiency NaN)
        when ``n_gpus < min_gpus`` or when the layout would need more than
        ``layers`` pipeline stages.

    Raises
    ------
    TypeError
        If ``n_gpus`` (or another size) is a list or array.
    ValueError
        If ``n_gpus`` or ``gpus_per_node`` is not a power of two, or any input is out of range.

    Examples
    --------
    >>> lay = parallel_layout(1024, 13e9, 4e6, 4e6)
    >>> (lay.dp, lay.tp, lay.pp, lay.microbatches, lay.batch_tokens)
    (256, 4, 1, 4, 2097152.0)
    >>> round(lay.efficiency, 3)
    0.939
    >>> lay.layers
    40

    One micro-batch per replica instead of the policy's four (the all-reduce still left out):

    >>> lay = parallel_layout(2048, 13e9, 4e6, 4e6, microbatches_per_stage=1)
    >>> (lay.dp, lay.tp, lay.microbatches, round(lay.efficiency, 3))
    (512, 4, 1, 0.939)

    GPT-3's 96 layers cannot fill 128 pipeline stages:

    >>> parallel_layout(8192, 175e9, 2e6, 2e6).pp
    64
    >>> parallel_layout(16384, 175e9, 2e6, 2e6).fits
    False
    """
    g = single_whole("n_gpus", n_gpus)
    if g & (g - 1):
        raise ValueError(f"n_gpus must be a power of two (1, 2, 4, ...); got {g}")
    n = single(check_positive, "n_params", n_params)
    batch = single(check_positive, "global_batch_tokens", global_batch_tokens)
    crit = single(check_positive, "critical_batch_tokens", critical_batch_tokens)
    s = single_whole("seq_len", seq_len)
    mb = single_whole("micro_batch", micro_batch)
    per_stage = single_whole("microbatches_per_stage", microbatches_per_stage)
    node = single_whole("gpus_per_node", gpus_per_node)
    if node & (node - 1):
        raise ValueError(f"gpus_per_node must be a power of two (1, 2, 4, 8, ...) so that tensor parallelism "
                         f"divides the cluster exactly; got {node}")
    single(check_fraction, "usable_fraction", usable_fraction, open_low=True)
    if not isinstance(bytes_per_param, str):       # a preset name is checked by devices_to_hold
        single(check_positive, "bytes_per_param", bytes_per_param)
    single(check_positive, "device_memory_bytes", device_memory_bytes)
    single(check_positive, "achieved_flops", achieved_flops)
    single(check_positive, "link_bandwidth", link_bandwidth)

    hidden = float(hidden_size_for(n))
    if n_layers is None:
        layers = max(1, int(round(hidden / 128.0)))
    else:
        layers = single_whole("n_layers", n_layers)
    mp_fit = _next_power_of_two(devices_to_hold(n, bytes_per_param, device_memory_bytes, usable_fraction))
    p_fit = max(1, mp_fit // node)
    m = per_stage * p_fit
    cap = data_parallel_cap(min(batch, crit), mb, m, s)
    over = cap == 0
    nan = float("nan")
    if g < mp_fit:
        return Layout(g, False, 0, 0, 0, m, cap, nan, nan, nan, nan, layers, mp_fit, over)
    dp_limit = 1 << int(np.floor(np.log2(cap))) if cap >= 1 else 1
    dp = max(1, min(g // mp_fit, dp_limit))
    mp = g // dp
    tp = min(mp, node)
    pp = mp // tp
    if pp > layers:
        return Layout(g, False, 0, 0, 0, m, cap, nan, nan, nan, nan, layers, mp_fit, over)
    tp_frac = float(tensor_parallel_comm_fraction(tp, hidden, achieved_flops, link_bandwidth))
    bubble = float(pipeline_bubble_fraction(pp, m))
    # The pipeline idles for whole micro-batch slots, and a slot includes its tensor-parallel traffic:
    # E = 1 / ((1 + rho_TP)(1 + rho_PP)), not 1 / (1 + rho_TP + rho_PP).
    eff = float(scaling_efficiency((1.0 + tp_frac) * (1.0 + bubble) - 1.0))
    return Layout(g, True, dp, tp, pp, m, cap, float(dp * mb * m * s), tp_frac, bubble, eff, layers, mp_fit, over)


@public(allow_nan=_UNFIT_FIELDS)
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
        ``n_gpus * efficiency`` (0 where the model cannot be laid out).

    Examples
    --------
    >>> sweep = layout_sweep([8, 64, 512], 1.3e9, 1e6, 1e6)
    >>> sweep["dp"]
    array([  8,  64, 64])
    >>> layout_sweep([4096, 8192, 16384], 175e9, 2e6, 2e6)["fits"]   # 128 stages > 96 layers
    array([ True,  True, False])
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
