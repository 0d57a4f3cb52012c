"""The decode model of Section 3.4 (batching), the KV-cache arithmetic and the traffic model of Section 3.2."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl

A100 = sl.get_accelerator("A100")


# --- KV cache and devices to hold -------------------------------------------------------------------------------

def test_kv_bytes_per_token_of_the_three_shapes():
    assert sl.get_decoder("Llama-3-8B").kv_bytes_per_token() == 131_072        # 128 KiB: GQA, 8 KV heads
    assert sl.get_decoder("Llama-2-7B").kv_bytes_per_token() == 524_288        # 512 KiB: one KV head per head
    assert sl.get_decoder("Llama-3-70B").kv_bytes_per_token() == 327_680       # 320 KiB
    assert sl.get_decoder("Llama-3-8B").head_dim == 128


@given(st.floats(0, 1e6), st.integers(1, 128), st.integers(1, 128), st.integers(1, 256))
def test_kv_cache_is_linear_in_tokens(tokens, layers, heads, dim):
    one = sl.kv_cache_bytes(1, layers, heads, dim)
    assert one == 2 * layers * heads * dim * 2
    assert sl.kv_cache_bytes(tokens, layers, heads, dim) == pytest.approx(tokens * one)


def test_extra_bytes_count_toward_the_devices():
    m = sl.get_decoder("Llama-3-70B")
    cache = sl.kv_cache_bytes(32 * 4096, m.n_layers, m.n_kv_heads, m.head_dim)
    assert round(cache / 1e9, 1) == 42.9
    assert sl.devices_to_hold(70e9, "infer_fp16", 80e9) == 2
    assert sl.devices_to_hold(70e9, "infer_fp16", 80e9, extra_bytes=cache) == 3
    np.testing.assert_array_equal(sl.devices_to_hold(70e9, "infer_fp16", 80e9, extra_bytes=[0.0, cache]), [2, 3])
    with pytest.raises(ValueError, match="extra_bytes must be >= 0"):
        sl.devices_to_hold(70e9, "infer_fp16", 80e9, extra_bytes=-1.0)


# --- the decode step ------------------------------------------------------------------------------------------

def test_decode_step_is_the_slower_of_memory_and_compute():
    # memory-bound: 8e9 two-byte weights, 16 GB over 2 TB/s = 8 ms; 16 GFLOP over 300 TFLOP/s is far less
    assert sl.decode_step_time(1, 8e9, 300e12, 2e12) == pytest.approx(0.008)
    # compute-bound: a thousand sequences with no cache, 16e12 FLOPs over 300e12 = 53 ms > 8 ms
    assert sl.decode_step_time(1000, 8e9, 300e12, 2e12) == pytest.approx(1000 * 16e9 / 300e12)
    assert sl.decode_tokens_per_second(8, 8e9, 300e12, 2e12) == pytest.approx(1000.0)
    # an explicit F (attention over a long context) moves only the compute side
    compute, memory = sl.decode_time_terms(1000, 8e9, 300e12, 2e12, flops_per_token=3.2e10)
    assert compute == pytest.approx(1000 * 3.2e10 / 300e12) and memory == pytest.approx(0.008)


@given(st.integers(1, 512), st.floats(1e8, 1e12), st.floats(0, 1e10), st.floats(1e8, 1e12))
def test_throughput_grows_with_the_batch_but_never_faster_than_the_batch(b, n, kv, f):
    kwargs = dict(n_params=n, peak_flops=300e12, bandwidth=2e12, kv_bytes_per_seq=kv, flops_per_token=f)
    one = sl.decode_tokens_per_second(1, **kwargs)
    more = sl.decode_tokens_per_second(b, **kwargs)
    assert more >= one * (1 - 1e-12)
    assert more <= b * one * (1 + 1e-12)
    assert sl.decode_step_time(b, **kwargs) >= sl.decode_step_time(1, **kwargs) * (1 - 1e-12)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), "many"])
def test_an_explicit_flops_per_token_is_checked(bad):
    with pytest.raises((ValueError, TypeError), match="flops_per_token"):
        sl.decode_time_terms(8, 7e9, 3e14, 2e12, flops_per_token=bad)


def test_the_three_decode_models_share_one_step():
    """3.4's profile (with attention FLOPs), 3.7's roofline decode and 3.9's device rate are one computation."""
    prof = sl.decode_profile([1, 8, 64], "Llama-3-8B", "A100", context=2048)
    m, dev = sl.get_decoder("Llama-3-8B"), sl.get_accelerator("A100")
    rate = sl.decode_tokens_per_second(prof["batch"], m.n_params, dev.peak("bf16"), dev.memory_bandwidth,
                                       2.0, prof["kv_bytes_per_seq"], flops_per_token=prof["flops_per_token"])
    np.testing.assert_allclose(prof["tokens_per_s"], rate, rtol=1e-12)
    h100 = sl.get_accelerator("H100")
    np.testing.assert_allclose(sl.device_decode_rate([1, 64], 7e9, 0, device="H100"),
                               sl.decode_tokens_per_second([1, 64], 7e9, h100.peak("bf16"), h100.memory_bandwidth),
                               rtol=1e-12)


