r"""A device is a fixed cost: price per token, duty cycle, break-even and sizing (Sections 3.9.3, 3.9.6 and 3.9.7).

A device is billed by the hour whether or not it computes. With price
:math:`C_h` per device-hour, a throughput of :math:`R_\text{dev}` tokens/s
while busy and a utilization U (the share of paid hours it is busy),

.. math:: \text{cost per million tokens} = \frac{10^6\,C_h}{3600\,R_\text{dev}\,U},

so cost scales as 1/U: a 40% duty cycle costs 2.5 times the benchmark figure.
Self-hosting beats an API that charges :math:`C_\text{API}` per million
tokens once :math:`U > 10^6 C_h / (3600\,R_\text{dev}\,C_\text{API})`, the
break-even utilization.

A serving device's :math:`R_\text{dev}` comes from the roofline of decoding
(:func:`device_decode_rate`) at a batch that the memory left for the KV cache
allows (:func:`max_decode_batch`); :func:`devices_for_demand` sizes a fleet for
a sustained demand.
"""

from __future__ import annotations

import numpy as np

from .._validate import (
    as_count,
    check_broadcast,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_whole,
    public,
    renamed,
    scalar_or_array,
    single,
)
from ..hardware import get_accelerator
from ..layout import hidden_size_for
from ..roofline import decode_tokens_per_second
from .utilization import SECONDS_PER_HOUR

__all__ = [
    "cost_per_million_tokens",
    "duty_cycle_cost_factor",
    "break_even_utilization",
    "devices_for_demand",
    "device_decode_rate",
    "max_decode_batch",
]


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
