"""Exercises of Section 3.3: classifying scaling studies, the best worker count, iso-efficiency, the DP cap
and the pipeline bubble."""

from __future__ import annotations

import numpy as np

from ..batchsize import data_parallel_cap, examples_to_target, steps_to_target
from ..layout import layout_sweep, parallel_layout, pipeline_bubble_fraction, scaling_efficiency
from ..scaling import best_worker_count, isoefficiency_work, strong_model_efficiency, strong_time, weak_model_efficiency
from .core import Part, register

S_VALUES = (0.01, 0.05, 0.10)
C_VALUES = (0.005, 0.02)
S0, C0 = 0.05, 0.01          # exercise 3.3.3, and the section's running example
F2, C2 = 0.02, 0.005         # exercise 3.3.2 (a), (b), (d): a case the text does not work out
B_OVER = 8.0                 # exercise 3.3.4 (b): the batch, in units of the critical batch


def optimal_k_table():
    """Best whole K for every (f, c) pair of exercise 3.3.2, rows by f and columns by c, flattened."""
    return [best_worker_count(s, c) for s in S_VALUES for c in C_VALUES]


def _interleaving_4096():
    """Exercise 3.3.4(c): the 13B model on 4,096 GPUs with m = 8 (DP 128 x TP 8 x PP 4), plain and interleaved."""
    lay = parallel_layout(4096, 13e9, 4e6, 4e6, microbatches_per_stage=8)
    chunks = lay.layers // lay.pp
    return [scaling_efficiency(lay.tp_fraction + pipeline_bubble_fraction(lay.pp, lay.microbatches, chunks=v))
            for v in (1, chunks)]


def _past_the_critical_batch():
    """Exercise 3.3.4(b): steps and tokens at B_OVER times the critical batch (in units of their minima), and the
    share of those tokens that a run at the critical batch (2 D_tok,min) would not have needed."""
    steps, tokens = steps_to_target(B_OVER, 1.0), examples_to_target(B_OVER, 1.0)
    return [steps, tokens, 1.0 - examples_to_target(1.0, 1.0) / tokens]


def _dp_zone_175b():
    """Exercise 3.3.4(d): the largest cluster (a power of two) in which every GPU past the 175B model's minimum is
    a data-parallel replica, with a critical batch (and largest batch) of 16,000,000 tokens."""
    sizes = 2 ** np.arange(3, 15)
    sweep = layout_sweep(sizes, 175e9, 16e6, 16e6)
    zone = sweep["fits"] & (sweep["dp"] * sweep["min_gpus"] == sizes)
    return int(sizes[zone].max())


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
        lambda: ["falls", "high", "high", "high"],
        kind="choices",
        choices={"high": ("stays high", "remains high"), "falls": ("fall", "falling", "drops")},
        hint="For each scenario, ask two things: what does not shrink as workers are added (start-up, serial work, "
        "communication), and does each worker's share of the work stay large over the range the scenario gives?",
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
        optimal_k_table,
        kind="numbers",
        unit="workers",
        whole=True,
        rounding="compare the whole K on either side of the real optimum",
        hint="Six whole numbers, in the order (f, c) = (0.01, 0.005), (0.01, 0.02), (0.05, 0.005), ..., (0.10, 0.02).",
    ),
    Part(
        "ex-3-3-2d",
        lambda: strong_model_efficiency(best_worker_count(F2, C2), F2, C2),
        unit="efficiency",
        hint="Efficiency is T(1) / (K T(K)), at the best K of part (a).",
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
        hint="Add the bubble (p - 1)/(v m) to the tensor-parallel fraction, with v = 1 and then with v = layers per "
        "stage, and use E = 1/(1 + rho).",
    ),
    Part(
        "ex-3-3-4d",
        _dp_zone_175b,
        unit="GPUs",
        whole=True,
        rounding="the policy rounds the cap down to a power of two",
        hint="Find m from the stages the model needs to fit, then the tokens one replica adds per step, the cap as the "
        "policy rounds it, and the GPUs of that many replicas.",
    ),
)
