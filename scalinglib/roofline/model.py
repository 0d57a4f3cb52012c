r"""The roof: attainable rate, ridge point and regime (Sections 3.7.1 and 3.7.6).

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

How many bytes one number takes at each precision is in :data:`BYTES_PER_ELEMENT`
(:func:`precision_bytes` looks it up). :func:`cpu_socket_roof` gives a server CPU
socket's roof from its datasheet, and :data:`GROWTH_PER_TWO_YEARS` how fast the
two ceilings of server hardware grew.
"""

from __future__ import annotations

import numpy as np

from .._validate import (
    check_broadcast,
    check_choice,
    check_nonnegative,
    check_positive,
    public,
    scalar_or_array,
)

__all__ = [
    "BYTES_PER_ELEMENT",
    "precision_bytes",
    "attainable_flops",
    "ridge_point",
    "arithmetic_intensity",
    "roofline_time",
    "roofline_regime",
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
