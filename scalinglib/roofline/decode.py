"""Decoding a language model on the roof, and what the key-value cache caps (Section 3.7.3).

One decoding step of a batch of sequences reads every weight once and each
sequence's key-value cache, and does about two FLOPs per weight per sequence, so
its intensity grows with the batch. With no cache traffic it reaches the ridge
point at :func:`decode_ridge_batch`; with it, the intensity tends to
:func:`decode_intensity_limit` however large the batch. :func:`decode_time_terms`,
:func:`decode_step_time` and :func:`decode_tokens_per_second` price a step on a
device's roof, and the memory left beside the weights caps the batch
(:func:`kv_cache_batch_limit`).
"""

from __future__ import annotations

import numpy as np

from .._validate import (
    check_broadcast,
    check_nonnegative,
    check_positive,
    public,
    scalar_or_array,
)
from ..memory import _bytes_per_param

__all__ = [
    "decode_intensity",
    "decode_time_terms",
    "decode_step_time",
    "decode_tokens_per_second",
    "decode_ridge_batch",
    "decode_intensity_limit",
    "kv_cache_batch_limit",
]


def _decode_args(batch, n_params, bytes_per_param, kv_bytes_per_seq):
    b = check_positive("batch", batch)
    n = check_positive("n_params", n_params)
    w = _bytes_per_param(bytes_per_param)
    kv = check_nonnegative("kv_bytes_per_seq", kv_bytes_per_seq)
    return (b, n, w, kv), check_broadcast(batch=b, n_params=n, bytes_per_param=w, kv_bytes_per_seq=kv)


@public
def decode_intensity(batch, n_params, bytes_per_param=2, kv_bytes_per_seq=0):
    r"""Arithmetic intensity of one decoding step of a language model serving ``batch`` sequences.

    Each new token passes through every weight once, a multiply and an add:
    about ``2 N`` FLOPs per token, ``2 N b`` for the batch. The weights are read
    from memory once per step however many sequences share them; each
    sequence also reads its own key-value cache. So

    .. math:: I(b) = \frac{2 N b}{N b_\text{p} + b\,c_\text{kv}},

    with ``b_p`` bytes per parameter and ``c_kv`` cache bytes per sequence. With
    no cache traffic this is ``2 b / b_p``: for 2-byte weights the intensity
    equals the batch size, so decoding is memory-bound until the batch nears
    the ridge point. Attention FLOPs, activations and anything else are left out.

    Parameters
    ----------
    batch : float or array_like
        Sequences decoded together, b > 0.
    n_params : float or array_like
        Parameters N, > 0.
    bytes_per_param : float, array_like or str, optional
        b_p, > 0 (default 2: bf16 weights), or a preset of
        :data:`scalinglib.BYTES_PER_PARAM` such as ``"infer_int8"``.
    kv_bytes_per_seq : float or array_like, optional
        Key-value cache bytes read per sequence per step, >= 0 (default 0).

    Returns
    -------
    float or numpy.ndarray
        FLOP/byte.

    Examples
    --------
    >>> decode_intensity([1, 64, 256], 7e9)
    array([  1.,  64., 256.])
    >>> decode_intensity(64, 7e9, bytes_per_param=1)    # fp8 weights: twice the intensity
    128.0
    """
    raw, (b, n, w, kv) = _decode_args(batch, n_params, bytes_per_param, kv_bytes_per_seq)
    return scalar_or_array(2.0 * n * b / (n * w + b * kv), *raw)


