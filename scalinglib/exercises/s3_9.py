"""Exercises of Section 3.9: MFU, the cost of idle time, break-even and sizing, auditing published
figures, the critical-batch bill, and the capstone calculator."""

from __future__ import annotations

import math

import numpy as np

from ..cost import (
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    break_even_utilization,
    cost_per_million_tokens,
    critical_batch_cost,
    devices_for_demand,
    duty_cycle_cost_factor,
    exposed_allreduce_fraction,
    flops_per_token,
    mfu,
    training_cost,
)
from ..hardware import INSTANCE_PRICES, LINKS, get_accelerator
from ..layout import parallel_layout
from ..runs import MEGATRON_WEAK_SCALING, MFU_RUNS
from .core import Part, register

# 3.9.1: a 13B model on 256 A100s
RUN_13B = dict(n_params=13e9, n_layers=40, n_heads=40, head_dim=128, seq_len=2048)
RUN_GPUS, RUN_TOKENS_PER_SECOND, RUN_TOKENS = 256, 400_000.0, 260e9

# 3.9.2 and 3.9.3: one inference GPU at an assumed price, and an API
PRICE, RATE, API_PRICE = 2.50, 2000.0, 0.60
# 3.9.3: a day with a 4-hour peak
PEAK_DEMAND, PEAK_HOURS, BASE_DEMAND, BASE_HOURS = 90_000.0, 4, 30_000.0, 20
SUSTAINED_TARGET = 0.8

# 3.9.4(a): Gopher's 0.0152 steps/s with the batch it started from (the text assumes its final batch)
GOPHER_START_SEQUENCES = 1536
# 3.9.4(b): PaLM's 21.3% for GPT-3, read as 6N FLOPs only
GPT3_PRINTED_MFU = 0.213

# 3.9.5: the critical-batch bill (Section 3.9.10) at half the text's critical batch, rho_DP included
BILL_PARAMS, BILL_CRIT, BILL_GPUS = 13e9, 2e6, (512, 4096)

# 3.9.6: the budget calculator (Section 3.9.9), with other inputs than the text's worked example
CAP = dict(n_params=34e9, tokens=2e12, price=2.5, device="H100 SXM 80GB", mfu=0.45, utilization=0.85)
CAP_DEVICES, CAP_DEADLINE_DAYS = 1024, 30
# 3.9.6(c): the capstone's 13B run on 2,048 A100s with an InfiniBand NDR port per GPU, steps 4 to 6 by hand
SYN = dict(n_params=13e9, tokens=260e9, gpus=2048, crit=4e6, sustained=150e12, utilization=0.9,
           price="AWS p4de.24xlarge, on-demand", port="InfiniBand NDR")


def _run_flops_per_token():
    return flops_per_token(**RUN_13B)


def sizing():
    """Exercise 3.9.3 worked out: fleet sizes, their utilizations, and the day's bill of each strategy."""
    mean = (PEAK_DEMAND * PEAK_HOURS + BASE_DEMAND * BASE_HOURS) / (PEAK_HOURS + BASE_HOURS)
    n_peak = devices_for_demand(PEAK_DEMAND, RATE)
    n_sustained = devices_for_demand(mean, RATE, SUSTAINED_TARGET)
    hours = np.array([PEAK_DEMAND] * PEAK_HOURS + [BASE_DEMAND] * BASE_HOURS)
    capacity = n_sustained * RATE
    served = np.minimum(hours, capacity)
    overflow_tokens = float(np.sum(hours - served)) * SECONDS_PER_HOUR
    day = 24.0
    util_peak = mean / (n_peak * RATE)
    util_sustained = float(np.mean(served)) / capacity
    cost_peak = n_peak * day * PRICE
    cost_sustained = n_sustained * day * PRICE + overflow_tokens / 1e6 * API_PRICE
    cost_api = mean * day * SECONDS_PER_HOUR / 1e6 * API_PRICE
    return {
        "devices": [n_peak, n_sustained],
        "utilization": [util_peak, util_sustained],
        "daily_cost": [cost_peak, cost_sustained, cost_api],
    }


def gpt3_row():
    return next(run for run in MFU_RUNS if run.name == "GPT-3")


