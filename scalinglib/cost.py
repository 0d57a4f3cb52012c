r"""What a run costs: FLOPs, utilization, time and money (Section 3.9).

The letters follow the chapter's notation table: N parameters, :math:`\ell`
layers, L sequence length, K devices, P peak FLOP/s, X sustained FLOP/s,
:math:`D_\text{tok}` training tokens, U utilization; :math:`C_h` is
Section 3.9's price of one device-hour and :math:`C_\text{API}` an API's price
per million tokens.

**FLOPs per token.** A dense decoder-only transformer with N parameters
spends about 2N FLOPs per token in the forward pass (one multiply and one add
per weight) and twice that in the backward pass, so a training token costs

.. math:: C_\text{tok} = 6N + 12\,\ell\,a\,d_h\,L \quad [\text{FLOP/token}]

where the second term is the attention score and value products of
:math:`\ell` layers with a heads of size :math:`d_h` over sequences of L
tokens (Chowdhery et al. 2022, appendix B). This count is the *model* FLOPs:
activation recomputation, which runs parts of the forward pass again to save
memory, is not in it.

**Model FLOPs utilization (MFU)** compares what the run needed with what the
hardware could have done in the same time:

.. math:: \text{MFU} = \frac{R \cdot C_\text{tok}}{K P}

for a measured throughput of R tokens/s on K devices of peak rate P FLOP/s
each. The hardware FLOPs utilization (HFU) counts the recomputed FLOPs too and
is therefore larger for the same run.

**Training time.** Processing :math:`D_\text{tok}` tokens at a sustained X
FLOP/s per device takes :math:`6 N D_\text{tok} / (KX)` seconds; with full
activation recomputation the hardware executes a second forward pass, 8N per
token, and Narayanan et al. (2021) estimate :math:`8 N D_\text{tok} / (KX)`,
with X the rate *including* the recomputed FLOPs, which is what Megatron-LM
reports.

**Cost.** A device is billed by the hour whether or not it computes. With
price :math:`C_h` per device-hour, a throughput of :math:`R_\text{dev}` tokens/s
while busy and a utilization U (the share of paid hours it is busy),

.. math:: \text{cost per million tokens} = \frac{10^6\,C_h}{3600\,R_\text{dev}\,U},

so cost scales as 1/U: a 40% duty cycle costs 2.5 times the benchmark figure.
Self-hosting beats an API that charges :math:`C_\text{API}` per million
tokens once :math:`U > 10^6 C_h / (3600\,R_\text{dev}\,C_\text{API})`, the
break-even utilization.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ._validate import (
    as_count,
    check_broadcast,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_scalar,
    check_whole,
    checked_record,
    public,
    renamed,
    scalar_or_array,
    single,
    single_whole,
)
from .batchsize import examples_to_target
from .comm import multiring_allreduce_time
from .hardware import get_accelerator
from .layout import A100_ACHIEVED_FLOPS, A100_NVLINK_BANDWIDTH, Layout, hidden_size_for, layout_sweep, parallel_layout
from .roofline import decode_tokens_per_second

__all__ = [
    "SECONDS_PER_HOUR",
    "SECONDS_PER_DAY",
    "flops_per_token",
    "mfu",
    "training_time",
    "cost_per_million_tokens",
    "duty_cycle_cost_factor",
    "break_even_utilization",
    "devices_for_demand",
    "device_decode_rate",
    "max_decode_batch",
    "critical_batch_cost",
    "exposed_allreduce_fraction",
    "TrainingCost",
    "training_cost",
]

SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0


def _is_zero(value) -> bool:
    """True for the default 0 of an optional shape argument (a plain number, not a bool or an array)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == 0


@public
def flops_per_token(n_params, n_layers=0, n_heads=0, head_dim=0, seq_len=0):
    r"""Training FLOPs per token of a dense transformer: :math:`6N + 12\,\ell\,a\,d_h L`.

    The attention term is added when the model's shape is given (all four of
    ``n_layers``, ``n_heads``, ``head_dim`` and ``seq_len``); with none of them it is
    left out, giving the common :math:`6N`. This is the definition of model FLOPs
    used for MFU by Chowdhery et al. (2022): no activation recomputation, full
    (not causal-halved) attention.

    Parameters
    ----------
    n_params : float or array_like
        Parameters N, > 0.
    n_layers, n_heads, head_dim, seq_len : int or array_like, optional
        Layers :math:`\ell`, attention heads a, head size :math:`d_h` and
        sequence length L, whole numbers >= 1; give all four or none.

    Returns
    -------
    float or numpy.ndarray
        FLOPs per token.

    Raises
    ------
    ValueError
        Some but not all of the shape is given, or a value is out of range.

    References
    ----------
    Chowdhery et al. (2022), the PaLM paper (arXiv:2204.02311), appendix B.

    Examples
    --------
    >>> flops_per_token(175e9) / 1e12
    1.05
    >>> round(flops_per_token(540e9, 118, 48, 256, 2048) / 1e12, 4)   # PaLM 540B
    3.2756
    """
    n = check_positive("n_params", n_params)
    shape = {"n_layers": n_layers, "n_heads": n_heads, "head_dim": head_dim, "seq_len": seq_len}
    given = [name for name, value in shape.items() if not _is_zero(value)]
    if not given:
        return scalar_or_array(6.0 * n, n)
    if len(given) != len(shape):
        missing = [name for name in shape if name not in given]
        raise ValueError(
            "give all of n_layers, n_heads, head_dim and seq_len for the attention term, or none of them; "
            f"missing {', '.join(missing)}"
        )
    parts = [check_whole(name, value) for name, value in shape.items()]
    nb, lb, hb, qb, tb = check_broadcast(n_params=n, **dict(zip(shape, parts)))
    return scalar_or_array(6.0 * nb + 12.0 * lb * hb * qb * tb, n, *parts)