@public
def decode_time_terms(batch, n_params, peak_flops, bandwidth, bytes_per_param=2, kv_bytes_per_seq=0, *,
                      flops_per_token=None):
    r"""The two sides of a decoding step's roofline: arithmetic time and memory time.

    .. math:: T_\text{compute}(b) = \frac{b F}{P}, \qquad
              T_\text{memory}(b) = \frac{N b_\text{p} + b\,c_\text{kv}}{B}

    with F the FLOPs per generated token (``2 N`` unless given: a multiply and
    an add per weight). Every decode model of the book (Sections 3.4, 3.7 and
    3.9) is built on these two terms; :func:`decode_step_time` takes the larger.

    Parameters
    ----------
    batch, n_params, bytes_per_param, kv_bytes_per_seq
        As in :func:`decode_intensity`.
    peak_flops : float or array_like
        P in FLOP/s, > 0.
    bandwidth : float or array_like
        B in bytes/s, > 0.
    flops_per_token : float or array_like, optional
        F, > 0; default ``2 * n_params``. Pass a larger F to count attention
        over a long context.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(compute_seconds, memory_seconds)``.

    Examples
    --------
    >>> compute, memory = decode_time_terms(8, 13e9, 312e12, 2.039e12)    # 13B on an A100
    >>> round(compute * 1e3, 3), round(memory * 1e3, 3)        # ms: memory dominates at batch 8
    (0.667, 12.751)
    """
    raw, (b, n, w, kv) = _decode_args(batch, n_params, bytes_per_param, kv_bytes_per_seq)
    p = check_positive("peak_flops", peak_flops)
    bw = check_positive("bandwidth", bandwidth)
    f = 2.0 * np.asarray(n, dtype=float) if flops_per_token is None else check_positive("flops_per_token",
                                                                                       flops_per_token)
    b, n, w, kv, pb, bwb, fb = check_broadcast(batch=b, n_params=n, bytes_per_param=w, kv_bytes_per_seq=kv,
                                               peak_flops=p, bandwidth=bw, flops_per_token=f)
    inputs = (*raw, p, bw, f)
    return scalar_or_array(b * fb / pb, *inputs), scalar_or_array((n * w + b * kv) / bwb, *inputs)


@public
def decode_step_time(batch, n_params, peak_flops, bandwidth, bytes_per_param=2, kv_bytes_per_seq=0, *,
                     flops_per_token=None):
    r"""Roofline time of one decoding step for a batch: the larger of :func:`decode_time_terms`.

    .. math:: T(b) = \max\!\left(\frac{b F}{P},\; \frac{N b_\text{p} + b\,c_\text{kv}}{B}\right),
              \qquad F = 2N \text{ by default}

    Parameters
    ----------
    batch, n_params, peak_flops, bandwidth, bytes_per_param, kv_bytes_per_seq, flops_per_token
        As in :func:`decode_time_terms`.

    Returns
    -------
    float or numpy.ndarray
        Seconds per step (one new token for each of the ``batch`` sequences).

    Examples
    --------
    >>> round(decode_step_time(1, 7e9, 312e12, 2.039e12) * 1e3, 2)     # A100: 14 GB of weights
    6.87
    >>> # 16 GB of weights on a 2 TB/s device: one sequence, no cache, 8 ms per token
    >>> decode_step_time(1, 8e9, 300e12, 2e12)
    0.008
    """
    compute, memory = decode_time_terms.__wrapped__(batch, n_params, peak_flops, bandwidth, bytes_per_param,
                                                    kv_bytes_per_seq, flops_per_token=flops_per_token)
    if type(compute) is float and type(memory) is float:
        return max(compute, memory)
    return scalar_or_array(np.maximum(compute, memory))


@public
def decode_tokens_per_second(batch, n_params, peak_flops, bandwidth, bytes_per_param=2, kv_bytes_per_seq=0, *,
                             flops_per_token=None):
    """Tokens generated per second at a batch size: ``batch / decode_step_time(...)``.

    Flat-out decoding, on the roofline: a real server adds scheduling, attention and
    other kernels, so it reaches less. The shape is what matters: while decoding is
    memory-bound, a step costs the same for any batch, so throughput grows in
    proportion to the batch; past the ridge point it stops growing.

    Parameters
    ----------
    batch, n_params, peak_flops, bandwidth, bytes_per_param, kv_bytes_per_seq, flops_per_token
        As in :func:`decode_time_terms`.

    Returns
    -------
    float or numpy.ndarray
        Tokens per second.

    Examples
    --------
    >>> t1 = decode_tokens_per_second(1, 7e9, 312e12, 2.039e12)
    >>> round(decode_tokens_per_second(64, 7e9, 312e12, 2.039e12) / t1, 6)
    64.0
    """
    t = decode_step_time.__wrapped__(batch, n_params, peak_flops, bandwidth, bytes_per_param, kv_bytes_per_seq,
                                     flops_per_token=flops_per_token)
    b = check_positive("batch", batch)
    return scalar_or_array(b / t)


