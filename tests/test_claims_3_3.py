"""Every number the prose of Section 3.3 quotes about the layout model and the critical-batch wall,
recomputed from the library. (The seed-001 tables are in test_seed_tables.py; the notebook's printed
outputs are compared by nbval; the layout's rules are tested in test_models.py.)"""

import numpy as np
import pytest

import scalinglib as sl
from scalinglib.exercises import check

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


def test_3_3_the_gradient_all_reduce_hides_behind_2048_token_micro_batches_only_with_node_ordered_rings():
    n_params, x, alpha = 13e9, 150e12, 5e-6
    beta_net = 1 / sl.LINKS["InfiniBand NDR"].bandwidth
    beta_nvl = 1 / sl.LINKS["NVLink 4 (H100)"].bandwidth
    every_hop = sl.collective_time("allreduce", 2 * n_params, 32, alpha, beta_net, algorithm="ring")
    by_node = sl.multiring_allreduce_time(2 * n_params, 4, 8, alpha, beta_nvl, alpha, beta_net, nics=8)
    tokens = [round(t * x / (4 * n_params)) for t in (every_hop, by_node)]
    assert tokens == [2907, 364]                       # the same thresholds as Section 3.8 prints
    assert tokens[1] < 2048 < tokens[0]                # a 2,048-token micro-batch hides it only node by node