@public
def mfu(tokens_per_second, flops_per_token, n_devices, peak_flops_per_device):
    r"""Model FLOPs utilization: model FLOPs done per second over the peak of the devices.

    .. math:: \text{MFU} = \frac{R \cdot C_\text{tok}}{K P}

    Parameters
    ----------
    tokens_per_second : float or array_like
        Measured training throughput R of the whole run (all devices), tokens/s, > 0.
    flops_per_token : float or array_like
        Model FLOPs per token, > 0 (see :func:`flops_per_token`).
    n_devices : int or array_like
        Devices K, whole >= 1.
    peak_flops_per_device : float or array_like
        Dense peak P of one device at the run's precision, FLOP/s, > 0.

    Returns
    -------
    float or numpy.ndarray
        A fraction; above 1 means the inputs are inconsistent (a throughput the
        hardware cannot reach, or a sparse peak where a dense one belongs).

    Examples
    --------
    >>> round(mfu(238.3e3, flops_per_token(540e9), 6144, 275e12), 4)   # PaLM, without attention
    0.457
    """
    r = check_positive("tokens_per_second", tokens_per_second)
    c = check_positive("flops_per_token", flops_per_token)
    n = check_whole("n_devices", n_devices)
    p = check_positive("peak_flops_per_device", peak_flops_per_device)
    rb, cb, nb, pb = check_broadcast(tokens_per_second=r, flops_per_token=c, n_devices=n,
                                     peak_flops_per_device=p)
    return scalar_or_array(rb * cb / (nb * pb), r, c, n, p)


@public
def training_time(tokens, n_params, n_devices, flops_per_device, recompute=True):
    r"""Seconds to train on a number of tokens: :math:`8 N D_\text{tok}/(K X_\text{hw})`, or :math:`6 N D_\text{tok}/(K\,\text{MFU}\,P)`.

    With ``recompute=True`` every token costs 8N FLOPs (forward, backward, and
    the forward pass run again by activation recomputation) and ``flops_per_device``
    must be the rate that counts those recomputed FLOPs, as Megatron-LM reports
    it. With ``recompute=False`` a token costs 6N and ``flops_per_device`` is the
    model-FLOPs rate, MFU times peak.

    Parameters
    ----------
    tokens : float or array_like
        Training tokens :math:`D_\text{tok}`, > 0.
    n_params : float or array_like
        Parameters N, > 0.
    n_devices : int or array_like
        Devices K, whole >= 1.
    flops_per_device : float or array_like
        FLOP/s each device sustains over the whole run, overheads included, > 0: Megatron-LM's
        :math:`X_\text{hw}` with recomputation, or :math:`\text{MFU} \cdot P` without (not the capstone's
        :math:`X`, a rate before overheads).
    recompute : bool, optional
        Whether activations are recomputed (default True).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    References
    ----------
    Narayanan et al. (2021), the Megatron-LM paper at SC '21 (arXiv:2104.04473),
    equation (4).

    Examples
    --------
    >>> round(training_time(300e9, 175e9, 1024, 140e12) / SECONDS_PER_DAY, 1)   # GPT-3 on A100s
    33.9
    >>> round(training_time(300e9, 175e9, 1024, 140e12, recompute=False) / SECONDS_PER_DAY, 1)
    25.4
    """
    check_flag("recompute", recompute)
    t = check_positive("tokens", tokens)
    n = check_positive("n_params", n_params)
    k = check_whole("n_devices", n_devices)
    x = check_positive("flops_per_device", flops_per_device)
    tb, nb, kb, xb = check_broadcast(tokens=t, n_params=n, n_devices=k, flops_per_device=x)
    factor = 8.0 if recompute else 6.0
    return scalar_or_array(factor * tb * nb / (kb * xb), t, n, k, x)