def decode_ridge_batch(peak_flops, bandwidth, bytes_per_param=2):
    r"""Batch at which decoding with no cache traffic reaches the ridge point: ``I(b) = 2 b / b_p = P / B``.

    .. math:: b^{*} = \frac{b_\text{p}}{2}\,\frac{P}{B}

    Below this batch a decoding step is memory-bound and costs the same for any
    batch; above it, compute-bound. Halving the bytes per weight (8-bit weights)
    doubles the intensity of every batch, so with a peak that also doubles (fp8
    arithmetic) the ridge batch does not move.

    Parameters
    ----------
    peak_flops : float or array_like
        P in FLOP/s, > 0.
    bandwidth : float or array_like
        B in bytes/s, > 0.
    bytes_per_param : float, array_like or str, optional
        b_p, > 0 (default 2), or a preset of :data:`scalinglib.BYTES_PER_PARAM`.

    Returns
    -------
    float or numpy.ndarray
        Sequences (not rounded).

    Examples
    --------
    >>> round(decode_ridge_batch(989.5e12, 3.35e12), 2)         # H100, bf16 weights and peak
    295.37
    >>> decode_ridge_batch(2e15, 4e12, 1) == decode_ridge_batch(1e15, 4e12, 2)   # fp8 peak, 1-byte weights
    True
    """
    p = check_positive("peak_flops", peak_flops)
    bw = check_positive("bandwidth", bandwidth)
    w = _bytes_per_param(bytes_per_param)
    pb, bwb, wb = check_broadcast(peak_flops=p, bandwidth=bw, bytes_per_param=w)
    return scalar_or_array(wb * pb / (2.0 * bwb), p, bw, w)


@public
def decode_intensity_limit(n_params, kv_bytes_per_seq):
    r"""The intensity decoding tends to as the batch grows: :math:`\lim_{b\to\infty} I(b) = 2N / c_\text{kv}`.

    Each sequence adds ``2 N`` FLOPs and its own ``c_kv`` bytes of key-value
    cache to a step, so however large the batch, the intensity of
    :func:`decode_intensity` stays below ``2 N / c_kv``. When that is below
    the ridge point, no batch makes decoding compute-bound.

    Parameters
    ----------
    n_params : float or array_like
        Parameters N, > 0.
    kv_bytes_per_seq : float or array_like
        Cache bytes read per sequence per step, > 0.

    Returns
    -------
    float or numpy.ndarray
        FLOP/byte.

    Examples
    --------
    >>> round(decode_intensity_limit(7e9, 2**30), 2)     # 1 GiB of cache per sequence
    13.04
    """
    n = check_positive("n_params", n_params)
    kv = check_positive("kv_bytes_per_seq", kv_bytes_per_seq)
    nb, kvb = check_broadcast(n_params=n, kv_bytes_per_seq=kv)
    return scalar_or_array(2.0 * nb / kvb, n, kv)


@public
def kv_cache_batch_limit(memory_bytes, n_params, kv_bytes_per_seq, bytes_per_param=2):
    r"""The most sequences whose key-value caches fit in memory beside the weights.

    .. math:: b_\text{max} = \left\lfloor \frac{M - N b_\text{p}}{c_\text{kv}} \right\rfloor

    for ``M`` bytes of device memory, ``N b_p`` bytes of weights and
    ``c_kv`` bytes of cache per sequence (:func:`scalinglib.kv_cache_bytes`
    of its context). Activations and the runtime's own memory are left out,
    so a real server fits fewer. A batch beyond this limit cannot be formed,
    whatever the roofline says it would gain; 0 means the weights alone do
    not leave room for one sequence.

    Parameters
    ----------
    memory_bytes : float or array_like
        Device memory M in bytes, > 0.
    n_params : float or array_like
        Parameters N, > 0.
    kv_bytes_per_seq : float or array_like
        Cache bytes one sequence keeps, > 0.
    bytes_per_param : float, array_like or str, optional
        b_p, > 0 (default 2), or a preset of :data:`scalinglib.BYTES_PER_PARAM`.

    Returns
    -------
    float or numpy.ndarray
        Whole number of sequences, >= 0.

    Examples
    --------
    >>> kv_cache_batch_limit(80e9, 7e9, 2**30)          # 14 GB of weights, 1 GiB of cache each
    61.0
    >>> kv_cache_batch_limit(80e9, 70e9, 2**30)         # 140 GB of weights do not fit at all
    0.0
    """
    m = check_positive("memory_bytes", memory_bytes)
    n = check_positive("n_params", n_params)
    kv = check_positive("kv_bytes_per_seq", kv_bytes_per_seq)
    w = _bytes_per_param(bytes_per_param)
    mb, nb, kvb, wb = check_broadcast(memory_bytes=m, n_params=n, kv_bytes_per_seq=kv, bytes_per_param=w)
    return scalar_or_array(np.maximum(np.floor((mb - nb * wb) / kvb), 0.0), m, n, kv, w)
