"""Every number the prose of Section 3.3 quotes about the layout model and the critical-batch wall,
recomputed from the library. (The seed-001 tables are in test_seed_tables.py; the notebook's printed
outputs are compared by nbval; the layout's rules are tested in test_models.py.)"""

import numpy as np
import pytest

import scalinglib as sl
from scalinglib.exercises import check
from scalinglib.layout import A100_ACHIEVED_FLOPS, A100_NVLINK_BANDWIDTH

SIZES = 2 ** np.arange(3, 15)          # the slider's 8 ... 16,384 GPUs
MODELS = (1.3e9, 13e9, 175e9, 1e12)    # the slider's model sizes
DEFAULT_BATCH, DEFAULT_CRIT = 16e6, 2e6


def _sweep(n, batch=DEFAULT_BATCH, crit=DEFAULT_CRIT):
    return sl.layout_sweep(SIZES, n, batch, crit)


def _dp_zone_end(sweep):
    """The largest cluster whose every GPU past the model's minimum is a data-parallel replica."""
    zone = sweep["fits"] & (sweep["dp"] * sweep["min_gpus"] == sweep["n_gpus"])
    return int(sweep["n_gpus"][zone].max())


def _e(sweep, g):
    return float(sweep["efficiency"][sweep["n_gpus"] == g][0])


# --- 3.3.5, the 13B table ------------------------------------------------------------------------

def test_13b_table():
    sweep = sl.layout_sweep(SIZES, 13e9, 4e6, 4e6)
    assert sweep["layers"][0] == 40 and sweep["dp_cap"][0] == 488
    assert round(_e(sweep, 1024), 2) == 0.94 and _dp_zone_end(sweep) == 1024
    assert sweep["fits"].all() and (sweep["pp"] <= 40).all()


# --- 3.3.5, the model-size table after the slider ---------------------------------------------

def test_model_size_table_columns():
    sweeps = [_sweep(n) for n in MODELS]
    assert [int(s["layers"][0]) for s in sweeps] == [19, 40, 96, 172]
    assert [int(s["min_gpus"][0]) for s in sweeps] == [1, 4, 64, 256]
    per_gpu = [s["microbatches"][0] * 2048 / s["min_gpus"][0] for s in sweeps]
    assert per_gpu == [8192, 2048, 1024, 1024]
    assert [round(DEFAULT_CRIT / t) for t in per_gpu] == [244, 977, 1953, 1953]
    assert [_dp_zone_end(s) for s in sweeps] == [128, 512, 1024, 1024]


def test_the_cap_moves_right_only_until_pipeline_stages_are_needed():
    ends = [_dp_zone_end(_sweep(n)) for n in MODELS]
    assert ends[0] < ends[1] < ends[2] == ends[3]
    # once a model needs pipeline stages (more than a node to hold it), the cap in GPUs does not depend on size
    for n in (175e9, 1e12):
        s = _sweep(n)
        assert s["min_gpus"][0] > 8 and _dp_zone_end(s) == 1024


def test_bigger_models_are_not_more_efficient():
    e512 = {n: round(_e(_sweep(n), 512), 3) for n in MODELS}
    assert e512 == {1.3e9: 0.878, 13e9: 0.939, 175e9: 0.780, 1e12: 0.783}
    assert max(e512, key=e512.get) == 13e9
    # at 2,048 GPUs every model has left its data-parallel zone
    assert all(_dp_zone_end(_sweep(n)) < 2048 for n in MODELS)


def test_past_the_cap_every_model_falls_onto_nearly_the_same_curve():
    e8192 = {n: _e(_sweep(n), 8192) for n in MODELS}
    placed = [e for e in e8192.values() if not np.isnan(e)]
    assert len(placed) == 3 and np.isnan(e8192[1e12])
    assert round(min(placed), 3) == 0.325 and round(max(placed), 3) == 0.345
    e16k = [_e(_sweep(n), 16384) for n in (1.3e9, 13e9)]
    assert [round(e, 3) for e in e16k] == [0.197, 0.204]


