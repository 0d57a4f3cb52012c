"""Exercises of Section 3.3: classifying scaling studies, the best worker count, iso-efficiency, the DP cap
and the pipeline bubble."""

from __future__ import annotations

from ..batchsize import data_parallel_cap, examples_to_target, steps_to_target
from ..layout import parallel_layout, pipeline_bubble_fraction, scaling_efficiency
from ..scaling import best_worker_count, isoefficiency_work, strong_model_efficiency, strong_time, weak_model_efficiency
from .core import Part, register

S_VALUES = (0.01, 0.05, 0.10)
C_VALUES = (0.005, 0.02)
S0, C0 = 0.05, 0.01


def optimal_k_table():
    """Best whole K for every (f, c) pair of exercise 3.3.2, rows by f and columns by c, flattened."""
    return [best_worker_count(s, c) for s in S_VALUES for c in C_VALUES]


def _interleaving_4096():
    """Exercise 3.3.4(c): the 13B model on 4,096 GPUs (DP 256 x TP 8 x PP 2, m = 4), plain and interleaved."""
    lay = parallel_layout(4096, 13e9, 4e6, 4e6)
    chunks = lay.layers // lay.pp
    return [scaling_efficiency(lay.tp_fraction + pipeline_bubble_fraction(lay.pp, lay.microbatches, chunks=v))
            for v in (1, chunks)]


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
        lambda: best_worker_count(S0, C0),
        unit="workers",
        whole=True,
        rounding="compare the whole K on either side of the real optimum",
        hint="Set the derivative of f + (1 - f)/K + c log2 K to zero, then compare the two whole K around it.",
    ),
    Part(
        "ex-3-3-2b",
        lambda: strong_time(best_worker_count(S0, C0), S0, C0),
        unit="T(1)",
        hint="Evaluate T_strong at the best K.",
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
        lambda: strong_model_efficiency(best_worker_count(S0, C0), S0, C0),
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
        lambda: data_parallel_cap(4_000_000, micro_batch=2, grad_accum=8, seq_len=4096),
        unit="replicas",
        whole=True,
        rounding="down",
        hint="Divide the critical batch by the tokens one replica contributes per step, and round down.",
    ),
    Part(
        "ex-3-3-4b",
        lambda: [steps_to_target(4.0, 1.0), examples_to_target(4.0, 1.0)],
        kind="numbers",
        unit=("n_step,min", "D_tok,min"),
        hint="n_step(B_g) = n_step,min (1 + B_crit/B_g) and D_tok(B_g) = D_tok,min (1 + B_g/B_crit), at B_g = 4 B_crit.",
    ),
    Part(
        "ex-3-3-4c",
        lambda: _interleaving_4096(),
        kind="numbers",
        unit="efficiency",
        hint="Take the layout's tensor-parallel fraction, add the bubble (p - 1)/(v m) with v = 1 and then with "
        "v = layers per stage, and use E = 1/(1 + rho).",
    ),
)
