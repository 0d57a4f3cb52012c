"""Exercises of Section 3.2: bytes per parameter, one server or many, the bandwidth hierarchy, placing TP."""

from __future__ import annotations

from ..hardware import LINKS, get_accelerator
from ..layout import A100_ACHIEVED_FLOPS, pipeline_bubble_fraction, scaling_efficiency, tensor_parallel_comm_fraction
from ..memory import devices_to_hold, kv_cache_bytes, model_bytes
from ..placement import tensor_parallel_ring_fraction
from .core import Part, register

#: Exercise 3.2.1: a 13B model; serving 16 sequences of 4,096 tokens with 40 layers, 40 KV heads of width 128.
N_13B = 13e9
KV_SHAPE = dict(n_layers=40, n_kv_heads=40, head_dim=128)
KV_TOKENS = 16 * 4096
#: Exercise 3.2.2: a 405B model on the catalog's GPUs.
N_405B = 405e9
GPUS = ("A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "MI300X")
#: Exercise 3.2.3: the bf16 gradients of a 7B model.
GRADIENT_BYTES = 7e9 * 2
#: Exercise 3.2.4: hidden size 8192 on A100s.
HIDDEN = 8192


def _mem(name):
    return get_accelerator(name).memory_bytes


def kv_13b_bytes():
    return kv_cache_bytes(KV_TOKENS, **KV_SHAPE)


def serving_devices_13b():
    return devices_to_hold(N_13B, "infer_fp16", _mem("H100"), extra_bytes=kv_13b_bytes())


def transfer_times_ms():
    """Milliseconds to move the gradients once over H100 HBM, NVLink 4 and one InfiniBand NDR port."""
    h100 = get_accelerator("H100")
    rates = (h100.memory_bandwidth, h100.link_bandwidth, LINKS["InfiniBand NDR"].bandwidth)
    return [1e3 * GRADIENT_BYTES / r for r in rates]


def tp_efficiencies():
    """Efficiency of 8-way TP on NVLink 3, 8-way TP over InfiniBand HDR, 16-way TP spanning two servers, all in
    the formula's worst case for the network (every ring hop on an HDR port)."""
    nvlink = get_accelerator("A100").link_bandwidth
    hdr = LINKS["InfiniBand HDR"].bandwidth
    return [scaling_efficiency(tensor_parallel_comm_fraction(t, HIDDEN, A100_ACHIEVED_FLOPS, bw))
            for t, bw in ((8, nvlink), (8, hdr), (16, hdr))]


def tp16_ring_efficiency():
    """16-way TP over two servers with node-ordered rings, one per HDR port (alpha = 0): a ring crosses the
    network once per server and eight rings share the bytes, so rho is the worst case's over 8."""
    rho = tensor_parallel_ring_fraction(16, HIDDEN, A100_ACHIEVED_FLOPS, get_accelerator("A100").link_bandwidth,
                                        LINKS["InfiniBand HDR"].bandwidth)
    return scaling_efficiency(rho)


def tp8_pp2_efficiency(microbatches=8):
    """8-way TP on NVLink in each of two servers, joined as a 2-stage pipeline with m micro-batches."""
    rho = tensor_parallel_comm_fraction(8, HIDDEN, A100_ACHIEVED_FLOPS, get_accelerator("A100").link_bandwidth)
    return scaling_efficiency(rho + pipeline_bubble_fraction(2, microbatches))


register(
    Part(
        "ex-3-2-1a",
        lambda: model_bytes(N_13B, "train_mixed_adam") / 1e9,
        unit="GB",
        hint="Mixed-precision Adam keeps 16 bytes per parameter; give the answer in GB of 1e9 bytes (dividing by 2**30 "
        "gives GiB, about 7% less).",
    ),
    Part(
        "ex-3-2-1b",
        lambda: devices_to_hold(N_13B, "train_mixed_adam", _mem("H100")),
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="Divide the training state by the usable 90% of 80 GB and round up.",
    ),
    Part(
        "ex-3-2-1c",
        lambda: kv_13b_bytes() / 1e9,
        unit="GB",
        hint="2 (a key and a value) x layers x KV heads x head width x 2 bytes, per token; then times all tokens.",
    ),
    Part(
        "ex-3-2-1d",
        serving_devices_13b,
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="Weights (2 bytes per parameter) plus the KV cache must fit in 90% of each H100's 80 GB.",
    ),
    Part(
        "ex-3-2-2a",
        lambda: [devices_to_hold(N_405B, "train_mixed_adam", _mem(g)) for g in GPUS],
        kind="numbers",
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="16 bytes per parameter over 90% of each GPU's memory, rounded up; A100, H100, H200, MI300X in order.",
    ),
    Part(
        "ex-3-2-2b",
        lambda: [devices_to_hold(N_405B, "infer_fp16", _mem(g)) for g in GPUS],
        kind="numbers",
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="2 bytes per parameter this time, the same four GPUs in the same order.",
    ),
    Part(
        "ex-3-2-2c",
        lambda: ["yes" if devices_to_hold(N_405B, "infer_fp16", _mem(g)) <= 8 else "no" for g in GPUS],
        kind="choices",
        choices=("yes", "no"),
        hint="Compare each serving count of (b) with the 8 GPUs of one server.",
    ),
    Part(
        "ex-3-2-3a",
        transfer_times_ms,
        kind="numbers",
        unit="ms",
        hint="Time = bytes / (bytes per second). The catalog gives 3.35e12, 450e9 (NVLink, one direction) and 50e9 "
        "bytes/s; answer in ms.",
    ),
    Part(
        "ex-3-2-3b",
        lambda: transfer_times_ms()[2] / transfer_times_ms()[0],
        unit="factor",
        hint="Divide the InfiniBand time by the HBM time: the answer is above 1 (a number below 1 is the ratio "
        "upside down).",
    ),
    Part(
        "ex-3-2-4a",
        tp_efficiencies,
        kind="numbers",
        unit="efficiency",
        hint="Give E = 1 / (1 + rho), not rho itself; rho = (2/9)(t - 1) X beta_link / h with X = 150e12, h = 8192, "
        "beta_link = 1/300e9 or 1/25e9 seconds per byte (the worst case: every hop at the network's speed).",
    ),
    Part(
        "ex-3-2-4b",
        tp16_ring_efficiency,
        unit="efficiency",
        hint="With eight rings, one per port, each port carries 1/8 of the worst case's bytes: take rho of "
        "t = 16 on HDR from (a), divide it by 8, then E = 1 / (1 + rho).",
    ),
    Part(
        "ex-3-2-4c",
        lambda: "tp8 pp2" if tp8_pp2_efficiency() > tp16_ring_efficiency() else "tp16",
        kind="choice",
        choices={"tp16": ("tp 16", "16 way tp"), "tp8 pp2": ("tp8pp2", "tp 8 pp 2", "tp8 x pp2")},
        hint="Price the pipeline option as rho_TP (8-way, on NVLink) plus the bubble (p - 1)/m with p = 2, m = 8, "
        "and compare its efficiency with (b).",
    ),
)
