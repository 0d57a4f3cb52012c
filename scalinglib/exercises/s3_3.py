"""Exercises of Section 3.3: classifying scaling studies, the best worker count (tree and ring), iso-efficiency,
the DP cap and the pipeline bubble."""

from __future__ import annotations

import numpy as np

from ..batchsize import data_parallel_cap, examples_to_target, steps_to_target
from ..layout import layout_sweep, parallel_layout, pipeline_bubble_fraction, scaling_efficiency
from ..scaling import best_worker_count, isoefficiency_work, strong_time, weak_model_efficiency
from .core import Part, register

S0, C0 = 0.05, 0.01          # exercise 3.3.3, and the section's running example
F2, C2 = 0.02, 0.005         # exercise 3.3.2 (a), (b), (d): a case the text does not work out
START_UP = 1e-5              # exercise 3.3.2 (c), (d): one start-up of the ring's 2(K - 1) steps, in units of T(1)
B_OVER = 8.0                 # exercise 3.3.4 (b): the batch, in units of the critical batch
TRIALS, TRIAL_GPUS = 256, 192   # exercise 3.3.1 (e): one-hour models of the search, and the GPUs that run them


def _ring_with_start_ups():
    """Exercise 3.3.2 (c), (d): the whole K that minimises f + (1-f)/K + c (K-1)/K + 2 (K-1) a, by brute force, with
    its time (in units of T(1))."""
    ks = np.arange(1, 5001)
    t = F2 + (1 - F2) / ks + C2 * (ks - 1) / ks + 2 * (ks - 1) * START_UP
    i = int(np.argmin(t))
    return int(ks[i]), float(t[i])