def gopher_start_mfu():
    """Exercise 3.9.4(a): Gopher's MFU from 0.0152 steps/s with 1,536 sequences of 2,048 tokens per step."""
    run = next(r for r in MFU_RUNS if r.name == "Gopher")
    tokens_per_chip = 0.0152 * GOPHER_START_SEQUENCES * run.seq_len / run.n_devices
    return mfu(tokens_per_chip, run.flops_per_token(), 1, run.peak_flops_per_device)


def gpt3_six_n_peak():
    """Exercise 3.9.4(b): the peak, TFLOP/s, at which GPT-3's 6N-only MFU is PaLM's printed 21.3%."""
    return gpt3_row().recomputed_mfu(attention=False) * gpt3_row().peak_flops_per_device / 1e12 / GPT3_PRINTED_MFU


#: 3.9.4(c): the 145.6B row of Megatron-LM's table 1 (the text works out the first and the last)
MEGATRON_ROW = 6


def megatron_row_mfu():
    return MEGATRON_WEAK_SCALING[MEGATRON_ROW].mfu(get_accelerator("A100 SXM 80GB").peak("bf16"))


def bill():
    """Exercise 3.9.5 worked out: cost factors at the larger cluster and speed-ups over the smaller one."""
    small, large = BILL_GPUS
    split = critical_batch_cost([small, large], BILL_PARAMS, BILL_CRIT, exposed_allreduce=True)
    grow = critical_batch_cost([small, large], BILL_PARAMS, BILL_CRIT, grow_batch=True, exposed_allreduce=True)
    return {
        "cost": [float(split["cost_factor"][1]), float(grow["cost_factor"][1])],
        "speedup": [float(split["time_factor"][0] / split["time_factor"][1]),
                    float(grow["time_factor"][0] / grow["time_factor"][1])],
    }


def capstone():
    c = CAP
    run = training_cost(c["n_params"], c["tokens"], CAP_DEVICES, c["price"], device=c["device"], mfu=c["mfu"],
                        utilization=c["utilization"])
    one = training_cost(c["n_params"], c["tokens"], 1, c["price"], device=c["device"], mfu=c["mfu"],
                        utilization=c["utilization"])
    needed = math.ceil(one.days / CAP_DEADLINE_DAYS * (1 - 1e-12))
    return run, needed


def capstone_steps():
    """Exercise 3.9.6(c) worked out: MFU, calendar days and thousands of dollars of the capstone's run on
    2,048 GPUs with faster network ports."""
    c = SYN
    lay = parallel_layout(c["gpus"], c["n_params"], c["crit"], c["crit"])
    rho_dp = exposed_allreduce_fraction(lay, c["n_params"], port_bandwidth=LINKS[c["port"]].bandwidth)
    rho = lay.tp_fraction + lay.bubble_fraction + rho_dp
    a100 = "A100 SXM 80GB"
    run_mfu = c["sustained"] / (1 + rho) / get_accelerator(a100).peak("bf16")
    run = training_cost(c["n_params"], c["tokens"], c["gpus"], INSTANCE_PRICES[c["price"]].usd_per_device_hour,
                        device=a100, mfu=run_mfu, utilization=c["utilization"])
    return [run_mfu, run.days, run.dollars / 1e3]


