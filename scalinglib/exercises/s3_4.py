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

#: Exercise 3.4.2: a server that completes 50 requests per second (20 ms each), with a p99 target of 250 ms.
MU, P99_TARGET = 50.0, 0.250
#: Exercise 3.4.3: a page waits for 40 back ends, each slow one time in 50; then 5,000 servers, 1 in 100,000.
FANOUT, EPS = 40, 1 / 50
#: Exercise 3.4.5: Llama 3 8B shape on one A100, 4,096 tokens of context, batch 1 against batch 48.
CONTEXT, BATCH = 4096, 48
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
    return decode_profile([1, BATCH], "Llama-3-8B", "A100 SXM 80GB", CONTEXT)


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
        lambda: max_utilization_for_p99(MU, P99_TARGET),
        unit="fraction",
        share=True,
        complement="the idle share",
        hint="Set the M/M/1 p99, ln(100) / (mu (1 - U)), equal to the target and solve for U; "
        "answer as a fraction, not a percentage.",
    ),
    Part(
        "ex-3-4-2d",
        lambda: math.exp(-(MU - 0.8 * MU) * 0.250),
        unit="fraction",
        share=True,
        complement="the share of requests within 250 ms",
        hint="The M/M/1 response time is exponential with rate mu - lambda, so Pr[T > t] = exp(-(mu - lambda) t); "
        "this is the quantile formula turned round.",
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
        lambda: fanout_slow_probability(EPS, FANOUT),
        unit="fraction",
        share=True,
        complement="the share of requests whose back ends are all fast",
        hint="1 - (1 - eps)^K, with eps the chance that one back end is slow and K the fan-out; as a fraction.",
    ),
    Part(
        "ex-3-4-3b",
        lambda: fanout_slow_probability(1e-5, 5000),
        unit="fraction",
        share=True,
        complement="the share of requests whose servers are all fast",
        hint="The same formula as (a), with the new eps and K; as a fraction.",
    ),
    Part(
        "ex-3-4-3c",
        lambda: fanout_slow_probability(EPS**2, FANOUT),
        unit="fraction",
        share=True,
        complement="the share of requests whose back ends are all fast",
        hint=("A hedged back end is slow only if both of its copies are: square the chance that one copy is slow. "
              "Then fan out to the 40 back ends as in (a)."),
    ),
    Part(
        "ex-3-4-3d",
        lambda: 1 - 0.99 ** (1 / FANOUT),
        unit="fraction",
        share=True,
        complement="the chance that a back end is fast",
        hint="Write the share of slow page requests as a function of eps, the chance that one back end is slow, "
        "set it equal to 0.01 and solve for eps.",
    ),
    Part(
        "ex-3-4-3e",
        lambda: mm1_mean_response(0.7 * 1.1 * 100.0, 100.0) / mm1_mean_response(0.7 * 100.0, 100.0),
        unit="factor",
        hint=("The factor is the new mean divided by the old one (1.5 if requests were 50% slower, not 0.5). "
              "The copies are 10% more arrivals, so U grows by a tenth; the M/M/1 mean is proportional to "
              "1 / (1 - U)."),
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
        lambda: [float(x) for x in batching_answers()["tokens_per_s"]],
        kind="numbers",
        unit="tokens/s",
        hint=("b / max((2N + b c_kv) / B, b F / P), with the inputs printed in 3.4.7; c_kv and F grow with the "
              "context, so recompute them for 4,096 tokens."),
    ),
    Part(
        "ex-3-4-5b",
        lambda: float(batching_answers()["tokens_per_s"][1] / batching_answers()["tokens_per_s"][0]),
        unit="factor",
        hint="Divide the tokens/s at batch 48 by the tokens/s at batch 1.",
    ),
    Part(
        "ex-3-4-5c",
        lambda: batching_answers()["max_batch"],
        unit="sequences in the batch",
        whole=True,
        rounding="down",
        hint="Largest b with 2N + b c_kv <= 0.9 x 80 GB, where c_kv is 4,096 tokens' worth of cache.",
    ),
    Part(
        "ex-3-4-5d",
        lambda: 1e3 * float(batching_answers()["step_time"][1]),
        unit="ms",
        hint="The time per decode step at batch 48: every sequence waits that long for each token.",
    ),
)
