r"""The roofline model: how fast a kernel can run on a device (Section 3.7).

A kernel that performs ``W`` floating-point operations and moves ``Q`` bytes
between the processor and its memory needs at least ``W / P`` seconds of
arithmetic at peak rate ``P`` (FLOP/s) and at least ``Q / B`` seconds of
traffic at memory bandwidth ``B`` (bytes/s). If the two overlap perfectly, the
time is the larger of the two, and the rate the kernel can reach is

.. math:: \text{attainable}(I) = \min(P,\; B \cdot I), \qquad I = W / Q,

where ``I`` is the kernel's **arithmetic intensity** in FLOP per byte. Plotted
against ``I`` this is a slanted roof (memory-bound: a line of slope ``B`` on
linear axes; on log axes a 45-degree line whose height is set by ``B``)
meeting a flat one (compute-bound, height ``P``) at the **ridge point**
``I* = P / B`` (Williams, Waterman and Patterson 2009).

The byte counts here are the compulsory traffic: every operand read once and
every result written once. A kernel that re-reads its operands (because they
do not fit in on-chip memory) moves more bytes and has a lower intensity than
these formulas give; the roofline built from them is an upper bound.

How many bytes one number takes at each precision is in :data:`BYTES_PER_ELEMENT`
(:func:`precision_bytes` looks it up). Device numbers come from
:mod:`scalinglib.hardware`::

    h100 = get_accelerator("H100")
    attainable_flops(gemm_intensity(4096, 4096, 4096), h100.peak("bf16"), h100.memory_bandwidth)
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_broadcast,
    check_choice,
    check_nonnegative,
    check_positive,
    check_whole,
    public,
    scalar_or_array,
)
from .memory import _bytes_per_param

__all__ = [
    "BYTES_PER_ELEMENT",
    "precision_bytes",
    "attainable_flops",
    "ridge_point",
    "arithmetic_intensity",
    "roofline_time",
    "roofline_regime",
    "elementwise_intensity",
    "gemm_flops",
    "gemm_bytes",
    "gemm_intensity",
    "decode_intensity",
    "decode_time_terms",
    "decode_step_time",
    "decode_tokens_per_second",
    "decode_ridge_batch",
    "decode_intensity_limit",
    "kv_cache_batch_limit",
    "CPU_SOCKET_EXAMPLE",
    "cpu_socket_roof",
    "GROWTH_PER_TWO_YEARS",
]

#: Bytes one number occupies at each precision name of :data:`scalinglib.hardware.PRECISIONS`
#: (tf32 is stored in 32-bit words; int8 counts operations, not FLOPs, but occupies one byte).
BYTES_PER_ELEMENT: dict[str, int] = {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def precision_bytes(precision):
    """Bytes per number at a precision name: ``BYTES_PER_ELEMENT[precision]``.

    Parameters
    ----------
    precision : str
        One of ``"fp64"``, ``"fp32"``, ``"tf32"``, ``"bf16"``, ``"fp16"``,
        ``"fp8"``, ``"int8"`` (case-insensitive).

    Returns
    -------
    int
        Bytes.

    Raises
    ------
    ValueError
        An unknown precision name; the message lists the known ones.
    TypeError
        ``precision`` is not a string.

    Examples
    --------
    >>> precision_bytes("fp64"), precision_bytes("bf16"), precision_bytes("fp8")
    (8, 2, 1)
    """
    return BYTES_PER_ELEMENT[check_choice("precision", precision, tuple(BYTES_PER_ELEMENT))]


@public
def attainable_flops(intensity, peak_flops, bandwidth):
    r"""The highest FLOP/s a kernel of a given arithmetic intensity can reach.

    .. math:: \min(P,\; B \cdot I)

    Parameters
    ----------
    intensity : float or array_like
        Arithmetic intensity I in FLOP/byte, >= 0.
    peak_flops : float or array_like
        Peak compute rate P in FLOP/s, > 0.
    bandwidth : float or array_like
        Memory bandwidth B in bytes/s, > 0.

    Returns
    -------
    float or numpy.ndarray
        FLOP/s.

    References
    ----------
    Williams, Waterman and Patterson (2009), Communications of the ACM 52(4).

    Examples
    --------
    >>> attainable_flops(10.0, 100e12, 2e12) / 1e12      # below the ridge: B * I
    20.0
    >>> attainable_flops([10.0, 1000.0], 100e12, 2e12) / 1e12
    array([ 20., 100.])
    """
    i = check_nonnegative("intensity", intensity)
    p = check_positive("peak_flops", peak_flops)
    b = check_positive("bandwidth", bandwidth)
    ib, pb, bb = check_broadcast(intensity=i, peak_flops=p, bandwidth=b)
    return scalar_or_array(np.minimum(pb, bb * ib), i, p, b)


@public
def ridge_point(peak_flops, bandwidth):
    r"""Arithmetic intensity where the memory roof meets the compute roof.

    .. math:: I^{*} = P / B

    Kernels with a lower intensity are memory-bound on this device, kernels
    with a higher one compute-bound. :meth:`scalinglib.Accelerator.ridge_point`
    gives the same number for a catalog device.

    Parameters
    ----------
    peak_flops : float or array_like
        Peak compute rate P in FLOP/s, > 0.
    bandwidth : float or array_like
        Memory bandwidth B in bytes/s, > 0.

    Returns
    -------
    float or numpy.ndarray
        FLOP/byte.

    Examples
    --------
    >>> round(ridge_point(989.5e12, 3.35e12), 2)     # H100 SXM, dense BF16 over HBM3
    295.37
    """
    p = check_positive("peak_flops", peak_flops)
    b = check_positive("bandwidth", bandwidth)
    pb, bb = check_broadcast(peak_flops=p, bandwidth=b)
    return scalar_or_array(pb / bb, p, b)


@public
def arithmetic_intensity(flops, nbytes):
    """FLOPs per byte of memory traffic, ``flops / nbytes``.

    Parameters
    ----------
    flops : float or array_like
        Floating-point operations W, >= 0.
    nbytes : float or array_like
        Bytes Q moved to or from memory, > 0.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> arithmetic_intensity(2 * 1024**3, 3 * 2 * 1024**2)   # a 1024^3 GEMM in 2-byte numbers
    341.3333333333333
    """
    w = check_nonnegative("flops", flops)
    q = check_positive("nbytes", nbytes)
    wb, qb = check_broadcast(flops=w, nbytes=q)
    return scalar_or_array(wb / qb, w, q)


@public
def roofline_time(flops, nbytes, peak_flops, bandwidth):
    r"""Shortest time a kernel can take: the slower of its arithmetic and its memory traffic.

    .. math:: T = \max\!\left(\frac{W}{P},\; \frac{Q}{B}\right)

    Parameters
    ----------
    flops : float or array_like
        Operations W, >= 0.
    nbytes : float or array_like
        Bytes Q moved, >= 0.
    peak_flops : float or array_like
        P in FLOP/s, > 0.
    bandwidth : float or array_like
        B in bytes/s, > 0.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Examples
    --------
    >>> roofline_time(1e12, 1e9, 100e12, 2e12)     # 10 ms of arithmetic, 0.5 ms of traffic
    0.01
    """
    w = check_nonnegative("flops", flops)
    q = check_nonnegative("nbytes", nbytes)
    p = check_positive("peak_flops", peak_flops)
    b = check_positive("bandwidth", bandwidth)
    wb, qb, pb, bb = check_broadcast(flops=w, nbytes=q, peak_flops=p, bandwidth=b)
    return scalar_or_array(np.maximum(wb / pb, qb / bb), w, q, p, b)


@public
def roofline_regime(intensity, peak_flops, bandwidth):
    """``"memory-bound"`` below the ridge point, ``"compute-bound"`` at or above it.

    Parameters
    ----------
    intensity : float or array_like
        FLOP/byte, >= 0.
    peak_flops, bandwidth : float or array_like
        P (FLOP/s) and B (bytes/s), > 0.

    Returns
    -------
    str or numpy.ndarray of str

    Examples
    --------
    >>> roofline_regime([1.0, 500.0], 312e12, 2.039e12)
    array(['memory-bound', 'compute-bound'], dtype='<U13')
    """
    i = check_nonnegative("intensity", intensity)
    p = check_positive("peak_flops", peak_flops)
    b = check_positive("bandwidth", bandwidth)
    ib, pb, bb = check_broadcast(intensity=i, peak_flops=p, bandwidth=b)
    out = np.where(ib * bb < pb, "memory-bound", "compute-bound")
    return str(out) if all(np.ndim(x) == 0 for x in (i, p, b)) else out


@public
def elementwise_intensity(flops_per_element=1, arrays=3, bytes_per_element=2):
    r"""Intensity of an element-by-element kernel that touches ``arrays`` arrays once each.

    .. math:: I = \frac{\text{flops per element}}{\text{arrays} \times \text{bytes per element}}

    Vector addition ``c = a + b`` does 1 FLOP per element and touches 3 arrays
    (two read, one written).

    Parameters
    ----------
    flops_per_element : float or array_like, optional
        >= 0 (default 1).
    arrays : int or array_like, optional
        Arrays read or written, whole >= 1 (default 3).
    bytes_per_element : float or array_like, optional
        > 0 (default 2, for bf16 or fp16).

    Returns
    -------
    float or numpy.ndarray
        FLOP/byte.

    Examples
    --------
    >>> elementwise_intensity()                      # bf16 vector add: 1 / 6
    0.16666666666666666
    >>> elementwise_intensity(1, 3, 8)               # float64 vector add: 1 / 24
    0.041666666666666664
    """
    f = check_nonnegative("flops_per_element", flops_per_element)
    a = check_whole("arrays", arrays)
    w = check_positive("bytes_per_element", bytes_per_element)
    fb, ab, wb = check_broadcast(flops_per_element=f, arrays=a, bytes_per_element=w)
    return scalar_or_array(fb / (ab * wb), f, a, w)


def _gemm_dims(m, n, k):
    mm = check_positive("m", m)
    nn = check_positive("n", n)
    kk = check_positive("k", k)
    return (mm, nn, kk), check_broadcast(m=mm, n=nn, k=kk)


@public
def gemm_flops(m, n, k):
    """Operations of a matrix multiply ``C = A @ B`` with A of shape (m, k) and B of shape (k, n): ``2 m n k``.

    Each of the ``m n`` outputs is a dot product of length ``k``: ``k``
    multiplications and ``k`` additions.

    Parameters
    ----------
    m, n, k : float or array_like
        Matrix dimensions, > 0.

    Returns
    -------
    float or numpy.ndarray
        FLOPs.

    Examples
    --------
    >>> gemm_flops(1024, 1024, 1024) / 1e9
    2.147483648
    """
    raw, (mb, nb, kb) = _gemm_dims(m, n, k)
    return scalar_or_array(2.0 * mb * nb * kb, *raw)


def _gemm_operand_bytes(bytes_per_element, weight_bytes, output_bytes):
    w = check_positive("bytes_per_element", bytes_per_element)
    wb = w if weight_bytes is None else check_positive("weight_bytes", weight_bytes)
    ob = w if output_bytes is None else check_positive("output_bytes", output_bytes)
    return w, wb, ob


@public
def gemm_bytes(m, n, k, bytes_per_element=2, *, weight_bytes=None, output_bytes=None):
    """Compulsory memory traffic of ``C = A @ B``: read A and B once, write C once.

    ``a m k + w k n + c m n`` bytes, with ``a = bytes_per_element`` bytes per
    element of A, ``w = weight_bytes`` per element of B and ``c =
    output_bytes`` per element of C (both default to ``a``). An fp8 multiply
    usually reads fp8 inputs and writes bf16 or fp32 (``output_bytes=2`` or
    4); a weight-only 8-bit kernel reads 1-byte weights B beside 2-byte
    activations A (``weight_bytes=1``). A kernel that also reads C (``C += A @
    B``) moves ``m n`` elements more.

    Parameters
    ----------
    m, n, k : float or array_like
        Matrix dimensions, > 0.
    bytes_per_element : float or array_like, optional
        Bytes per element of A, > 0 (default 2, bf16), and of B and C unless given.
    weight_bytes : float or array_like, optional
        Bytes per element of B, > 0 (default: ``bytes_per_element``).
    output_bytes : float or array_like, optional
        Bytes per element of C, > 0 (default: ``bytes_per_element``).

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> gemm_bytes(1024, 1024, 1024) / 2**20     # three 2 MiB matrices
    6.0
    >>> gemm_bytes(1024, 1024, 1024, 1, output_bytes=2) / 2**20    # fp8 in, bf16 out
    4.0
    """
    raw, (mb, nb, kb) = _gemm_dims(m, n, k)
    a, w, c = _gemm_operand_bytes(bytes_per_element, weight_bytes, output_bytes)
    mb, nb, kb, ab, wb, cb = check_broadcast(m=mb, n=nb, k=kb, bytes_per_element=a, weight_bytes=w,
                                             output_bytes=c)
    return scalar_or_array(ab * mb * kb + wb * kb * nb + cb * mb * nb, *raw, a, w, c)


@public
def gemm_intensity(m, n, k, bytes_per_element=2, *, weight_bytes=None, output_bytes=None):
    r"""Arithmetic intensity of a matrix multiply, with compulsory traffic.

    .. math:: I = \frac{2\,m n k}{w\,(m k + k n + m n)}

    for ``w`` bytes per element. A square multiply (m = n = k) has
    ``I = 2 n / (3 w)``, which grows without bound: big enough matrix
    multiplies are compute-bound on every device. A multiply with one small
    dimension (m tokens against a k x n weight matrix) has ``I`` close to
    ``2 m / w``. With different bytes per operand (see :func:`gemm_bytes`) the
    denominator is ``a m k + w k n + c m n``: a square fp8 multiply that
    writes bf16 has ``I = 2 n / 4 = n / 2``.

    Parameters
    ----------
    m, n, k : float or array_like
        Matrix dimensions, > 0: A is m x k, B is k x n.
    bytes_per_element : float or array_like, optional
        > 0 (default 2, bf16).
    weight_bytes, output_bytes : float or array_like, optional
        Bytes per element of B and of C, > 0, as in :func:`gemm_bytes`.

    Returns
    -------
    float or numpy.ndarray
        FLOP/byte.

    Examples
    --------
    >>> gemm_intensity(4096, 4096, 4096)           # 2 * 4096 / 6
    1365.3333333333333
    >>> round(gemm_intensity(1, 8192, 8192), 4)    # one token through an 8192 x 8192 layer
    0.9998
    >>> gemm_intensity(1024, 1024, 1024, 1, output_bytes=2)    # fp8 inputs, bf16 output: n / 2
    512.0
    """
    raw, (mb, nb, kb) = _gemm_dims(m, n, k)
    a, w, c = _gemm_operand_bytes(bytes_per_element, weight_bytes, output_bytes)
    mb, nb, kb, ab, wb, cb = check_broadcast(m=mb, n=nb, k=kb, bytes_per_element=a, weight_bytes=w,
                                             output_bytes=c)
    return scalar_or_array(2.0 * mb * nb * kb / (ab * mb * kb + wb * kb * nb + cb * mb * nb), *raw, a, w, c)


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


#: A server CPU socket to set beside the reader's machine and the accelerators at equal precision (fp64):
#: Intel Xeon Platinum 8480+ (Sapphire Rapids). Cores, base clock, last-level cache and memory channels
#: from Intel's product specification (ark.intel.com, Xeon Platinum 8480+); 32 fp64 FLOPs per core per
#: cycle from two AVX-512 fused multiply-add units of 8 doubles each (Intel 64 and IA-32 Architectures
#: Optimization Reference Manual). The peak assumes the base clock on every core; the bandwidth is the
#: DDR5 channels' transfer rate (8 channels x 4800 MT/s x 8 bytes).
CPU_SOCKET_EXAMPLE: dict[str, float | str] = {
    "name": "Xeon Platinum 8480+ socket",
    "cores": 56,
    "fp64_flops_per_cycle": 32,
    "clock_hz": 2.0e9,
    "memory_channels": 8,
    "transfers_per_second": 4.8e9,
    "bytes_per_transfer": 8,
    "last_level_cache_bytes": 105e6,
}


def cpu_socket_roof(spec=None) -> tuple[float, float]:
    """Datasheet roof of a CPU socket: ``(P, B)`` with ``P = cores x FLOPs per cycle x clock`` and
    ``B = channels x transfers per second x bytes per transfer``.

    Parameters
    ----------
    spec : dict, optional
        Keys as in :data:`CPU_SOCKET_EXAMPLE` (the default), each number > 0.

    Returns
    -------
    tuple of float
        Peak FLOP/s and bandwidth in bytes/s.

    Examples
    --------
    >>> p, b = cpu_socket_roof()
    >>> round(p / 1e12, 3), round(b / 1e9, 1), round(p / b, 1)
    (3.584, 307.2, 11.7)
    """
    spec = CPU_SOCKET_EXAMPLE if spec is None else spec
    if not isinstance(spec, dict):
        raise TypeError(f"spec must be a dict like CPU_SOCKET_EXAMPLE; got {type(spec).__name__}")
    keys = ("cores", "fp64_flops_per_cycle", "clock_hz", "memory_channels", "transfers_per_second",
            "bytes_per_transfer")
    missing = [k for k in keys if k not in spec]
    if missing:
        raise ValueError(f"spec lacks {', '.join(missing)}")
    v = {k: float(check_positive(k, spec[k])) for k in keys}
    peak = v["cores"] * v["fp64_flops_per_cycle"] * v["clock_hz"]
    return peak, v["memory_channels"] * v["transfers_per_second"] * v["bytes_per_transfer"]


#: How fast server hardware grew, as a factor every two years over about twenty years (1996-2023), from
#: Gholami et al. (2024), "AI and Memory Wall", IEEE Micro, arXiv:2403.14123: peak FLOP/s, DRAM
#: bandwidth and interconnect bandwidth. The ratio of the first two is the drift of a ridge point P/B
#: if every part followed both trends.
GROWTH_PER_TWO_YEARS: dict[str, float] = {"peak_flops": 3.0, "dram_bandwidth": 1.6, "interconnect_bandwidth": 1.4}