def test_the_largest_models_run_out_of_layers():
    s175, s1t = _sweep(175e9), _sweep(1e12)
    assert not sl.parallel_layout(16384, 175e9, DEFAULT_BATCH, DEFAULT_CRIT).fits
    assert sl.parallel_layout(8192, 175e9, DEFAULT_BATCH, DEFAULT_CRIT).pp == 64
    assert s1t["fits"][SIZES == 4096][0] and not s1t["fits"][SIZES > 4096].any()
    assert s175["n_gpus"][s175["fits"]].max() == 8192


def test_a_larger_critical_batch_is_the_way_through():
    rows = {crit: sl.parallel_layout(8192, 175e9, crit, crit) for crit in (2e6, 8e6, 32e6)}
    assert [round(r.efficiency, 3) for r in rows.values()] == [0.330, 0.653, 0.780]
    assert [(r.dp, r.tp, r.pp) for r in rows.values()] == [(16, 8, 64), (64, 8, 16), (128, 8, 8)]
    ends = [_dp_zone_end(sl.layout_sweep(SIZES, 175e9, c, c)) for c in rows]
    assert ends == [1024, 4096, 16384]          # four times further out per fourfold critical batch
    # at 32M the 8,192-GPU run is back at the data-parallel zone's level
    assert rows[32e6].efficiency == pytest.approx(sl.parallel_layout(64, 175e9, 32e6, 32e6).efficiency)


# --- exercises -------------------------------------------------------------------------------------

def test_exercise_hints_use_the_sections_symbols():
    hint = check("ex-3-3-4b", [1.0, 1.0]).hint
    assert "n(B_g)" in hint and "e(B_g)" in hint and "S(" not in hint and "E(" not in hint


def test_monte_carlo_item_reads_as_high_efficiency():
    # (c): 1e9 samples over at most 64 nodes, one final sum: a fixed job that stays efficient
    assert check("ex-3-3-1b", ["falls", "high", "high", "high"]).correct
    assert not check("ex-3-3-1b", ["falls", "high", "falls", "high"]).correct
    assert 1e9 / 64 > 15e6


# --- 3.3.5, pricing the gradient all-reduce on the layout model's own hardware ----------------------

X_A100, ALPHA, SEQ = A100_ACHIEVED_FLOPS, 5e-6, 2048
BETA_HDR = 1 / sl.LINKS["InfiniBand HDR"].bandwidth
BETA_NVL3 = 1 / sl.LINKS["NVLink 3 (A100)"].bandwidth


