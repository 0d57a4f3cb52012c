"""Exercises of Section 3.7: reading a roofline, how large a matrix multiply must be, batching decode,
what a bandwidth upgrade buys, and kernels in sequence."""

from __future__ import annotations

import math

from ..hardware import get_accelerator
from ..roofline import (
    attainable_flops,
    decode_intensity,
    decode_step_time,
    decode_tokens_per_second,
    elementwise_intensity,
    gemm_bytes,
    gemm_flops,
    gemm_intensity,
    roofline_regime,
    roofline_time,
)
from .core import Part, register

H100 = "H100 SXM 80GB"
A100 = "A100 SXM 80GB"
H200 = "H200 SXM 141GB"
DECODE_PARAMS = 7e9
LAYER = 8192                 #: width of the square weight matrix of exercise 3.7.2
MEASURED_SPEEDUP = 27.0      #: tokens/s from batch 1 to batch 64 on one A100 (DatabaseMart 2024, as Bhandari 2025 reports it)


def _roof(name, precision="bf16"):
    acc = get_accelerator(name)
    return acc.peak(precision), acc.memory_bandwidth


def classify_h100():
    """Memory- or compute-bound on the H100 in bf16: vector add, GEMM 768^3, GEMM 4096^3, 7B decode at batch 32."""
    peak, bw = _roof(H100)
    intensities = [
        elementwise_intensity(1, 3, 2),
        gemm_intensity(768, 768, 768),
        gemm_intensity(4096, 4096, 4096),
        decode_intensity(32, DECODE_PARAMS),
    ]
    return [roofline_regime(i, peak, bw).split("-")[0] for i in intensities]


def smallest_compute_bound_square(name=H100, precision="bf16"):
    """Smallest whole order n with a square bf16 GEMM at or above the ridge point: n / 3 >= I*."""
    ridge = get_accelerator(name).ridge_point(precision)
    n = math.ceil(3 * ridge)
    while gemm_intensity(n - 1, n - 1, n - 1) >= ridge:   # guard against rounding at the boundary
        n -= 1
    while gemm_intensity(n, n, n) < ridge:
        n += 1
    return n


def smallest_compute_bound_batch(name=A100, width=LAYER, precision="bf16"):
    """Smallest whole m with an (m x width) @ (width x width) bf16 GEMM at or above the ridge point."""
    ridge = get_accelerator(name).ridge_point(precision)
    m = 1
    while gemm_intensity(m, width, width) < ridge:
        m += 1
    return m


def skinny_fraction_of_peak(m=16, name=A100, width=LAYER):
    peak, bw = _roof(name)
    return attainable_flops(gemm_intensity(m, width, width), peak, bw) / peak


def kv_fraction_for(measured=MEASURED_SPEEDUP, batch=64):
    """Cache bytes per sequence, as a fraction eta of the weight bytes, that turn the roofline's
    batch-fold speedup into the measured one: batch (1 + eta) / (1 + batch eta) = measured."""
    return (batch - measured) / (measured * batch - batch)


