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
    flops_per_token,
    mfu,
    training_cost,
)
from ..hardware import INSTANCE_PRICES, LINKS, get_accelerator
from ..layout_search import search_layout
from ..runs import MFU_RUNS
from .core import Part, register

# 3.9.1: a 13B model on 256 A100s
RUN_13B = dict(n_params=13e9, n_layers=40, n_heads=40, head_dim=128, seq_len=2048)
RUN_GPUS, RUN_TOKENS_PER_SECOND, RUN_TOKENS = 256, 400_000.0, 260e9

# 3.9.2 and 3.9.3: one inference GPU at an assumed price, and an API
PRICE, RATE, API_PRICE = 2.50, 2000.0, 0.60
# 3.9.3: a day with a 4-hour peak
PEAK_DEMAND, PEAK_HOURS, BASE_DEMAND, BASE_HOURS = 90_000.0, 4, 30_000.0, 20
SUSTAINED_TARGET = 0.8

# 3.9.2(b): at 40% busy the batches are smaller too: the server makes fewer tokens per busy second
SMALL_BATCH_RATE, BUSY_SHARE = 1200.0, 0.4

# 3.9.4(a): PaLM's measured throughput with attention counted at a longer context than it trained on
PALM_LONG_CONTEXT = 8192
# 3.9.4(b): Megatron-Turing NLG's step time as printed (60.1 s), and the half-unit of its last digit
MTNLG_STEP, MTNLG_HALF_DIGIT = 60.1, 0.05
# 3.9.4(c): full recomputation multiplies a layer's model FLOPs by 96/72 (Megatron-LM's count)
FULL_RECOMPUTE = 96 / 72

# 3.9.5: the critical-batch bill (Section 3.9.12) at half the text's critical batch, searched layouts, HDR ports
BILL_PARAMS, BILL_CRIT, BILL_GPUS = 13e9, 2e6, (512, 4096)

# 3.9.6: the budget calculator (Section 3.9.11), with other inputs than the text's worked example
CAP = dict(n_params=34e9, tokens=2e12, price=2.5, device="H100 SXM 80GB", mfu=0.45, utilization=0.85)
CAP_DEVICES, CAP_DEADLINE_DAYS = 1024, 30
# 3.9.6(c): the capstone's 13B run on 1,024 H100s in AWS p5.48xlarge servers: 3,200 Gb/s of EFA for eight
# GPUs (AWS, Amazon EC2 P5 instances), NVLink 4, and the capstone's 48% of peak as the sustained rate
SYN = dict(n_params=13e9, tokens=260e9, gpus=1024, crit=4e6, sustained=475e12, utilization=0.9,
           price="AWS p5.48xlarge, on-demand", port=3200e9 / 8 / 8, link="NVLink 4 (H100)")


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


def run_row(name):
    return next(run for run in MFU_RUNS if run.name == name)


def idle_small_batch():
    """Exercise 3.9.2(b): cost per million tokens at 40% busy with smaller batches, and its factor over (a)'s
    always-busy cost."""
    cost = cost_per_million_tokens(PRICE, SMALL_BATCH_RATE, BUSY_SHARE)
    return [cost, cost / cost_per_million_tokens(PRICE, RATE)]


def palm_long_context_mfu():
    """Exercise 3.9.4(a): PaLM's MFU at its measured tokens/s, attention counted for 8,192-token sequences."""
    run = run_row("PaLM")
    c = flops_per_token(run.n_params, run.n_layers, run.n_heads, run.head_dim, PALM_LONG_CONTEXT)
    return mfu(run.tokens_per_second_per_device, c, 1, run.peak_flops_per_device)


def mtnlg_mfu_range():
    """Exercise 3.9.4(b): the MFU (attention counted) at the two ends of the step times that print as 60.1 s."""
    run = run_row("Megatron-Turing NLG")
    base = run.tokens_per_second_per_device
    return [mfu(base * MTNLG_STEP / step, run.flops_per_token(), 1, run.peak_flops_per_device)
            for step in (MTNLG_STEP + MTNLG_HALF_DIGIT, MTNLG_STEP - MTNLG_HALF_DIGIT)]


def palm_recompute():
    """Exercise 3.9.4(c): PaLM's HFU with full recomputation, and the share of it that its printed HFU implies."""
    run = run_row("PaLM")
    full = run.reported_mfu * FULL_RECOMPUTE
    return [full, (run.reported_hfu - run.reported_mfu) / (full - run.reported_mfu)]


def bill():
    """Exercise 3.9.5 worked out: searched cost factors on the two clusters, and the speed-up between them."""
    out = critical_batch_cost(list(BILL_GPUS), BILL_PARAMS, BILL_CRIT, search=True)
    return {
        "cost": [float(c) for c in out["cost_factor"]],
        "speedup": float(out["time_factor"][0] / out["time_factor"][1]),
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
    1,024 H100s in p5.48xlarge servers, laid out by the search."""
    c = SYN
    h100 = "H100 SXM 80GB"
    lay = search_layout(c["gpus"], c["n_params"], c["crit"], achieved_flops=c["sustained"],
                        link_bandwidth=LINKS[c["link"]].bandwidth, port_bandwidth=c["port"]).best
    run_mfu = lay.efficiency * c["sustained"] / get_accelerator(h100).peak("bf16")
    run = training_cost(c["n_params"], c["tokens"], lay.n_gpus, INSTANCE_PRICES[c["price"]].usd_per_device_hour,
                        device=h100, mfu=run_mfu, utilization=c["utilization"])
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
        idle_small_batch,
        kind="numbers",
        unit=("$ per million tokens", "factor"),
        hint="Busy 40% of the hours at 1,200 tokens/s: divide the hourly price by the millions of tokens an hour "
        "makes. The factor compares it with the always-busy cost of (a); it holds two losses, not one.",
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
        palm_long_context_mfu,
        unit="fraction",
        hint="Keep PaLM's tokens per second per chip; recount the FLOPs per token with 8,192 in place of 2,048 "
        "in the attention term 12 x layers x heads x head size x sequence length.",
    ),
    Part(
        "ex-3-9-4b",
        mtnlg_mfu_range,
        kind="numbers",
        unit="fraction",
        hint="The MFU is proportional to the tokens per second, so inversely to the step time: recompute it at "
        "60.15 s and at 60.05 s, attention counted.",
    ),
    Part(
        "ex-3-9-4c",
        palm_recompute,
        kind="numbers",
        unit="fraction",
        hint="Full recomputation runs the forward pass twice: 8N in place of 6N, so 96/72 times the model "
        "FLOPs. The share is (HFU - MFU) over (full HFU - MFU).",
    ),
    Part(
        "ex-3-9-5a",
        lambda: bill()["cost"],
        kind="numbers",
        unit="factor",
        hint="critical_batch_cost with search=True lays out each cluster for the shortest time to the target; "
        "a critical batch of 2 million tokens, one HDR port per GPU (the default).",
    ),
    Part(
        "ex-3-9-5b",
        lambda: bill()["speedup"],
        unit="factor",
        hint="The time to the target is the cost factor divided by the GPUs the layout uses (time_factor); "
        "divide the time on 512 GPUs by the time on 4,096.",
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
        hint="search_layout with achieved_flops=475e12, link_bandwidth of NVLink 4 and port_bandwidth=50e9; "
        "MFU = E X/P with P = 989.5e12; days = 6 N D_tok / (K MFU P U) / 86,400 with K the GPUs used; "
        "dollars = K x 24 x days x $6.88, in thousands.",
    ),
)