@public
def cost_per_million_tokens(price_per_device_hour, tokens_per_second_per_device, utilization=1.0):
    r"""Dollars (or any currency) per million tokens from an hourly price, a throughput and a utilization.

    .. math:: \frac{10^6\,C_h}{3600\,R_\text{dev}\,U}

    The device is paid for every hour; it produces :math:`R_\text{dev}` tokens/s only during the
    share U of the hours in which it has work.

    Parameters
    ----------
    price_per_device_hour : float or array_like
        Price :math:`C_h` of one device for one hour, > 0.
    tokens_per_second_per_device : float or array_like
        Throughput :math:`R_\text{dev}` of one device while busy, tokens/s, > 0.
    utilization : float or array_like, optional
        Share U of paid hours the device is busy, in (0, 1] (default 1).

    Returns
    -------
    float or numpy.ndarray
        Price per million tokens.

    Examples
    --------
    >>> round(cost_per_million_tokens(2.0, 1000.0), 4)
    0.5556
    >>> round(cost_per_million_tokens(2.0, 1000.0, utilization=0.4), 4)
    1.3889
    """
    p = check_positive("price_per_device_hour", price_per_device_hour)
    r = check_positive("tokens_per_second_per_device", tokens_per_second_per_device)
    u = check_fraction("utilization", utilization, open_low=True)
    pb, rb, ub = check_broadcast(price_per_device_hour=p, tokens_per_second_per_device=r, utilization=u)
    return scalar_or_array(1e6 * pb / (SECONDS_PER_HOUR * rb * ub), p, r, u)


@public
def duty_cycle_cost_factor(duty_cycle):
    r"""How many times the benchmark cost per result a device costs when busy only part of the time: 1/U.

    Parameters
    ----------
    duty_cycle : float or array_like
        Share U of paid time the device does useful work, in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        The factor, >= 1.

    Examples
    --------
    >>> duty_cycle_cost_factor(0.4)
    2.5
    """
    u = check_fraction("duty_cycle", duty_cycle, open_low=True)
    return scalar_or_array(1.0 / u, u)


@public
def break_even_utilization(price_per_device_hour, tokens_per_second_per_device, api_price_per_million_tokens):
    r"""The utilization above which a self-hosted device is cheaper per token than an API.

    Setting :func:`cost_per_million_tokens` equal to the API's price
    :math:`C_\text{API}` and solving for U:

    .. math:: U^{*} = \frac{10^6\,C_h}{3600\,R_\text{dev}\,C_\text{API}}

    Parameters
    ----------
    price_per_device_hour : float or array_like
        Price :math:`C_h` of one device-hour, > 0.
    tokens_per_second_per_device : float or array_like
        Throughput :math:`R_\text{dev}` of one device while busy, tokens/s, > 0.
    api_price_per_million_tokens : float or array_like
        The API's price :math:`C_\text{API}` per million tokens, in the same currency, > 0.

    Returns
    -------
    float or numpy.ndarray
        The break-even utilization; a value above 1 means self-hosting never
        breaks even at that throughput.

    Examples
    --------
    >>> round(break_even_utilization(2.0, 1000.0, 1.0), 4)
    0.5556
    """
    p = check_positive("price_per_device_hour", price_per_device_hour)
    r = check_positive("tokens_per_second_per_device", tokens_per_second_per_device)
    a = check_positive("api_price_per_million_tokens", api_price_per_million_tokens)
    pb, rb, ab = check_broadcast(price_per_device_hour=p, tokens_per_second_per_device=r,
                                 api_price_per_million_tokens=a)
    return scalar_or_array(1e6 * pb / (SECONDS_PER_HOUR * rb * ab), p, r, a)


@public
def devices_for_demand(demand_tokens_per_second, tokens_per_second_per_device, target_utilization=1.0):
    r"""Devices needed to serve a demand while running each at a target utilization.

    .. math:: K = \left\lceil \frac{\text{demand}}{R_\text{dev} \cdot U_\text{target}} \right\rceil

    Size for the *sustained* demand (a long-run average) and the devices run
    near the target; size for the peak and they idle the rest of the time.

    Parameters
    ----------
    demand_tokens_per_second : float or array_like
        Tokens/s to serve, > 0.
    tokens_per_second_per_device : float or array_like
        Throughput of one fully busy device, tokens/s, > 0.
    target_utilization : float or array_like, optional
        Busy share to aim for, in (0, 1] (default 1); below 1 leaves headroom
        for bursts.

    Returns
    -------
    int or numpy.ndarray of int

    Raises
    ------
    ValueError
        An input is out of range, or the count would pass 2**53 (inputs out of
        any sensible range).

    Examples
    --------
    >>> devices_for_demand(10_000, 1_500)
    7
    >>> devices_for_demand(10_000, 1_500, target_utilization=0.7)
    10
    """
    d = check_positive("demand_tokens_per_second", demand_tokens_per_second)
    r = check_positive("tokens_per_second_per_device", tokens_per_second_per_device)
    u = check_fraction("target_utilization", target_utilization, open_low=True)
    db, rb, ub = check_broadcast(demand_tokens_per_second=d, tokens_per_second_per_device=r,
                                 target_utilization=u)
    with np.errstate(over="ignore"):   # an overflow to infinity is refused by as_count, with the names
        ratio = db / (rb * ub)
    # a relative tolerance keeps an exact fit from rounding up to one device too many
    count = as_count("the device count, demand_tokens_per_second / (tokens_per_second_per_device * "
                     "target_utilization),",
                     np.maximum(np.ceil(ratio * (1 - 1e-12)), 1))
    if all(np.ndim(x) == 0 for x in (d, r, u)):
        return int(count)
    return count


