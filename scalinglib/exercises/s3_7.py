"""Exercises of Section 3.7: reading a roofline, how large a matrix multiply must be, batching decode
with 8-bit weights, what a bandwidth upgrade buys between the two ridges, and kernels in sequence.

Each asks for a step the text did not take: another device (MI300X, H200), precision (fp8, weight-only
8-bit), model (13B, 70B) or batch than the ones the section prints."""

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
MI300X = "MI300X"
DECODE_PARAMS = 7e9          #: the 7B model of the text (exercise 3.7.3(d))
SQUARE_ORDERS = (768, 1536)  #: the square multiplies of exercise 3.7.1(b)
QUANTIZED_PARAMS = 13e9      #: the 13B model of exercise 3.7.3, 8-bit weights, bf16 arithmetic
UPGRADE_PARAMS = 70e9        #: the 70B model of exercise 3.7.4, 8-bit weights, bf16 arithmetic
UPGRADE_BATCHES = (128, 256)  #: the two batches of exercise 3.7.4
LAYER = 8192                 #: width of the square weight matrix of exercise 3.7.2
MEASURED_SPEEDUP = 27.0      #: tokens/s from batch 1 to batch 64 on one A100 (DatabaseMart 2024, as Bhandari 2025 reports it)


def _roof(name, precision="bf16"):
    acc = get_accelerator(name)
    return acc.peak(precision), acc.memory_bandwidth


def classify_h100():
    """Memory- or compute-bound on the H100 in bf16: vector add, GEMM 768^3, GEMM 1536^3, 7B decode at batch 32."""
    peak, bw = _roof(H100)
    small, large = SQUARE_ORDERS
    intensities = [
        elementwise_intensity(1, 3, 2),
        gemm_intensity(small, small, small),
        gemm_intensity(large, large, large),
        decode_intensity(32, DECODE_PARAMS),
    ]
    return [roofline_regime(i, peak, bw).split("-")[0] for i in intensities]


def smallest_compute_bound_square(name=MI300X, precision="bf16"):
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


def quantized_decode(name=H200, n_params=QUANTIZED_PARAMS, batch=64):
    """Exercise 3.7.3(a)-(c): 8-bit weights, bf16 arithmetic. (step time at batch 1 in seconds, the batch at the
    ridge point, the share of the bf16 peak in use at ``batch``)."""
    peak, bw = _roof(name)
    step = decode_step_time(1, n_params, peak, bw, bytes_per_param=1)
    ridge_batch = get_accelerator(name).ridge_point("bf16") / 2.0          # I(b) = 2 b / 1 byte
    share = min(1.0, decode_intensity(batch, n_params, bytes_per_param=1) / get_accelerator(name).ridge_point("bf16"))
    return step, ridge_batch, share


def upgrade_speedups(n_params=UPGRADE_PARAMS, batches=UPGRADE_BATCHES):
    """Exercise 3.7.4: tokens/s on the H200 over the H100 at each batch, 8-bit weights, bf16 arithmetic."""
    def tokens(batch, name):
        return decode_tokens_per_second(batch, n_params, *_roof(name), bytes_per_param=1)
    return [tokens(b, H200) / tokens(b, H100) for b in batches]


def kv_fraction_for(measured=MEASURED_SPEEDUP, batch=64):
    """Cache bytes per sequence, as a fraction eta of the weight bytes, that turn the roofline's
    batch-fold speedup into the measured one: batch (1 + eta) / (1 + batch eta) = measured."""
    return (batch - measured) / (measured * batch - batch)


register(
    Part(
        "ex-3-7-1a",
        lambda: get_accelerator(MI300X).ridge_point("fp8"),
        unit="FLOP/byte",
        hint="Divide the dense fp8 peak (FLOP/s) by the HBM bandwidth (bytes/s); the catalog's MI300X row has both.",
    ),
    Part(
        "ex-3-7-1b",
        classify_h100,
        kind="choices",
        choices={"memory": ("memory bandwidth", "bandwidth"), "compute": ()},
        hint="Compute each kernel's intensity and compare it with the H100's bf16 ridge point. "
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
        hint="Solve x / 3 >= P / B for the MI300X in bf16 and round up.",
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
        lambda: quantized_decode()[0] * 1e3,
        unit="ms",
        hint="At batch 1 decoding is memory-bound: the step reads 1 byte for each of the 13e9 weights at the H200's "
        "HBM bandwidth.",
    ),
    Part(
        "ex-3-7-3b",
        lambda: quantized_decode()[1],
        unit="sequences",
        hint="With 1-byte weights and no cache traffic the decode intensity is 2b, and the arithmetic runs at the bf16 "
        "peak; set 2b equal to the bf16 ridge point.",
    ),
    Part(
        "ex-3-7-3c",
        lambda: quantized_decode()[2],
        unit="fraction",
        hint="While memory-bound, the share of the peak in use is I / ridge, with I = 2b for 1-byte weights. "
        "Give a fraction, not a percentage.",
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
        lambda: upgrade_speedups()[0],
        unit="factor",
        hint="With 1-byte weights I = 2b. Find on which side of each device's bf16 ridge point the batch lies, then "
        "take each step time as the larger of W / P and Q / B.",
    ),
    Part(
        "ex-3-7-4b",
        lambda: upgrade_speedups()[1],
        unit="factor",
        hint="Where is I = 2b now relative to both ridge points? Which of P and B sets the step time, and do the "
        "two devices differ in it?",
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