def test_the_27x_batching_effect_reproduced():
    """Bhandari (2025), from the DatabaseMart vLLM A100 80GB benchmark: about 27x more tokens/s at batch 64
    than at batch 1 at a 2,048-token length. The model (Llama 3 8B shape, bf16, 2,048 tokens of context per
    sequence, A100 peak bandwidth) gives 31.4x: within a fifth of the measurement, and above it."""
    prof = sl.decode_profile([1, 64], "Llama-3-8B", "A100", context=2048)
    ratio = prof["tokens_per_s"][1] / prof["tokens_per_s"][0]
    assert round(ratio, 1) == 31.4
    assert 27 < ratio < 27 * 1.2
    assert round(ratio / 27 - 1, 2) == 0.16
    assert [round(x) for x in prof["tokens_per_s"]] == [125, 3933]
    assert round(1e3 * prof["step_time"][1], 2) == 16.27
    # memory-bound throughout: the compute time is far below the memory time
    assert np.all(prof["compute_time"] < prof["memory_time"])
    # share of the bf16 peak doing useful arithmetic
    useful = prof["tokens_per_s"] * prof["flops_per_token"] / A100.peak("bf16")
    assert [round(100 * u, 1) for u in useful] == [0.7, 21.5]


def test_hand_written_model_of_the_text_equals_the_library():
    m = sl.get_decoder("Llama-3-8B")
    c_kv = 2 * m.n_layers * m.n_kv_heads * m.head_dim * 2 * 2048
    flops = 2 * m.n_params + 4 * m.n_layers * m.d_model * 2048
    prof = sl.decode_profile([1, 64], m, A100, 2048)
    for i, b in enumerate((1, 64)):
        t = max((2 * m.n_params + b * c_kv) / A100.memory_bandwidth, b * flops / A100.peak("bf16"))
        assert prof["step_time"][i] == pytest.approx(t)
    assert prof["kv_bytes_per_seq"] == c_kv and prof["flops_per_token"] == flops


def test_without_grouped_query_attention_the_cache_caps_the_batch():
    """Batch 64 does not fit the Llama 2 7B shape (the model's 11.3x there is not a servable number); the
    largest batch that fits, 54, gains 10.9x, about a third (0.35) of the Llama 3 shape's 31.4x."""
    mha = sl.decode_profile([1, 64], "Llama-2-7B", "A100", context=2048)
    assert mha["max_batch"] == 54 and not mha["fits"][1]
    fits = sl.decode_profile([1, 54], "Llama-2-7B", "A100", context=2048)
    assert fits["fits"].all()
    gain = fits["tokens_per_s"][1] / fits["tokens_per_s"][0]
    assert round(gain, 1) == 10.9
    gqa64 = sl.decode_profile([1, 64], "Llama-3-8B", "A100", context=2048)
    assert round(gain / (gqa64["tokens_per_s"][1] / gqa64["tokens_per_s"][0]), 2) == 0.35
    gqa = sl.decode_profile([1, 64], "Llama-3-8B", "A100", context=2048)
    assert gqa["max_batch"] == 208 and gqa["fits"].all()
    assert sl.decode_profile(1, "Llama-3-8B", "A100", context=8192)["max_batch"] == 52


