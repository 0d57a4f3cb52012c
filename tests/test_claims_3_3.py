"""Every number the prose of Section 3.3 quotes about the fastest fixed job, the layout model, the interleaved
bubble and the critical-batch wall, recomputed from the library. (The seed-001 tables are in test_seed_tables.py;
the notebook's printed outputs are compared by nbval; the layout's rules are tested in test_models.py. The gradient
all-reduce that the layout model leaves out is priced in Section 3.8.7.)"""

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


# --- 3.3.3, the fastest fixed job: what it costs, and what it owes to the tree --------------------------

F, C = 0.05, 0.01


def _ring_time(k, f=F, c=C):
    """The cost model with a bandwidth-bound ring for the same message: the tree's c is about 2 n beta, the ring's
    bytes cost 2 n beta (K-1)/K, that is c (K-1)/K."""
    k = np.asarray(k, dtype=float)
    return f + (1 - f) / k + c * (k - 1) / k


def test_fastest_fixed_job_is_inefficient():
    best = sl.best_worker_count(F, C)
    assert best == 66 and round(1 / sl.strong_time(best, F, C), 2) == 8.01
    assert round(sl.strong_model_efficiency(best, F, C), 2) == 0.12
    k = np.arange(1, 67)
    e = sl.strong_model_efficiency(k, F, C)
    assert int(k[e < 0.5][0]) == 13 and round(float(e[11]), 3) == 0.505 and (e[12:] < 0.5).all()
    assert round(1 / sl.strong_time(16, F, C), 2) == 6.69          # exercise 3.3.2's solution: 8.0 against 6.7


def test_a_ring_removes_the_turnaround_not_the_fall_in_efficiency():
    k = np.arange(1, 1025)
    t_ring = _ring_time(k)
    assert (np.diff(t_ring) < 0).all()                              # no turnaround up to 1,024 workers
    assert t_ring[-1] == pytest.approx(F + C, abs=1e-3) and round(F + C, 2) == 0.06
    e_ring = 1 / (k * t_ring)
    assert int(k[e_ring < 0.5][0]) == 18
    assert [round(float(x), 3) for x in 1 / (np.array([16, 66, 128]) * _ring_time([16, 66, 128]))] == [0.526, 0.204, 0.116]
    # the tree does turn around
    assert sl.strong_time(128, F, C) > sl.strong_time(66, F, C)


# --- 3.3.6, the 13B table ------------------------------------------------------------------------

def test_13b_table():
    sweep = sl.layout_sweep(SIZES, 13e9, 4e6, 4e6)
    assert sweep["layers"][0] == 40 and sweep["dp_cap"][0] == 488
    assert round(_e(sweep, 1024), 2) == 0.94 and _dp_zone_end(sweep) == 1024
    assert sweep["fits"].all() and (sweep["pp"] <= 40).all()
    at = {int(g): i for i, g in enumerate(sweep["n_gpus"])}
    assert round(float(sweep["tp_fraction"][at[1024]]), 3) == 0.064
    assert all(round(float(sweep["tp_fraction"][at[g]]), 3) == 0.150 for g in (2048, 4096, 8192, 16384))
    assert float(sweep["bubble_fraction"][at[8192]]) == 0.75 and round(_e(sweep, 8192), 3) == 0.526


# --- 3.3.6, the interleaved schedule ---------------------------------------------------------------------

def _interleaved(lay):
    v = lay.layers // lay.pp
    bubble = sl.pipeline_bubble_fraction(lay.pp, lay.microbatches, chunks=v)
    return v, bubble, float(sl.scaling_efficiency(lay.tp_fraction + bubble))


