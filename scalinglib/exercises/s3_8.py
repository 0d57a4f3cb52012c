"""Exercises of Section 3.8: one message, choosing an all-reduce algorithm, reading an nccl-tests
line, and whether the data-parallel gradient all-reduce hides behind the backward pass (with rings crossing
the network at every hop, then laid out node by node)."""

from __future__ import annotations

from ..comm import (
    algorithm_bandwidth,
    bus_bandwidth,
    collective_time,
    collective_times,
    crossover_size,
    effective_bandwidth,
    half_performance_size,
    multiring_allreduce_time,
    p2p_time,
)
from ..hardware import LINKS
from ..layout import A100_ACHIEVED_FLOPS, scaling_efficiency
from .core import Part, register

# 3.8.1: one link
LINK_ALPHA = 2e-6
LINK_BANDWIDTH = 25e9
# 3.8.2: an all-reduce over 100 Gb/s Ethernet
AR_P = 16
AR_ALPHA = 10e-6
AR_NBYTES = 64 * 2**20
# 3.8.3: a line of nccl-tests output on 8 GPUs
NCCL_P = 8
NCCL_NBYTES = 2**30
NCCL_SECONDS = 5.6e-3
# 3.8.4: data-parallel training of a 7B model (112 GB of training state: two 80 GB GPUs per replica)
DP_PARAMS = 7e9
DP_REPLICAS = 32
DP_TP = 2                  #: GPUs per replica (tensor parallelism), each with its own network port
DP_GRAD_BYTES = 2          #: bf16 gradients
DP_TOKENS = 4096           #: tokens per replica per step in part (b)
DP_TOKENS_SHORT = 1024     #: tokens per replica per step in part (d)
DP_GPUS_PER_NODE = 8       #: part (e): replicas four to a node of eight GPUs, rings laid out node by node


def _ar_beta():
    return 1.0 / LINKS["100GbE"].bandwidth


def allreduce_table_ms():
    """Times in ms of ring, binomial tree, recursive doubling and Rabenseifner for exercise 3.8.2."""
    times = collective_times("allreduce", AR_NBYTES, AR_P, AR_ALPHA, _ar_beta())
    return [times[a] * 1e3 for a in ("ring", "binomial_tree", "recursive_doubling", "rabenseifner")]


def allreduce_winner():
    times = collective_times("allreduce", AR_NBYTES, AR_P, AR_ALPHA, _ar_beta())
    return min(times, key=times.get)


def dp_allreduce_seconds():
    """Ring all-reduce, over InfiniBand NDR with latency ignored, of the bf16 gradients one GPU holds: its
    1/t share, summed with the GPUs holding the same share in the other replicas."""
    beta = 1.0 / LINKS["InfiniBand NDR"].bandwidth
    shard = DP_GRAD_BYTES * DP_PARAMS / DP_TP
    return collective_time("allreduce", shard, DP_REPLICAS, 0.0, beta, algorithm="ring")


def backward_seconds(tokens):
    """One GPU's backward pass: about 4 N FLOPs per token (two thirds of 6 N), split over the replica's t
    GPUs, at the sustained rate."""
    return 4.0 * DP_PARAMS * tokens / (DP_TP * A100_ACHIEVED_FLOPS)


def hiding_tokens():
    """Tokens per replica per step at which the backward pass lasts as long as the all-reduce (t cancels)."""
    return dp_allreduce_seconds() * DP_TP * A100_ACHIEVED_FLOPS / (4.0 * DP_PARAMS)


def hiding_tokens_by_node():
    """Part (e): the same threshold with the rings laid out node by node, one per port. A data-parallel group
    has g/t members (and ports) per node, so the all-reduce and the threshold shrink by t/g."""
    per_node = DP_GPUS_PER_NODE // DP_TP
    seconds = multiring_allreduce_time(DP_GRAD_BYTES * DP_PARAMS / DP_TP, DP_REPLICAS // per_node, per_node,
                                       0.0, 1.0 / LINKS["NVLink 4 (H100)"].bandwidth,
                                       0.0, 1.0 / LINKS["InfiniBand NDR"].bandwidth, nics=per_node)
    return seconds * DP_TP * A100_ACHIEVED_FLOPS / (4.0 * DP_PARAMS)


def dp_efficiency(tokens=DP_TOKENS_SHORT):
    """E = 1 / (1 + rho), rho = the all-reduce time not hidden by the backward pass over the step's compute."""
    exposed = max(0.0, dp_allreduce_seconds() - backward_seconds(tokens))
    compute = 6.0 * DP_PARAMS * tokens / (DP_TP * A100_ACHIEVED_FLOPS)
    return scaling_efficiency(exposed / compute)