def _dp_allreduce(n, dp, tp, pp):
    """One GPU's gradient all-reduce over its data-parallel group (8/t members per node, a port each, rings laid
    out node by node), and the tokens the last micro-batch would need to hide it."""
    split, per_node = tp * pp, min(dp, 8 // tp)
    t_ar = sl.multiring_allreduce_time(2 * n / split, dp // per_node, per_node, ALPHA, BETA_NVL3, ALPHA, BETA_HDR,
                                       nics=per_node)
    return t_ar, t_ar * split * X_A100 / (4 * n)


def _rho_dp(n, lay):
    split = lay.tp * lay.pp
    t_ar, _ = _dp_allreduce(n, lay.dp, lay.tp, lay.pp)
    exposed = max(0.0, t_ar - 4 * n * SEQ / (split * X_A100))
    return exposed / (6 * n * lay.microbatches * SEQ / (split * X_A100))


def _e_with_dp(n, lay):
    return float(sl.scaling_efficiency(lay.tp_fraction + lay.bubble_fraction + _rho_dp(n, lay)))


def test_the_layout_model_is_an_a100_with_nvlink_3():
    assert (A100_ACHIEVED_FLOPS, A100_NVLINK_BANDWIDTH) == (150e12, sl.LINKS["NVLink 3 (A100)"].bandwidth)
    assert sl.LINKS["InfiniBand HDR"].bandwidth == 25e9
    # seven rings' chunks on NVLink 3 (7 x 25 GB/s) keep pace with an HDR port: the port sets the pace
    assert 7 * 25e9 < 300e9


def test_13b_gradient_all_reduce_priced():
    rows = {g: sl.parallel_layout(g, 13e9, 4e6, 4e6) for g in SIZES.tolist()}
    rho = {g: _rho_dp(13e9, lay) for g, lay in rows.items()}
    e_with = {g: _e_with_dp(13e9, lay) for g, lay in rows.items()}
    tau = {g: _dp_allreduce(13e9, lay.dp, lay.tp, lay.pp)[1] for g, lay in rows.items()}
    # the flat zone: t = 4, two members of a data-parallel group per node; about 3,000 tokens would hide it
    assert all(rows[g].tp == 4 and rows[g].pp == 1 for g in SIZES[SIZES <= 1024].tolist())
    assert round(tau[1024]) == 3018 and 2048 < tau[1024] and round(tau[8]) == 250
    assert rho[8] == 0.0                                            # one node: NVLink, hidden
    assert round(rho[1024], 3) == 0.079 and max(rho[g] for g in SIZES[SIZES <= 1024].tolist()) == rho[1024]
    assert (round(e_with[8], 3), round(e_with[1024], 3)) == (0.939, 0.875)
    assert [round(e_with[g], 3) for g in (16, 32, 64, 128, 256, 512)] == [0.925, 0.900, 0.888, 0.881, 0.878, 0.876]
    # past the cap: t = 8, one member per node; the threshold doubles
    assert (rows[2048].dp, rows[2048].tp, rows[2048].pp) == (256, 8, 1)
    assert round(tau[2048]) == 6035 and round(rho[2048], 3) == 0.324
    assert (round(rows[2048].efficiency, 3), round(e_with[2048], 3)) == (0.869, 0.678)
    assert [round(e_with[g], 3) for g in (4096, 8192, 16384)] == [0.578, 0.447, 0.307]
    # upper bounds everywhere
    assert all(e_with[g] <= rows[g].efficiency for g in rows)


def test_hiding_threshold_grows_in_proportion_to_tensor_parallelism():
    taus = [_dp_allreduce(13e9, 256, t, 1)[1] for t in (1, 2, 4, 8)]
    assert [round(t) for t in taus] == [754, 1509, 3018, 6035]
    assert np.allclose(np.array(taus[1:]) / np.array(taus[:-1]), 2.0, rtol=1e-3)
    # the all-reduce itself takes the same time whatever t: 1/t of the bytes over 1/t of the ports
    times = [_dp_allreduce(13e9, 256, t, 1)[0] for t in (1, 2, 4, 8)]
    assert np.allclose(times, times[0], rtol=1e-3)


def test_one_micro_batch_alternative():
    got = {}
    for g in (2048, 4096):
        for per_stage in (4, 1):
            lay = sl.parallel_layout(g, 13e9, 4e6, 4e6, microbatches_per_stage=per_stage)
            got[g, per_stage] = ((lay.dp, lay.tp, lay.pp, lay.microbatches), round(lay.efficiency, 3),
                                 round(_e_with_dp(13e9, lay), 3))
    assert got == {(2048, 4): ((256, 8, 1, 4), 0.869, 0.678), (2048, 1): ((512, 4, 1, 1), 0.939, 0.719),
                   (4096, 4): ((256, 8, 2, 4), 0.714, 0.578), (4096, 1): ((1024, 4, 1, 1), 0.939, 0.708)}
    # the one-micro-batch layouts still win with the all-reduce priced, by less
    for g in (2048, 4096):
        assert got[g, 1][2] > got[g, 4][2] and got[g, 1][1] - got[g, 4][1] > got[g, 1][2] - got[g, 4][2]
    # one micro-batch leaves the exposed all-reduce about four times the weight
    m1 = sl.parallel_layout(2048, 13e9, 4e6, 4e6, microbatches_per_stage=1)
    assert 3.5 < _rho_dp(13e9, m1) / _rho_dp(13e9, sl.parallel_layout(1024, 13e9, 4e6, 4e6)) < 4.5


def test_the_13b_lead_at_512_gpus_is_the_policys():
    one = sl.parallel_layout(512, 1.3e9, 16e6, 2e6, microbatches_per_stage=1)
    assert (one.dp, one.tp, one.pp, round(one.efficiency, 3)) == (512, 1, 1, 1.0)
    assert _rho_dp(1.3e9, one) == 0.0 and round(_e_with_dp(1.3e9, one), 3) == 1.0
    # under the policy the same model on 512 GPUs stops at 128 replicas
    assert sl.parallel_layout(512, 1.3e9, 16e6, 2e6).dp == 128