def test_interleaving_divides_the_bubble_by_v():
    assert sl.pipeline_bubble_fraction(4, 4, chunks=10) == pytest.approx(0.075)
    assert sl.pipeline_bubble_fraction(4, 4) == sl.pipeline_bubble_fraction(4, 4, chunks=1) == 0.75
    assert np.allclose(sl.pipeline_bubble_fraction(8, 32, chunks=[1, 2, 4]), [0.21875, 0.109375, 0.0546875])
    with pytest.raises(ValueError, match="chunks"):
        sl.pipeline_bubble_fraction(4, 4, chunks=0)


def test_13b_on_8192_gpus_interleaved():
    lay = sl.parallel_layout(8192, 13e9, 4e6, 4e6)
    assert (lay.dp, lay.tp, lay.pp, lay.microbatches, lay.layers) == (256, 8, 4, 4, 40)
    assert lay.microbatches % lay.pp == 0                    # the interleaved schedule takes m as a multiple of p
    v, bubble, e = _interleaved(lay)
    assert v == 10 and lay.bubble_fraction == 0.75 and bubble == pytest.approx(0.075)
    assert (round(lay.efficiency, 3), round(e, 3)) == (0.526, 0.816)
    lay4k = sl.parallel_layout(4096, 13e9, 4e6, 4e6)
    v4, b4, e4 = _interleaved(lay4k)
    assert (v4, round(b4, 3), round(lay4k.efficiency, 3), round(e4, 3)) == (20, 0.013, 0.714, 0.860)
    assert lay4k.microbatches % lay4k.pp == 0


def test_no_layer_to_spare_no_interleaving():
    lay = sl.parallel_layout(8192, 175e9, 2e6, 2e6)
    assert (lay.pp, lay.layers) == (64, 96)
    v, bubble, e = _interleaved(lay)
    assert v == 1 and bubble == lay.bubble_fraction and round(e, 3) == 0.330


# --- 3.3.6, the model-size table after the slider ---------------------------------------------

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
    # shallower pipelines leave layers to interleave
    inter = [_interleaved(r) for r in rows.values()]
    assert [(v, round(e, 3)) for v, _, e in inter] == [(1, 0.330), (6, 0.876), (12, 0.925)]
    assert all(r.microbatches % r.pp == 0 for r in (rows[8e6], rows[32e6]))


# --- exercises -------------------------------------------------------------------------------------

def test_exercise_hints_use_the_sections_symbols():
    hint = check("ex-3-3-4b", [1.0, 1.0]).hint
    assert "n_step(B_g)" in hint and "D_tok(B_g)" in hint and "S(" not in hint and "E(" not in hint
    for key in ("ex-3-3-2a", "ex-3-3-3a"):
        assert "f + " in check(key, 1.0).hint and "s + " not in check(key, 1.0).hint


def test_scoring_item_falls_with_the_numbers_the_exercise_gives():
    # (a): 50,000 images at 1,000 per GPU-second, after 20 s of loading that does not shrink
    t = {g: 20 + 50_000 / (1_000 * g) for g in (4, 16, 64)}
    assert (round(t[4], 1), round(t[16], 1), round(t[64], 1)) == (32.5, 23.1, 20.8)
    assert round(4 * t[4] / (64 * t[64]), 2) == 0.10


def test_new_parts_of_exercises_3_3_2_and_3_3_4():
    assert check("ex-3-3-2d", 0.1214).correct and not check("ex-3-3-2d", 0.5).correct
    assert check("ex-3-3-4c", [0.714, 0.860]).correct and not check("ex-3-3-4c", [0.714, 0.714]).correct


def test_monte_carlo_item_reads_as_high_efficiency():
    # (c): 1e9 samples at 1e7 per node-second over at most 64 nodes, one final sum of under a millisecond
    assert check("ex-3-3-1b", ["falls", "high", "high", "high"]).correct
    assert not check("ex-3-3-1b", ["falls", "high", "falls", "high"]).correct
    t = {k: 1e9 / (1e7 * k) + 1e-3 for k in (1, 64)}
    assert round(t[1] / (64 * t[64]), 3) == 0.999 and round(1e9 / (1e7 * 64), 1) == 1.6