@public(allow_nan=True)   # NaN: the batch does not fit in memory
def device_decode_rate(batch, n_params, context_tokens, device="A100 SXM 80GB", precision="bf16",
                       bytes_per_value=2.0, aspect_ratio=128.0, kv_width=None):
    r"""Tokens/s of one device generating text for a batch of sequences, in a roofline estimate.

    One decode step produces one token for each of the b sequences. It must
    read every weight once (:math:`N b_\text{p}` bytes, shared by the whole batch)
    and each sequence's key-value cache (:math:`2 \ell h L b_\text{p}` bytes for L
    tokens of context: keys and values, :math:`\ell` layers, width h), and do
    :math:`2N` FLOPs per sequence. The step takes the longer of the memory
    time and the compute time on a device with bandwidth B and peak P:

    .. math:: T_\text{step}(b) = \max\left(\frac{N b_\text{p} + b\,2 \ell h L b_\text{p}}{B},\;
              \frac{2 N b}{P}\right), \qquad \text{tokens/s} = \frac{b}{T_\text{step}(b)}.

    The shape comes from :func:`scalinglib.layout.hidden_size_for` (a GPT-style
    model, width h = aspect_ratio times depth :math:`\ell`). The weight read is the
    fixed cost of a step, like the hourly price of a device: the more
    sequences share it, the cheaper each token. This is
    :func:`scalinglib.roofline.decode_tokens_per_second` with the cache sized
    from the shape, the device's numbers taken from the catalog, and a check
    that everything fits in its memory. The estimate leaves out
    software overheads and attention FLOPs, so measured speed-ups are smaller
    at large batch and often larger at batch 1.

    Parameters
    ----------
    batch : int or array_like
        Sequences decoded together b, whole >= 1.
    n_params : float or array_like
        Parameters N, > 0.
    context_tokens : float or array_like
        Tokens L held in each sequence's cache, >= 0.
    device : str or Accelerator, optional
        A name from :data:`scalinglib.hardware.CATALOG` (default the A100 SXM 80GB).
    precision : str, optional
        Precision of the peak rate (default ``"bf16"``).
    bytes_per_value : float, optional
        Bytes per weight and per cache entry :math:`b_\text{p}` (default 2).
    aspect_ratio : float, optional
        :math:`h/\ell` of the assumed shape (default 128).
    kv_width : float, optional
        Width of one layer's keys (and of its values), > 0: :math:`n_\text{kv} d_\text{head}`.
        Default h, full multi-head attention; grouped-query attention with 8 key-value
        heads of 128 has 1,024, and its cache is :math:`2 \ell\, n_\text{kv} d_\text{head} L b_\text{p}`.

    Returns
    -------
    float or numpy.ndarray
        Tokens/s generated by the device (all sequences together); NaN where
        the weights and the caches do not fit in the device's memory (see
        :func:`max_decode_batch`).

    Examples
    --------
    >>> round(device_decode_rate(1, 7e9, 1024))
    140
    >>> round(device_decode_rate(64, 7e9, 1024))
    2594
    >>> round(device_decode_rate(64, 7e9, 1024, kv_width=1024))   # grouped-query attention, 8 heads of 128
    5716
    """
    b = check_whole("batch", batch)
    n = check_positive("n_params", n_params)
    t = check_nonnegative("context_tokens", context_tokens)
    beta = check_positive("bytes_per_value", bytes_per_value)
    a = check_positive("aspect_ratio", aspect_ratio)
    w = None if kv_width is None else single(check_positive, "kv_width", kv_width)
    with renamed(name="device"):
        chip = get_accelerator(device)
    peak = chip.peak(precision)
    bb, nb, tb, betab, ab = check_broadcast(batch=b, n_params=n, context_tokens=t, bytes_per_value=beta,
                                            aspect_ratio=a)
    cache = _cache_bytes_per_sequence(nb, tb, betab, ab, w)
    rate = np.asarray(decode_tokens_per_second(bb, nb, peak, chip.memory_bandwidth, betab, cache), dtype=float)
    rate = np.where(nb * betab + bb * cache <= chip.memory_bytes, rate, np.nan)
    return scalar_or_array(rate, b, n, t, beta, a)


def _cache_bytes_per_sequence(n_params, context_tokens, bytes_per_value, aspect_ratio, kv_width=None):
    """Key-value cache of one sequence: keys and values, ell layers of width h (or kv_width), every token."""
    h = hidden_size_for(n_params, aspect_ratio)
    width = h if kv_width is None else kv_width
    return 2.0 * (h / aspect_ratio) * width * context_tokens * bytes_per_value