register(
    Part(
        "ex-3-7-1a",
        lambda: get_accelerator("TPU v5e").ridge_point("bf16"),
        unit="FLOP/byte",
        hint="Divide the dense bf16 peak (FLOP/s) by the HBM bandwidth (bytes/s).",
    ),
    Part(
        "ex-3-7-1b",
        classify_h100,
        kind="choices",
        choices={"memory": ("memory bandwidth", "bandwidth"), "compute": ()},
        hint="Compute each kernel's intensity and compare it with the H100's bf16 ridge point, about 295 FLOP/byte. "
        "A square GEMM of order x in bf16 has I = x/3; decode of 2-byte weights has I = b.",
    ),
    Part(
        "ex-3-7-1c",
        lambda: attainable_flops(gemm_intensity(768, 768, 768), *_roof(H100)) / 1e12,
        unit="TFLOP/s",
        hint="Below the ridge the roof is B x I. The answer is a rate in TFLOP/s, not a fraction of the peak.",
    ),
    Part(
        "ex-3-7-2a",
        smallest_compute_bound_square,
        unit="matrix order",
        whole=True,
        rounding="up",
        hint="Solve x / 3 >= P / B for the H100 in bf16 and round up.",
    ),
    Part(
        "ex-3-7-2b",
        smallest_compute_bound_batch,
        unit="tokens in the batch",
        whole=True,
        rounding="up",
        hint="With x tokens, I(x) = 2 x y z / (2 (x y + y z + x z)) for y = z = 8192; find the first whole x with "
        "I(x) at or above the A100's bf16 ridge point.",
    ),
    Part(
        "ex-3-7-2c",
        skinny_fraction_of_peak,
        unit="fraction",
        hint="Attainable / peak = B I / P = I / ridge while the kernel is memory-bound. Give a fraction, not a percentage.",
    ),
    Part(
        "ex-3-7-3a",
        lambda: decode_step_time(1, DECODE_PARAMS, *_roof(A100)) * 1e3,
        unit="ms",
        hint="At batch 1 decoding is memory-bound: the step reads 2 bytes for each of the 7e9 weights at the HBM bandwidth.",
    ),
    Part(
        "ex-3-7-3b",
        lambda: get_accelerator(A100).ridge_point("bf16"),
        unit="sequences",
        hint="With 2-byte weights and no cache traffic the decode intensity equals the batch; set it equal to the ridge point.",
    ),
    Part(
        "ex-3-7-3c",
        lambda: decode_tokens_per_second(64, DECODE_PARAMS, *_roof(A100))
        / decode_tokens_per_second(1, DECODE_PARAMS, *_roof(A100)),
        unit="factor",
        hint="Is batch 64 still below the ridge? Compare how long a step takes, and how many tokens it makes, at "
        "batch 1 and at batch 64.",
    ),
    Part(
        "ex-3-7-3d",
        kv_fraction_for,
        unit="fraction",
        hint="A step at batch b reads N b_p (1 + b eta) bytes; tokens/s is b / step time. Solve 64 (1 + eta) / (1 + 64 eta) = 27. "
        "eta is a fraction of the weight bytes, not a number of bytes.",
    ),
    Part(
        "ex-3-7-4a",
        lambda: decode_tokens_per_second(1, DECODE_PARAMS, *_roof(H200))
        / decode_tokens_per_second(1, DECODE_PARAMS, *_roof(H100)),
        unit="factor",
        hint="At batch 1 the step is memory-bound: the speedup is the ratio of the memory bandwidths.",
    ),
    Part(
        "ex-3-7-4b",
        lambda: decode_tokens_per_second(1024, DECODE_PARAMS, *_roof(H200))
        / decode_tokens_per_second(1024, DECODE_PARAMS, *_roof(H100)),
        unit="factor",
        hint="At batch 1024 both devices are past their ridge points: which of P and B sets the step time, "
        "and do the two devices differ in it?",
    ),
)


# --- exercise 3.7.5: kernels in sequence, and fusing them -------------------------------------------------

FUSION_ORDER = 4096          #: order of the square matrices of exercise 3.7.5
ACTIVATION_FLOPS = 8.0       #: FLOPs per element of the activation of exercise 3.7.5


def kernel_sequence_times(name=A100, order=FUSION_ORDER, activation_flops=ACTIVATION_FLOPS):
    """Exercise 3.7.5, in seconds: (a GEMM, an element-wise addition and an activation, each on its own
    roofline and summed; the three fused into one kernel that reads three matrices and writes one)."""
    peak, bw = _roof(name)
    elements = float(order) ** 2
    kernels = [(gemm_flops(order, order, order), gemm_bytes(order, order, order)),
               (elements, 3 * 2 * elements),
               (activation_flops * elements, 2 * 2 * elements)]
    one_by_one = sum(roofline_time(w, q, peak, bw) for w, q in kernels)
    fused = roofline_time(sum(w for w, _ in kernels), 4 * 2 * elements, peak, bw)
    return one_by_one, fused


register(
    Part(
        "ex-3-7-5a",
        lambda: kernel_sequence_times()[0] * 1e6,
        unit="µs",
        hint="Give each kernel its own max(W / P, Q / B), with 2 bytes per bf16 number, and add the three times.",
    ),
    Part(
        "ex-3-7-5b",
        lambda: kernel_sequence_times()[1] * 1e6,
        unit="µs",
        hint="One kernel: W is the three kernels' FLOPs together, Q is four 4096 x 4096 matrices of bf16 numbers.",
    ),
    Part(
        "ex-3-7-5c",
        lambda: 1 - kernel_sequence_times()[1] / kernel_sequence_times()[0],
        unit="fraction",
        share=True,
        complement="the fused time as a fraction of the time of (a)",
        hint="The saving is 1 minus the fused time over the time of (a). Give a fraction, not a percentage.",
    ),
)