def _search_waves():
    """Exercise 3.3.1 (e): efficiency of TRIALS one-hour trials on TRIAL_GPUS GPUs, run in waves, and the fewest GPUs
    that need no more waves."""
    waves = -(-TRIALS // TRIAL_GPUS)
    return [TRIALS / (TRIAL_GPUS * waves), -(-TRIALS // waves)]


def _interleaving_4096():
    """Exercise 3.3.4(c): the 13B model on 4,096 GPUs with m = 8 (DP 128 x TP 8 x PP 4), plain and interleaved."""
    lay = parallel_layout(4096, 13e9, 4e6, 4e6, microbatches_per_stage=8)
    chunks = lay.layers // lay.pp
    # the bubble idles for whole slots, tensor-parallel time included: E = 1/((1 + rho_TP)(1 + rho_PP))
    return [scaling_efficiency((1 + lay.tp_fraction) * (1 + pipeline_bubble_fraction(lay.pp, lay.microbatches, chunks=v))
                               - 1) for v in (1, chunks)]


def _past_the_critical_batch():
    """Exercise 3.3.4(b): steps and tokens at B_OVER times the critical batch (in units of their minima), and the
    share of those tokens that a run at the critical batch (2 D_tok,min) would not have needed."""
    steps, tokens = steps_to_target(B_OVER, 1.0), examples_to_target(B_OVER, 1.0)
    return [steps, tokens, 1.0 - examples_to_target(1.0, 1.0) / tokens]


def _dp_zone_175b():
    """Exercise 3.3.4(d): the GPUs of the 175B model's data-parallel zone when the cap is rounded down to whole
    replicas (not to a power of two), with a critical batch (and largest batch) of 16,000,000 tokens."""
    sweep = layout_sweep([64], 175e9, 16e6, 16e6)       # m and one replica's GPUs do not depend on the cluster
    m, per_replica = int(sweep["microbatches"][0]), int(sweep["min_gpus"][0])
    return data_parallel_cap(16e6, micro_batch=1, grad_accum=m, seq_len=2048) * per_replica


def _k2_efficiency():
    return weak_model_efficiency(2, S0, C0)


register(
    Part(
        "ex-3-3-1a",
        lambda: ["strong", "weak", "strong", "weak"],
        kind="choices",
        choices=("strong", "weak"),
        hint="Ask of each scenario: does the total job stay the same size as machines are added?",
    ),
    Part(
        "ex-3-3-1b",
        lambda: ["falls", "high", "high", "falls"],
        kind="choices",
        choices={"high": ("stays high", "remains high"), "falls": ("fall", "falling", "drops")},
        hint="For each scenario, ask two things: does some worker sit idle, or wait on communication, at the larger "
        "counts; and does each worker's work, not just its share of the data, stay the same as the job grows?",
    ),
    Part(
        "ex-3-3-1c",
        _search_waves,
        kind="numbers",
        unit=("efficiency", "GPUs"),
        whole=(False, True),
        rounding="the fewest GPUs that need no more one-hour waves",
        hint="Count the one-hour waves: each GPU trains one model at a time, so K GPUs need ceil(256 / K) waves. "
        "Efficiency is T(1) / (K T(K)) with T(1) = 256 hours.",
    ),
    Part(
        "ex-3-3-2a",
        lambda: best_worker_count(F2, C2),
        unit="workers",
        whole=True,
        rounding="compare the whole K on either side of the real optimum",
        hint="Set the derivative of f + (1 - f)/K + c log2 K to zero, then compare the two whole K around it.",
    ),
    Part(
        "ex-3-3-2b",
        lambda: strong_time(best_worker_count(F2, C2), F2, C2),
        unit="T(1)",
        hint="Evaluate T_strong at the best K. The answer is a time in units of T(1), not a speedup.",
    ),
    Part(
        "ex-3-3-2c",
        lambda: _ring_with_start_ups()[0],
        unit="workers",
        whole=True,
        rounding="compare the whole K on either side of the real optimum",
        hint="Differentiate (1 - f)/K - c/K + 2 K 1e-5 (the constant terms drop out), set it to zero, then compare "
        "the two whole K around the root.",
    ),
    Part(
        "ex-3-3-2d",
        lambda: (lambda k, t: [1 / t, 1 / (k * t)])(*_ring_with_start_ups()),
        kind="numbers",
        unit=("speedup", "efficiency"),
        hint="Evaluate the ring's T(K) at the K of part (c); the speedup is 1/T(K) and the efficiency 1/(K T(K)).",
    ),
    Part(
        "ex-3-3-3a",
        lambda: isoefficiency_work(128, S0, C0, _k2_efficiency()),
        unit="T(1)",
        sig=3,
        hint="Solve (f + W_par)/(f + W_par + c log2 K) = E for W_par, with E the efficiency at K = 2, which is exactly 1/1.01.",
    ),
    Part(
        "ex-3-3-3b",
        lambda: (lambda e: e / (1 - e) * C0 * (128 - 1) - S0)(_k2_efficiency()),
        unit="T(1)",
        sig=3,
        hint="Same equation, with the communication term c (K - 1) in place of c log2 K.",
    ),
    Part(
        "ex-3-3-4a",
        lambda: data_parallel_cap(6_000_000, micro_batch=2, grad_accum=8, seq_len=4096),
        unit="replicas",
        whole=True,
        rounding="down",
        hint="Divide the critical batch by the tokens one replica contributes per step, and round down to a whole "
        "number (not to a power of two).",
    ),
    Part(
        "ex-3-3-4b",
        _past_the_critical_batch,
        kind="numbers",
        unit=("n_step,min", "D_tok,min", "fraction"),
        share=True,
        complement="the share of its tokens that a run at B_crit would need",
        hint="n_step(B_g) = n_step,min (1 + B_crit/B_g) and D_tok(B_g) = D_tok,min (1 + B_g/B_crit), "
        "at B_g = 8 B_crit; then compare its tokens with the tokens of a run at exactly B_crit.",
    ),
    Part(
        "ex-3-3-4c",
        lambda: _interleaving_4096(),
        kind="numbers",
        unit="efficiency",
        hint="The bubble (p - 1)/(v m) idles whole slots, tensor-parallel time included: E = 1/((1 + rho_TP)(1 + "
        "bubble)), with v = 1 and then with v = layers per stage.",
    ),
    Part(
        "ex-3-3-4d",
        _dp_zone_175b,
        unit="GPUs",
        whole=True,
        rounding="the cap is rounded down to whole replicas",
        hint="Find m from the stages the model needs to fit, then the tokens one replica adds per step, the cap in "
        "whole replicas, and the GPUs of that many replicas.",
    ),
)