def test_max_batch_is_the_largest_that_fits():
    for model, context in (("Llama-3-8B", 2048), ("Llama-2-7B", 4096), ("Llama-3-8B", 8192)):
        prof = sl.decode_profile(1, model, "A100", context)
        room = 0.9 * A100.memory_bytes - prof["weight_bytes"]
        b = prof["max_batch"]
        assert b * prof["kv_bytes_per_seq"] <= room < (b + 1) * prof["kv_bytes_per_seq"]
    # a model whose weights alone do not fit cannot run a batch at all
    assert sl.decode_profile(1, "Llama-3-70B", "A100", 2048)["max_batch"] == 0


def test_ridge_batch_is_where_compute_overtakes_memory():
    prof = sl.decode_profile(1, "Llama-3-8B", "A100", context=512)
    ridge = prof["ridge_batch"]
    assert math.isfinite(ridge)
    memory = (prof["weight_bytes"] + ridge * prof["kv_bytes_per_seq"]) / A100.memory_bandwidth
    compute = ridge * prof["flops_per_token"] / A100.peak("bf16")
    assert memory == pytest.approx(compute)
    # at 2,048 tokens each sequence adds more memory time than compute time: never compute-bound
    assert math.isinf(sl.decode_profile(1, "Llama-3-8B", "A100", context=2048)["ridge_batch"])


def test_step_time_in_the_text_table():
    prof = sl.decode_profile([1, 8, 64, 128], "Llama-3-8B", "A100", context=2048)
    assert [round(1e3 * t, 1) for t in prof["step_time"]] == [8.0, 8.9, 16.3, 24.7]


def test_decoder_lookup():
    assert sl.get_decoder("llama-3-8b").name == "Llama-3-8B"
    shape = sl.get_decoder("Llama-2-7B")
    assert sl.get_decoder(shape) is shape
    with pytest.raises(ValueError, match="model must be one of"):
        sl.get_decoder("GPT-5")
    with pytest.raises(TypeError, match="model must be"):
        sl.get_decoder(7)
    for shape in sl.DECODERS.values():
        assert shape.source and shape.d_model % shape.n_heads == 0 and shape.n_heads % shape.n_kv_heads == 0


# --- traffic per parallelism (Section 3.2) --------------------------------------------------------------------

def test_step_traffic_of_the_gpt3_layout():
    t = sl.step_traffic(175e9, 96, 12288, seq_len=2048, micro_batch=1, microbatches=32, tp=8, pp=8, dp=16)
    assert [round(t[k] / 1e9, 1) for k in ("tp", "pp", "dp")] == [135.3, 0.4, 10.3]
    x = sl.layout.A100_ACHIEVED_FLOPS
    assert round(t["flops"] / x, 2) == 7.17
    assert round(t["tp"] / A100.link_bandwidth, 2) == 0.45
    assert round(t["tp"] / sl.LINKS["InfiniBand HDR"].bandwidth, 2) == 5.41
    assert round(t["dp"] / sl.LINKS["InfiniBand HDR"].bandwidth, 2) == 0.41
    assert t["tp"] > 10 * (t["pp"] + t["dp"])


def test_step_traffic_vanishes_without_the_parallelism():
    t = sl.step_traffic(1e9, 24, 2048, microbatches=4)
    assert t["tp"] == t["pp"] == t["dp"] == 0.0
    assert t["flops"] == pytest.approx(6 * 1e9 * 4 * 2048)
    with pytest.raises(ValueError, match="pp must divide n_layers"):
        sl.step_traffic(1e9, 24, 2048, pp=5)


@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 8, 64]))
def test_step_traffic_scales_as_documented(tp, pp, dp):
    t = sl.step_traffic(70e9, 80, 8192, microbatches=8, tp=tp, pp=pp, dp=dp)
    act = 2 * 2048 * 8192
    assert t["tp"] == pytest.approx(8 * (80 / pp) * 4 * 2 * (tp - 1) / tp * act)
    assert t["dp"] == pytest.approx(2 * (dp - 1) / dp * 2 * 70e9 / (tp * pp))
    assert t["flops"] == pytest.approx(6 * 70e9 * 8 * 2048 / (tp * pp))