register(
    Part(
        "ex-3-9-1a",
        _run_flops_per_token,
        unit="FLOPs",
        hint="6N plus 12 x layers x heads x head size x sequence length (40, 40, 128 and 2,048 here).",
    ),
    Part(
        "ex-3-9-1b",
        lambda: mfu(RUN_TOKENS_PER_SECOND, _run_flops_per_token(), RUN_GPUS,
                    get_accelerator("A100 SXM 80GB").peak("bf16")),
        unit="fraction",
        hint="Tokens per second times FLOPs per token, divided by 256 GPUs times the A100's 312e12 FLOP/s.",
    ),
    Part(
        "ex-3-9-1c",
        lambda: RUN_TOKENS / RUN_TOKENS_PER_SECOND / SECONDS_PER_DAY,
        unit="days",
        hint="At a measured throughput the time is simply tokens divided by tokens per second; 86,400 s a day.",
    ),
    Part(
        "ex-3-9-2a",
        lambda: [cost_per_million_tokens(PRICE, RATE), cost_per_million_tokens(PRICE, RATE, 0.4)],
        kind="numbers",
        unit="$ per million tokens",
        hint="At $2.50 an hour (not the text's $3.00): an hour makes 3,600 x 2,000 tokens when busy; divide the "
        "hourly price by the millions of tokens actually made.",
    ),
    Part(
        "ex-3-9-2b",
        lambda: duty_cycle_cost_factor(0.4),
        unit="factor",
        hint="Compare the two costs of (a): the bill for the hour is the same, only the number of tokens differs.",
    ),
    Part(
        "ex-3-9-3a",
        lambda: break_even_utilization(PRICE, RATE, API_PRICE),
        unit="fraction",
        hint="Set 1e6 C_h / (3600 R_dev U) equal to the API's price and solve for U (a fraction).",
    ),
    Part(
        "ex-3-9-3b",
        lambda: sizing()["devices"],
        kind="numbers",
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="Peak: enough GPUs to make the peak demand. Sustained: the day's mean demand divided by what one GPU "
        "makes at the target utilization, rounded up.",
    ),
    Part(
        "ex-3-9-3c",
        lambda: sizing()["utilization"],
        kind="numbers",
        unit="fraction",
        share=True,
        complement="the idle share",
        hint="Tokens served over the day divided by what the fleet could have made; the sustained fleet "
        "serves at most its capacity in the peak hours.",
    ),
    Part(
        "ex-3-9-3d",
        lambda: sizing()["daily_cost"],
        kind="numbers",
        unit="$",
        hint="Fleets cost devices x 24 h x $2.50 whether busy or not; overflow and the API cost $0.60 per "
        "million tokens.",
    ),
    Part(
        "ex-3-9-4a",
        gopher_start_mfu,
        unit="fraction",
        hint="Tokens per chip per second are steps per second x tokens per step / 4,096 chips; multiply by "
        "6N + 12 x layers x heads x head size x sequence length and divide by 123e12.",
    ),
    Part(
        "ex-3-9-4b",
        gpt3_six_n_peak,
        unit="TFLOP/s",
        hint="With 6N FLOPs only, the MFU is the 24.6 TFLOP/s of model FLOPs over the peak: solve for the peak.",
    ),
    Part(
        "ex-3-9-4c",
        megatron_row_mfu,
        unit="fraction",
        hint="Tokens/s per GPU is 148e12 divided by Megatron's FLOPs per token with recomputation; multiply "
        "by PaLM's model FLOPs per token and divide by 312e12.",
    ),
    Part(
        "ex-3-9-5a",
        lambda: bill()["cost"],
        kind="numbers",
        unit="factor",
        hint="Splitting the model keeps the tokens and loses efficiency; growing the batch keeps the efficiency and "
        "needs more tokens, (1 + B_g/B_crit) times the minimum. Lay out each cluster as in Section 3.9.10, with "
        "a critical batch of 2 million tokens and rho_DP counted.",
    ),
    Part(
        "ex-3-9-5b",
        lambda: bill()["speedup"],
        kind="numbers",
        unit="factor",
        hint="The time to the target is the cost factor divided by the number of GPUs; divide the time on 512 GPUs "
        "by the time on 4,096.",
    ),
    Part(
        "ex-3-9-6a",
        lambda: [capstone()[0].days, capstone()[0].dollars / 1e6],
        kind="numbers",
        unit=("days", "million $"),
        hint="6N D_tok FLOPs at 45% of 989.5e12 FLOP/s per H100, over 1,024 GPUs; divide by the utilization "
        "for calendar time; dollars in millions.",
    ),
    Part(
        "ex-3-9-6b",
        lambda: capstone()[1],
        unit="GPUs",
        whole=True,
        rounding="up",
        hint="Days scale as 1/K at a fixed MFU: find the fewest K whose calendar days stay within 30, "
        "starting from the unrounded days of (a).",
    ),
    Part(
        "ex-3-9-6c",
        capstone_steps,
        kind="numbers",
        unit=("fraction", "days", "thousand $"),
        hint="E = 1/(1 + rho_TP + rho_PP + rho_DP), MFU = E X/P; days = 6 N D_tok / (K MFU P U) / 86,400; "
        "dollars = K x 24 x days x C_h, in thousands.",
    ),
)
