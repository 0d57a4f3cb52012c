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
#: Exercise 3.2.2: a 70B model with fp8 weights (1 byte per parameter) and the KV shape of Llama 3 70B (80 layers,
#: 8 KV heads of width 128, bf16 cache), serving 96 users of 8,192 tokens, then of 32,768, on the catalog's GPUs.
N_70B = 70e9
KV_70B = dict(n_layers=80, n_kv_heads=8, head_dim=128)
USERS, CONTEXT, LONG_CONTEXT = 96, 8192, 32768
GPUS = ("A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "MI300X")
#: Exercise 3.2.3: the bf16 gradients of a 34B model, moved on an A100 server.
GRADIENT_BYTES = 34e9 * 2
#: Exercise 3.2.4: hidden size 8192 on A100s.
HIDDEN = 8192


def _mem(name):
    return get_accelerator(name).memory_bytes


def kv_13b_bytes():
    return kv_cache_bytes(KV_TOKENS, **KV_SHAPE)


def serving_devices_13b():
    return devices_to_hold(N_13B, "infer_fp16", _mem("H100"), extra_bytes=kv_13b_bytes())


def _serving_70b(context=CONTEXT):
    """Exercise 3.2.2: bytes of the fp8 weights and of the bf16 cache of USERS users of ``context`` tokens."""
    return N_70B * 1.0, kv_cache_bytes(USERS * context, **KV_70B)


def _serving_devices_70b():
    weights, cache = _serving_70b()
    return [devices_to_hold(N_70B, "infer_int8", _mem(g), extra_bytes=cache) for g in GPUS]


def _head_split_70b():
    """Exercise 3.2.2 (c): the smallest t that divides the 8 KV heads and is at least the device count of (b)."""
    return [min(t for t in (1, 2, 4, 8) if t >= n) for n in _serving_devices_70b()]


def _one_server_long_70b():
    weights, cache = _serving_70b(LONG_CONTEXT)
    return ["yes" if devices_to_hold(N_70B, "infer_int8", _mem(g), extra_bytes=cache) <= 8 else "no" for g in GPUS]


def transfer_times_ms():
    """Milliseconds to move the gradients once over A100 HBM, NVLink 3 and one InfiniBand HDR port."""
    a100 = get_accelerator("A100")
    rates = (a100.memory_bandwidth, a100.link_bandwidth, LINKS["InfiniBand HDR"].bandwidth)
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
    """8-way TP on NVLink in each of two servers, joined as a 2-stage pipeline with m micro-batches. The bubble
    idles whole slots, tensor-parallel time included: E = 1/((1 + rho_TP)(1 + rho_PP)) (Section 3.3.7)."""
    rho = tensor_parallel_comm_fraction(8, HIDDEN, A100_ACHIEVED_FLOPS, get_accelerator("A100").link_bandwidth)
    return scaling_efficiency((1 + rho) * (1 + pipeline_bubble_fraction(2, microbatches)) - 1)


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
        lambda: [b / 1e9 for b in _serving_70b()],
        kind="numbers",
        unit="GB",
        hint="Weights: 1 byte per parameter in fp8. Cache: 2 (a key and a value) x layers x KV heads x head width x "
        "2 bytes, per token, times 96 users x 8,192 tokens. Both in GB of 1e9 bytes.",
    ),
    Part(
        "ex-3-2-2b",
        _serving_devices_70b,
        kind="numbers",
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="Weights plus cache over 90% of each GPU's memory, rounded up; A100, H100, H200, MI300X in order.",
    ),
    Part(
        "ex-3-2-2c",
        _head_split_70b,
        kind="numbers",
        unit="GPUs",
        whole=True,
        rounding="up to a divisor of the 8 key-value heads",
        hint="Round each count of (b) up to the next of 1, 2, 4 and 8, the numbers that divide 8 heads evenly.",
    ),
    Part(
        "ex-3-2-2d",
        _one_server_long_70b,
        kind="choices",
        choices=("yes", "no"),
        hint="Redo (a) and (b) with 32,768 tokens per user, and compare each count with the 8 GPUs of one server.",
    ),
    Part(
        "ex-3-2-3a",
        transfer_times_ms,
        kind="numbers",
        unit="ms",
        hint="Time = bytes / (bytes per second). For the A100 the catalog gives 2.039e12 (HBM), 300e9 (NVLink 3, "
        "one direction) and 25e9 (one HDR port) bytes/s; answer in ms.",
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
