"""Placing kernels on the roof: element-wise kernels and matrix multiplies (Section 3.7.2).

The FLOPs and bytes of a kernel give its arithmetic intensity
(:mod:`scalinglib.roofline.model`). The byte counts here are the compulsory
traffic: every operand read once and every result written once, each at its
own precision (fp8 inputs with a bf16 output, or 8-bit weights). A kernel that
re-reads its operands (because they do not fit in on-chip memory) moves more
bytes and has a lower intensity than these formulas give; the roofline built
from them is an upper bound.
"""

from __future__ import annotations

from .._validate import (
    check_broadcast,
    check_nonnegative,
    check_positive,
    check_whole,
    public,
    scalar_or_array,
)

__all__ = [
    "elementwise_intensity",
    "gemm_flops",
    "gemm_bytes",
    "gemm_intensity",
]


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
