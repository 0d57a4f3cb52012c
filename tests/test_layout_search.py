"""The layout search of Section 3.9 (scalinglib.layout_search): brute force, limits, the capstone's layouts."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scalinglib as sl

SMALL = dict(seq_len=512, gpus_per_node=4, device_memory_bytes=16e9, max_micro_batch=4, max_chunks=2)


def _brute_force(n_gpus, n_params, cap, crit=None, **kw):
    """Every layout, every micro-batch count: the best objective among those within the limits."""
    opts = {k: v for k, v in kw.items() if k not in ("max_micro_batch", "max_chunks")}
    g, s = kw["gpus_per_node"], kw["seq_len"]
    layers = max(1, round(float(sl.hidden_size_for(n_params)) / 128))
    budget = 0.9 * kw["device_memory_bytes"]
    best = None
    for t in (t for t in range(1, g + 1) if g % t == 0):
        for p in (p for p in range(1, layers + 1) if layers % p == 0):
            for d in range(1, n_gpus // (t * p) + 1):
                used = t * p * d
                if (used >= g and used % g) or (used < g and g % used):
                    continue
                for b in range(1, kw["max_micro_batch"] + 1):
                    for v in range(1, kw["max_chunks"] + 1):
                        if v > 1 and (p == 1 or (layers // p) % v):
                            continue
                        for m in range(1, int(cap // (d * b * s)) + 1):
                            if v > 1 and m % p:
                                continue
                            o = sl.evaluate_layout(n_params, t, p, d, b, m, v, critical_batch_tokens=crit, **opts)
                            if o.memory_bytes > budget or o.batch_tokens > cap:
                                continue
                            if best is None or o.objective < best.objective * (1 - 1e-12):
                                best = o
    return best


@pytest.mark.parametrize("n_gpus, n_params, cap, crit", [
    (16, 2e9, 64 * 512, None),
    (16, 2e9, 64 * 512, 32 * 512),
    (8, 1e9, 40 * 512, None),
    (12, 2e9, 48 * 512, 16 * 512),
])
def test_search_matches_brute_force(n_gpus, n_params, cap, crit):
    found = sl.search_layout(n_gpus, n_params, cap, critical_batch_tokens=crit, **SMALL)
    brute = _brute_force(n_gpus, n_params, cap, crit, **SMALL)
    assert found.best.objective == pytest.approx(brute.objective, rel=1e-9)
    if found.runner_up is not None:
        assert found.runner_up.objective >= found.best.objective * (1 - 1e-9)
        assert (found.runner_up.tp, found.runner_up.pp) != (found.best.tp, found.best.pp)


@settings(max_examples=15, deadline=None)
@given(n_gpus=st.sampled_from([8, 32, 64, 256]), n_params=st.sampled_from([1e9, 7e9, 13e9]),
       cap=st.floats(2**20, 2**23), port=st.sampled_from([6.25e9, 25e9]))
def test_limits_are_never_exceeded(n_gpus, n_params, cap, port):
    try:
        found = sl.search_layout(n_gpus, n_params, cap, port_bandwidth=port)
    except ValueError as err:
        assert "no split of" in str(err) or "no layout fits" in str(err)
        return
    for o in (found.best, found.runner_up):
        if o is None:
            continue
        assert o.memory_bytes <= 0.9 * 80e9
        assert o.batch_tokens <= cap
        assert o.n_gpus == o.tp * o.pp * o.dp <= n_gpus
        assert 8 % o.tp == 0
        assert 0 < o.efficiency <= 1
        inverse = (1 + o.rho_tp) * (1 + o.rho_pp) + o.rho_dp
        assert o.efficiency == pytest.approx(1 / inverse)


def test_capstone_13b_on_2048_gpus_is_at_least_85_percent_efficient():
    best = sl.search_layout(2048, 13e9, 4e6).best
    assert best.efficiency >= 0.85
    assert best.efficiency == pytest.approx(1 / ((1 + best.rho_tp) * (1 + best.rho_pp) + best.rho_dp))
    assert (best.tp, best.pp, best.dp, best.micro_batch, best.microbatches) == (8, 1, 256, 4, 1)


def test_ties_go_to_fewer_gpus():
    # the 13B model's best layout on a cluster of 2,056 GPUs is the one on 2,048 when nothing beats it
    a = sl.search_layout(2048, 13e9, 4e6).best
    b = sl.search_layout(2056, 13e9, 4e6).best
    assert b.time_per_token <= a.time_per_token * (1 + 1e-9)
    if math.isclose(b.time_per_token, a.time_per_token, rel_tol=1e-9):
        assert b.n_gpus <= a.n_gpus


def test_binding_and_reason():
    found = sl.search_layout(2048, 13e9, 4e6)
    assert "node" in found.binding and found.reason.endswith(".")
    with pytest.raises(ValueError, match="n_gpus"):
        sl.search_layout(2, 13e9, 4e6)
    with pytest.raises(ValueError, match="max_batch_tokens"):
        sl.search_layout(64, 1e9, 100)