register(
    Part(
        "ex-3-8-1a",
        lambda: p2p_time(1e6, LINK_ALPHA, 1 / LINK_BANDWIDTH) * 1e6,
        unit="µs",
        hint="T = alpha + n beta with beta = 1 / (25e9 bytes/s); give microseconds.",
    ),
    Part(
        "ex-3-8-1b",
        lambda: half_performance_size(LINK_ALPHA, 1 / LINK_BANDWIDTH),
        unit="bytes",
        hint="n_half = alpha / beta = alpha x bandwidth.",
    ),
    Part(
        "ex-3-8-1c",
        lambda: effective_bandwidth(4096, LINK_ALPHA, 1 / LINK_BANDWIDTH) * (1 / LINK_BANDWIDTH),
        unit="fraction",
        hint="Achieved bandwidth n / (alpha + n beta), divided by 1/beta; equivalently n / (n + n_half). A fraction.",
    ),
    Part(
        "ex-3-8-2a",
        allreduce_table_ms,
        kind="numbers",
        unit="ms",
        hint="Four times in ms, in the order ring, binomial tree, recursive doubling, Rabenseifner; "
        "beta = 1 / 12.5e9 s/byte and n = 64 MiB = 67,108,864 bytes.",
    ),
    Part(
        "ex-3-8-2b",
        allreduce_winner,
        kind="choice",
        choices={"ring": (), "binomial_tree": ("binomial",), "recursive_doubling": (), "rabenseifner": ("Rabenseifner's", "Rabenseifner's algorithm")},
        hint="The smallest of your four times in (a).",
    ),
    Part(
        "ex-3-8-2c",
        lambda: crossover_size("allreduce", "recursive_doubling", "ring", AR_P, AR_ALPHA, _ar_beta()),
        unit="bytes",
        hint="Set log2 K (alpha + n beta) = 2 (K-1) alpha + 2 (K-1)/K n beta and solve for n.",
    ),
    Part(
        "ex-3-8-3a",
        lambda: algorithm_bandwidth(NCCL_NBYTES, NCCL_SECONDS) / 1e9,
        unit="GB/s",
        hint="algbw = size / time, with 1 GiB = 2**30 bytes and GB = 1e9 bytes.",
    ),
    Part(
        "ex-3-8-3b",
        lambda: bus_bandwidth("allreduce", NCCL_NBYTES, NCCL_SECONDS, NCCL_P) / 1e9,
        unit="GB/s",
        hint="busbw = algbw x 2 (K-1) / K for an all-reduce.",
    ),
    Part(
        "ex-3-8-3c",
        lambda: bus_bandwidth("allreduce", NCCL_NBYTES, NCCL_SECONDS, NCCL_P) / LINKS["NVLink 4 (H100)"].bandwidth,
        unit="fraction",
        hint="Divide the busbw by the NVLink bandwidth in one direction, 450 GB/s (the 900 GB/s on the datasheet "
        "counts both). A fraction.",
    ),
    Part(
        "ex-3-8-3d",
        lambda: bus_bandwidth("allgather", NCCL_NBYTES, NCCL_SECONDS, NCCL_P) / 1e9,
        unit="GB/s",
        hint="Same algbw; the all-gather factor is (K-1)/K.",
    ),
    Part(
        "ex-3-8-3e",
        lambda: algorithm_bandwidth(NCCL_NBYTES, NCCL_SECONDS) / LINKS["NVLink 4 (H100)"].bandwidth,
        unit="fraction",
        hint="With NVLS each GPU sends its n bytes once and receives the n-byte sum once: its traffic in each "
        "direction is n / T, the algbw. Divide by 450 GB/s.",
    ),
    Part(
        "ex-3-8-4a",
        dp_allreduce_seconds,
        unit="s",
        hint="Each GPU all-reduces its half of the gradients: 2 (d-1)/d x n / bandwidth, with n = 2 bytes x 7e9 / 2 "
        "and 50e9 bytes/s, alpha ignored.",
    ),
    Part(
        "ex-3-8-4b",
        lambda: backward_seconds(DP_TOKENS),
        unit="s",
        hint="4 N FLOPs per token, 4096 tokens, split over the replica's 2 GPUs, each at 150e12 FLOP/s.",
    ),
    Part(
        "ex-3-8-4c",
        hiding_tokens,
        unit="tokens",
        hint="Set one GPU's backward pass, 4 N B_rep / (t X) for B_rep tokens per replica, equal to its all-reduce "
        "time and solve for B_rep. N and t cancel out.",
    ),
    Part(
        "ex-3-8-4d",
        dp_efficiency,
        unit="efficiency",
        hint="rho = (all-reduce - backward) / (6 N B_rep / (t X)) at B_rep = 1024 tokens, one GPU's times, then "
        "E = 1 / (1 + rho). A fraction.",
    ),
    Part(
        "ex-3-8-4e",
        hiding_tokens_by_node,
        unit="tokens",
        hint="How many members of one data-parallel group, each with its own port, share a node now? The rings run "
        "side by side, one per port, each carrying its share of the bytes. Then redo (c).",
    ),
)
