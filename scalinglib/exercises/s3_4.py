"""Exercises of Section 3.4: Little's law, the hockey stick, fan-out, stragglers, batching."""

from __future__ import annotations

import math

from ..latency import (
    expected_slowest_step,
    fanout_slow_probability,
    kingman_mean_wait,
    littles_law,
    mm1_mean_response,
    mm1_response_percentile,
)
from ..serving import decode_profile
from .core import Part, register

#: Exercise 3.4.2: a server that completes 50 requests per second (20 ms each).
MU = 50.0
#: Exercise 3.4.4: K = 256 workers, 1 s of work each plus exponential jitter of mean 50 ms; r = 8 backups.
K, T0, TAU, BACKUPS = 256, 1.0, 0.05, 8


def max_utilization_for_p99(service_rate, p99_budget, q=0.99):
    """Highest utilization at which the M/M/1 q-quantile stays within the budget (seconds)."""
    return 1.0 - (-math.log1p(-q)) / (service_rate * p99_budget)


def straggler_answers():
    step = expected_slowest_step(K, T0, TAU)
    step_b = expected_slowest_step(K, T0, TAU, backups=BACKUPS)
    return step, (T0 + TAU) / step, step_b, [K * step, (K + BACKUPS) * step_b]


def batching_answers():
    prof = decode_profile([1, 64], "Llama-3-8B", "A100 SXM 80GB", 2048)
    long = decode_profile(1, "Llama-3-8B", "A100 SXM 80GB", 8192)
    at_max = decode_profile(long["max_batch"], "Llama-3-8B", "A100 SXM 80GB", 8192)
    return prof, long["max_batch"], float(at_max["tokens_per_s"][0])