@public
def max_decode_batch(n_params, context_tokens, device="A100 SXM 80GB", bytes_per_value=2.0, aspect_ratio=128.0,
                     kv_width=None):
    r"""The most sequences whose caches fit in a device's memory beside the weights.

    .. math:: b_\max = \left\lfloor \frac{M - N b_\text{p}}{2 \ell h L b_\text{p}} \right\rfloor

    with the shape and cache of :func:`device_decode_rate` and M the
    device's memory (all of it: in practice the framework keeps some).

    Parameters
    ----------
    n_params : float
        Parameters N, > 0 (one number).
    context_tokens : float
        Tokens L in each sequence's cache, > 0 (one number).
    device, bytes_per_value, aspect_ratio, kv_width : optional
        As in :func:`device_decode_rate` (one number each).

    Returns
    -------
    int
        0 when the weights alone do not fit.

    Raises
    ------
    TypeError
        An array where one number is taken (call it once per model).
    ValueError
        A value out of range.

    Examples
    --------
    >>> max_decode_batch(7e9, 1024)
    116
    >>> max_decode_batch(7e9, 1024, kv_width=1024)   # grouped-query attention: a quarter of the cache
    478
    """
    n = single(check_positive, "n_params", n_params)
    t = single(check_positive, "context_tokens", context_tokens)
    beta = single(check_positive, "bytes_per_value", bytes_per_value)
    a = single(check_positive, "aspect_ratio", aspect_ratio)
    w = None if kv_width is None else single(check_positive, "kv_width", kv_width)
    with renamed(name="device"):
        free = get_accelerator(device).memory_bytes - n * beta
    if free <= 0:
        return 0
    per_sequence = float(_cache_bytes_per_sequence(n, t, beta, a, w))
    if not per_sequence > 0 or not free / per_sequence < 2**53:
        raise ValueError(f"n_params, context_tokens, bytes_per_value and kv_width give a cache of {per_sequence:g} bytes per sequence: "
                         "the batch that fits would be unbounded (beyond 2**53)")
    return int(free // per_sequence)


@public(allow_nan=("batch_tokens", "efficiency", "cost_factor", "time_factor", "rho_dp", "rho_tp", "rho_pp"))   # NaN: does not fit
def critical_batch_cost(n_gpus, n_params, critical_batch_tokens, *, grow_batch=False, exposed_allreduce=False,
                        search=False, **layout_kwargs):
    r"""GPU-time and wall time to reach a target loss as a cluster grows: the critical-batch wall in money.

    The cluster is laid out by :func:`scalinglib.layout.layout_sweep`, which
    gives the global batch :math:`B_\text{g}` and the scaling efficiency E at each size. By
    McCandlish et al. (2018) reaching the target takes
    :math:`D_\text{tok}(B_\text{g}) = D_\text{min} (1 + B_\text{g}/B_\text{crit})` tokens,
    each costing the same FLOPs, done at a share E of the sustained rate. So the GPU-time, and the money, is
    proportional to

    .. math:: \text{cost factor} = \frac{1 + B_\text{g} / B_\text{crit}}{E},

    in units of the least possible GPU-time (:math:`D_\text{min}` tokens at E = 1),
    and the wall time to the cost factor divided by the number of GPUs.

    Two ways of using a cluster past the data-parallel cap are compared:

    * ``grow_batch=False``: the batch never exceeds the critical batch; past the
      cap the extra GPUs split the model further and E falls (weak scaling of
      the model split, as in Section 3.3.7);
    * ``grow_batch=True``: data parallelism keeps growing the batch past the
      critical batch; E stays where it was, but every doubling of the batch
      buys fewer saved steps, and tokens are wasted.

    With ``exposed_allreduce=True`` the efficiency also counts the part of the
    gradient all-reduce that the backward pass does not hide,
    :math:`E = 1/((1 + \rho_\text{TP})(1 + \rho_\text{PP}) + \rho_\text{DP})`, with
    :math:`\rho_\text{DP}` from :func:`exposed_allreduce_fraction` (its default
    A100 cluster), as Section 3.8.8 prices it.

    Parameters
    ----------
    n_gpus : array_like of int
        Cluster sizes, powers of two.
    n_params : float
        Model parameters, > 0 (one number; call once per model).
    critical_batch_tokens : float
        The critical batch, tokens, > 0 (one number).
    grow_batch : bool, optional
        Which use of GPUs past the cap (default False: split the model).
    exposed_allreduce : bool, optional
        Add :math:`\rho_\text{DP}` to each layout's overheads (default False:
        the all-reduce is taken to hide, as in Section 3.3.7).
    search : bool, optional
        Lay each cluster out with :func:`scalinglib.layout_search.search_layout`
        instead of the fixed policy (default False). The search minimises the
        time to the target, :math:`(1 + B_\text{g}/B_\text{crit})` times the
        step time per token, over every layout on at most ``n_gpus`` GPUs: the
        batch may not pass :math:`B_\text{crit}` when it splits the model, and
        may when it grows the batch. All three overheads are counted (so
        ``exposed_allreduce`` is ignored), and the GPU-time is that of the GPUs
        the layout uses.
    **layout_kwargs
        Passed to :func:`scalinglib.layout.parallel_layout` (sequence length,
        micro-batches, device memory, ...), or with ``search`` to
        :func:`scalinglib.layout_search.search_layout` (network, memory, ...).

    Returns
    -------
    dict of str to numpy.ndarray
        ``n_gpus``, ``fits``, ``batch_tokens``, ``efficiency``, ``rho_dp``
        (zeros unless ``exposed_allreduce`` or ``search``), ``cost_factor`` and
        ``time_factor`` (NaN where the model does not fit). With ``search``
        also ``gpus_used``, ``tp``, ``pp``, ``dp``, ``micro_batch``,
        ``microbatches``, ``chunks``, ``rho_tp`` and ``rho_pp``.

    Raises
    ------
    TypeError
        An array for ``n_params`` or ``critical_batch_tokens``.
    ValueError
        A value out of range.

    Examples
    --------
    >>> out = critical_batch_cost([256, 1024, 4096], 13e9, 2e6)
    >>> out["cost_factor"].round(2).tolist()
    [1.34, 1.75, 3.07]
    >>> critical_batch_cost([256, 1024, 4096], 13e9, 2e6, grow_batch=True)["cost_factor"].round(2).tolist()
    [1.34, 2.18, 5.53]

    With the exposed gradient all-reduce (Section 3.8.8's A100 cluster):

    >>> out = critical_batch_cost([1024, 2048], 13e9, 4e6, exposed_allreduce=True)
    >>> out["rho_dp"].round(3).tolist(), out["efficiency"].round(3).tolist()
    ([0.079, 0.324], [0.875, 0.678])

    Searched layouts instead:

    >>> out = critical_batch_cost([1024, 2048], 13e9, 4e6, search=True)
    >>> out["tp"].tolist(), out["efficiency"].round(3).tolist(), out["cost_factor"].round(2).tolist()
    ([8, 8], [0.869, 0.869], [1.38, 1.6])
    """
    check_flag("grow_batch", grow_batch)
    check_flag("exposed_allreduce", exposed_allreduce)
    check_flag("search", search)
    n_params = check_scalar("n_params", n_params)
    crit = single(check_positive, "critical_batch_tokens", critical_batch_tokens)
    sizes = check_whole("n_gpus", n_gpus)
    if search:
        return _searched_batch_cost(sizes, n_params, crit, grow_batch, layout_kwargs)
    # growing the batch: a limit so high that data parallelism can take every GPU (a billion tokens per GPU)
    limit = 1e9 * float(np.max(sizes)) if grow_batch else crit
    sweep = layout_sweep(n_gpus, n_params, limit, limit, **layout_kwargs)
    batch = sweep["batch_tokens"]
    efficiency, rho_dp = sweep["efficiency"], np.zeros(len(sweep["n_gpus"]))
    if exposed_allreduce:
        shared = {k: layout_kwargs[k] for k in ("seq_len", "micro_batch", "achieved_flops", "gpus_per_node")
                  if k in layout_kwargs}
        if "link_bandwidth" in layout_kwargs:
            shared["intra_bandwidth"] = layout_kwargs["link_bandwidth"]
        rho_dp = np.array([exposed_allreduce_fraction(parallel_layout(int(g), n_params, limit, limit, **layout_kwargs),
                                                      n_params, **shared) if fit else np.nan
                           for g, fit in zip(sweep["n_gpus"], sweep["fits"])])
        efficiency = 1.0 / (1.0 / efficiency + rho_dp)        # E = 1 / ((1 + rho_TP)(1 + rho_PP) + rho_DP)
    data_factor = np.asarray(examples_to_target(np.where(sweep["fits"], batch, crit), crit)) / crit
    cost = np.where(sweep["fits"], data_factor / efficiency, np.nan)
    return {
        "n_gpus": sweep["n_gpus"],
        "fits": sweep["fits"],
        "batch_tokens": batch,
        "efficiency": efficiency,
        "rho_dp": rho_dp,
        "cost_factor": cost,
        "time_factor": cost / sweep["n_gpus"],
    }


def _searched_batch_cost(sizes, n_params, crit, grow_batch, layout_kwargs):
    """critical_batch_cost with every cluster laid out by the search."""
    from .layout_search import search_layout

    sizes = np.asarray(sizes, dtype=float).ravel()
    if sizes.size == 0:
        raise ValueError("n_gpus must list at least one cluster size")
    fields = ("gpus_used", "tp", "pp", "dp", "micro_batch", "microbatches", "chunks")
    out = {name: [] for name in ("fits", "batch_tokens", "efficiency", "rho_tp", "rho_pp", "rho_dp", "cost_factor",
                                 "time_factor") + fields}
    limit = crit * 1e3 if grow_batch else crit
    for k in sizes:
        try:
            best = search_layout(int(k), n_params, limit, critical_batch_tokens=crit, **layout_kwargs).best
        except ValueError as err:
            if "no split of" not in str(err) and "no layout fits" not in str(err):
                raise
            best = None
        out["fits"].append(best is not None)
        nan = float("nan")
        if best is None:
            for name in out:
                if name != "fits":
                    out[name].append(0 if name in fields else nan)
            continue
        cost = (1.0 + best.batch_tokens / crit) / best.efficiency
        values = dict(batch_tokens=best.batch_tokens, efficiency=best.efficiency, rho_tp=best.rho_tp,
                      rho_pp=best.rho_pp, rho_dp=best.rho_dp, cost_factor=cost, time_factor=cost / best.n_gpus,
                      gpus_used=best.n_gpus, tp=best.tp, pp=best.pp, dp=best.dp, micro_batch=best.micro_batch,
                      microbatches=best.microbatches, chunks=best.chunks)
        for name, value in values.items():
            out[name].append(value)
    result = {"n_gpus": sizes.astype(int)}
    result.update({name: np.array(values) for name, values in out.items()})
    return result


@public(allow_nan=True)   # NaN: the layout does not fit
def exposed_allreduce_fraction(layout, n_params, *, seq_len=2048, micro_batch=1, bytes_per_value=2.0,
                               achieved_flops=A100_ACHIEVED_FLOPS, gpus_per_node=8, alpha=5e-6,
                               intra_bandwidth=A100_NVLINK_BANDWIDTH, port_bandwidth=25e9):
    r"""The data-parallel gradient all-reduce that the backward pass does not hide, over a step's compute.

    This is :math:`\rho_\text{DP}` of Section 3.8.8, for one layout of
    :func:`scalinglib.layout.parallel_layout`. Each GPU holds :math:`1/(tp)` of
    a replica and all-reduces its :math:`b_\text{p} N/(tp)` bytes of gradients with
    the d GPUs that hold the same share in the other replicas. NCCL lays the
    rings out node by node: a node of g GPUs holds :math:`\min(d, g/t)` members
    of a group, and each runs its own ring through its own network port
    (:func:`scalinglib.comm.multiring_allreduce_time`). Only the backward pass
    of the last of the m micro-batches, :math:`4 N b L/(tpX)` seconds, can hide
    the all-reduce; what sticks out is spread over the step's compute
    :math:`6 N m b L/(tpX)`:

    .. math:: \rho_\text{DP} = \frac{\max\bigl(0,\; T_\text{AR} - 4NbL/(tpX)\bigr)}{6N\,m\,bL/(tpX)}

    The defaults are Section 3.8.8's: A100s at X = 150 TFLOP/s, eight to a node
    on NVLink 3 (300 GB/s each way), one InfiniBand HDR port of 25 GB/s per
    GPU, :math:`\alpha` = 5 us per message, bf16 gradients.

    Parameters
    ----------
    layout : Layout
        One cluster's split, from :func:`scalinglib.layout.parallel_layout`.
    n_params : float
        Parameters N of the model the layout was made for, > 0.
    seq_len, micro_batch : int, optional
        Tokens per sequence L and sequences per micro-batch b, whole >= 1
        (default 2,048 and 1, as the layout's).
    bytes_per_value : float, optional
        Bytes per gradient value :math:`b_\text{p}`, > 0 (default 2).
    achieved_flops : float, optional
        Sustained FLOP/s X of one GPU, > 0 (default 150e12).
    gpus_per_node : int, optional
        GPUs g per node, whole >= 1 (default 8).
    alpha : float, optional
        Latency per message, s, >= 0 (default 5e-6), inside and between nodes.
    intra_bandwidth, port_bandwidth : float, optional
        Bytes/s each way of one GPU's link inside a node and of its network
        port, > 0 (defaults 300e9 and 25e9).

    Returns
    -------
    float
        :math:`\rho_\text{DP}` (0 when the all-reduce hides); NaN when the layout
        does not fit.

    Raises
    ------
    TypeError
        ``layout`` is not a :class:`~scalinglib.layout.Layout`, or an array where one number is taken.
    ValueError
        A value out of range.

    References
    ----------
    Section 3.8.8; Narayanan et al. (2021) for the layout.

    Examples
    --------
    >>> from scalinglib.layout import parallel_layout
    >>> [round(exposed_allreduce_fraction(parallel_layout(k, 13e9, 4e6, 4e6), 13e9), 3) for k in (8, 1024, 2048)]
    [0.0, 0.079, 0.324]
    """
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout from parallel_layout; got {type(layout).__name__}")
    n = single(check_positive, "n_params", n_params)
    s = single_whole("seq_len", seq_len)
    b = single_whole("micro_batch", micro_batch)
    b_p = single(check_positive, "bytes_per_value", bytes_per_value)
    x = single(check_positive, "achieved_flops", achieved_flops)
    g = single_whole("gpus_per_node", gpus_per_node)
    a = single(check_nonnegative, "alpha", alpha)
    intra = single(check_positive, "intra_bandwidth", intra_bandwidth)
    port = single(check_positive, "port_bandwidth", port_bandwidth)
    if not layout.fits:
        return float("nan")
    split = layout.tp * layout.pp                         # GPUs sharing one replica's gradients
    per_node = max(1, min(layout.dp, g // layout.tp))     # members of one data-parallel group in a node
    t_ar = float(multiring_allreduce_time(b_p * n / split, max(1, layout.dp // per_node), per_node,
                                          a, 1 / intra, a, 1 / port, nics=per_node))
    tokens = b * s
    last = 4.0 * n * tokens / (split * x)                 # backward pass of the last micro-batch
    step = 6.0 * n * layout.microbatches * tokens / (split * x)
    return max(0.0, t_ar - last) / step


def _check_training_cost(run) -> None:
    for name in run._fields:
        single(check_positive, name, getattr(run, name))


@checked_record(_check_training_cost)
class TrainingCost(NamedTuple):
    """Time and money of one training run (:func:`training_cost`); every field finite and > 0."""

    flops: float  #: model FLOPs of the whole run
    compute_days: float  #: days of running at the given MFU, on all devices
    days: float  #: calendar days: compute days divided by the utilization
    device_hours: float  #: device-hours paid for
    dollars: float  #: device-hours times the price
    dollars_per_million_tokens: float  #: dollars divided by the training tokens, per million

    def summary(self) -> str:
        """One line with the days, the dollars and the dollars per million tokens."""
        return (f"{self.days:,.1f} days, {self.device_hours:,.0f} device-hours, "
                f"${self.dollars:,.0f}, ${self.dollars_per_million_tokens:,.2f} per million tokens")


@public
def training_cost(n_params, tokens, n_devices, price_per_device_hour, *, device="H100 SXM 80GB", mfu=0.4,
                  utilization=1.0, precision="bf16"):
    r"""Days and dollars to train a model: the chapter's capstone calculator.

    .. math:: T_\text{compute} = \frac{6 N D_\text{tok}}{K \cdot \text{MFU} \cdot P}, \quad
              T_\text{calendar} = \frac{T_\text{compute}}{U}, \quad
              \$ = K \, T_\text{calendar} \, C_h

    with K the number of devices, P the device's dense peak at ``precision``
    from the hardware catalog, :math:`C_h` the price of a device-hour and
    U the utilization, the share of paid device-hours the run is
    actually training (the rest goes to failures, restarts, reloading
    checkpoints and idle gaps). The price is an input, not a fact: rental
    prices vary by provider, contract and year.

    Every numeric input is one number: call once per configuration (or see
    Section 3.9.8's capstone table for a grid).

    Parameters
    ----------
    n_params : float
        Parameters N, > 0.
    tokens : float
        Training tokens :math:`D_\text{tok}`, > 0.
    n_devices : int
        Devices K, whole >= 1.
    price_per_device_hour : float
        Price :math:`C_h` of one device-hour, > 0.
    device : str or Accelerator, optional
        A device of :data:`scalinglib.hardware.CATALOG` (default the H100 SXM 80GB).
    mfu : float, optional
        Model FLOPs utilization while running, in (0, 1] (default 0.4).
    utilization : float, optional
        Share U of paid time spent training, in (0, 1] (default 1).
    precision : str, optional
        Precision of the peak (default ``"bf16"``).

    Returns
    -------
    TrainingCost

    Raises
    ------
    TypeError
        An array or list where one number is taken.
    ValueError
        A value out of range, or a device not in the catalog.

    Examples
    --------
    >>> run = training_cost(70e9, 1.4e12, 1024, 2.0, mfu=0.4)
    >>> round(run.days, 1), round(run.dollars / 1e6, 2)
    (16.8, 0.83)
    >>> round(training_cost(70e9, 1.4e12, 1024, 2.0, mfu=0.4, utilization=0.5).dollars / 1e6, 2)
    1.65
    """
    n = single(check_positive, "n_params", n_params)
    d = single(check_positive, "tokens", tokens)
    k = single_whole("n_devices", n_devices)
    price = single(check_positive, "price_per_device_hour", price_per_device_hour)
    m = single(check_fraction, "mfu", mfu, open_low=True)
    u = single(check_fraction, "utilization", utilization, open_low=True)
    with renamed(name="device"):
        peak = get_accelerator(device).peak(precision)
    flops = float(flops_per_token(n)) * d
    compute_seconds = flops / (k * m * peak)
    calendar_seconds = compute_seconds / u
    device_hours = k * calendar_seconds / SECONDS_PER_HOUR
    dollars = device_hours * price
    return TrainingCost(flops, compute_seconds / SECONDS_PER_DAY, calendar_seconds / SECONDS_PER_DAY,
                        device_hours, dollars, dollars / (d / 1e6))