register(
    Part(
        "ex-3-4-1a",
        lambda: littles_law(arrival_rate=120.0, time_in_system=0.5),
        unit="requests",
        hint="Little's law: N_sys = lambda T_sys.",
    ),
    Part(
        "ex-3-4-1b",
        lambda: littles_law(number_in_system=32, time_in_system=4.0),
        unit="requests/s",
        hint="With at most N_sys requests inside, each staying T_sys seconds, at most N_sys / T_sys can finish per second.",
    ),
    Part(
        "ex-3-4-1c",
        lambda: 1e3 * littles_law(number_in_system=45, arrival_rate=150.0),
        unit="ms",
        hint="T_sys = N_sys / lambda, in milliseconds.",
    ),
    Part(
        "ex-3-4-2a",
        lambda: mm1_mean_response(0.8 * MU, MU),
        unit="s",
        hint="Mean response = 1 / (mu - lambda), with lambda = 0.8 mu; in seconds.",
    ),
    Part(
        "ex-3-4-2b",
        lambda: mm1_response_percentile(0.99, 0.8 * MU, MU),
        unit="s",
        hint="The response time is exponential with rate mu - lambda: p99 = ln(100) / (mu - lambda), in seconds.",
    ),
    Part(
        "ex-3-4-2c",
        lambda: max_utilization_for_p99(MU, 0.2),
        unit="fraction",
        share=True,
        complement="the idle share",
        hint="Solve ln(100) / (mu (1 - U)) = 0.2 s for U; answer as a fraction, not a percentage.",
    ),
    Part(
        "ex-3-4-2d",
        lambda: mm1_response_percentile(0.99, 0.8 * MU, MU) / mm1_mean_response(0.8 * MU, MU),
        unit="factor",
        hint="Divide the p99 by the mean: the rate mu - lambda cancels.",
    ),
    Part(
        "ex-3-4-2e",
        lambda: 1.0 / MU + kingman_mean_wait(0.8, 1.0 / MU, 4.0),
        unit="s",
        hint=("Pollaczek-Khinchine: mean wait = U / (1 - U) x (1 + C_s^2) / 2 x mean service time. "
              "The response time adds the service time itself; in seconds."),
    ),
    Part(
        "ex-3-4-3a",
        lambda: fanout_slow_probability(0.01, 100),
        unit="fraction",
        share=True,
        complement="the share of requests whose leaves are all fast",
        hint="1 - (1 - eps)^K, with eps the chance that one server is slow and K the fan-out; as a fraction.",
    ),
    Part(
        "ex-3-4-3b",
        lambda: fanout_slow_probability(1e-4, 2000),
        unit="fraction",
        share=True,
        complement="the share of requests whose leaves are all fast",
        hint="1 - (1 - eps)^K with eps = 1/10,000 and K = 2,000, as a fraction.",
    ),
    Part(
        "ex-3-4-3c",
        lambda: fanout_slow_probability(0.01**2, 100),
        unit="fraction",
        share=True,
        complement="the share of requests whose leaves are all fast",
        hint=("A hedged leaf is slow only if both of its copies are: square the chance that one copy is slow. "
              "Then fan out to 100 leaves as in (a)."),
    ),
    Part(
        "ex-3-4-3d",
        lambda: 1 - 0.99 ** (1 / 100),
        unit="fraction",
        share=True,
        complement="the chance that a server is fast",
        hint="Write the share of slow 100-way requests as a function of eps, the chance that one server is slow, "
        "set it equal to 0.01 and solve for eps.",
    ),
    Part(
        "ex-3-4-3e",
        lambda: mm1_mean_response(0.7 * 1.1 * 100.0, 100.0) / mm1_mean_response(0.7 * 100.0, 100.0),
        unit="factor",
        hint=("The copies are 10% more arrivals, so U grows from 0.7 to 0.7 x 1.1. The M/M/1 mean is "
              "proportional to 1 / (1 - U): divide the new mean by the old one."),
    ),
    Part(
        "ex-3-4-4a",
        lambda: straggler_answers()[0],
        unit="s",
        hint="t0 + tau H_K, with H_K = 1 + 1/2 + ... + 1/K (about ln K + 0.5772 for large K).",
    ),
    Part(
        "ex-3-4-4b",
        lambda: straggler_answers()[1],
        unit="efficiency",
        hint="One worker alone takes t0 + tau on average; divide that by the expected step time.",
    ),
    Part(
        "ex-3-4-4c",
        lambda: straggler_answers()[2],
        unit="s",
        hint=("The step ends when the fastest K of K + r are done: t0 + tau (H_{K+r} - H_r). Compute H_8 exactly "
              "(1 + 1/2 + ... + 1/8 = 2.718); the ln approximation is poor for small n."),
    ),
    Part(
        "ex-3-4-4d",
        lambda: straggler_answers()[3],
        kind="numbers",
        unit="GPU-seconds",
        hint="Workers paid for times the expected step time: K = 256 for (a), K + r = 256 + 8 for (c).",
    ),
    Part(
        "ex-3-4-5a",
        lambda: [float(x) for x in batching_answers()[0]["tokens_per_s"]],
        kind="numbers",
        unit="tokens/s",
        hint=("b / max((2N + b c_kv) / B, b F / P) with 2N = 16 GB of weights, c_kv = 2,048 x 131,072 bytes "
              "of cache per sequence, B = 2.039e12 bytes/s."),
    ),
    Part(
        "ex-3-4-5b",
        lambda: float(batching_answers()[0]["tokens_per_s"][1] / batching_answers()[0]["tokens_per_s"][0]),
        unit="factor",
        hint="Divide the tokens/s at batch 64 by the tokens/s at batch 1.",
    ),
    Part(
        "ex-3-4-5c",
        lambda: batching_answers()[1],
        unit="sequences in the batch",
        whole=True,
        rounding="down",
        hint="Largest b with 2N + b c_kv <= 0.9 x 80 GB, where c_kv is now 8,192 tokens' worth of cache.",
    ),
    Part(
        "ex-3-4-5d",
        lambda: 1e3 * float(batching_answers()[0]["step_time"][1]),
        unit="ms",
        hint="The time per decode step at batch 64: every sequence waits that long for each token.",
    ),
)
