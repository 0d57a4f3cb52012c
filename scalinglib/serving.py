r"""Serving a language model: why batching buys throughput (Section 3.4).

A transformer generates text one token per **decode step**. In each step every
sequence of the batch gets one new token, and the GPU must

* read every weight once (:math:`N b_\text{p}` bytes for N parameters of
  :math:`b_\text{p}` bytes each, :math:`2N` in bf16; shared by the whole batch),
* read each sequence's key-value cache (:math:`c_\text{kv}` bytes per sequence,
  growing with its context), and
* do about :math:`2N` FLOPs per token for the weight matrices plus
  :math:`4 n_\text{layers} d_\text{model} c` for attention over a context of
  c tokens; call the sum F.

If memory traffic and arithmetic overlap perfectly, the step takes whichever
is longer:

.. math:: t_\text{step}(b) = \max\!\Big(\frac{N b_\text{p} + b\,c_\text{kv}}{B},\ \frac{b\,F}{P}\Big),
          \qquad \text{tokens/s} = \frac{b}{t_\text{step}(b)},

with b sequences in the batch, memory bandwidth B (bytes/s) and peak compute
P (FLOP/s). At small b the weights dominate the traffic, the step time barely
grows with b, and throughput rises almost in proportion to the batch. Two
things end that: the KV cache (the :math:`b\,c_\text{kv}` term catches up with the
weights) or the compute roof (:math:`bF/P` overtakes the memory time). Section 3.7.3
places this on the roofline; the two sides of the step are
:func:`scalinglib.roofline.decode_time_terms`, shared by every decode model of the book.

The model ignores everything else a real server does (prefill of new prompts,
scheduling, sampling, kernel launch gaps) and assumes the peak bandwidth and
peak FLOP/s are reached, so its absolute tokens/s are upper bounds; ratios
between batch sizes are what it predicts best.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ._validate import (
    _describe,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_text,
    check_whole,
    public,
    renamed,
    scalar_or_array,
    single,
    single_whole,
)
from .hardware import get_accelerator
from .memory import _bytes_per_param, kv_cache_bytes
from .roofline import decode_time_terms

__all__ = [
    "DecoderShape",
    "DECODERS",
    "get_decoder",
    "decode_profile",
]


@dataclass(frozen=True)
class DecoderShape:
    """The shape of a decoder-only transformer, as far as decoding cost depends on it.

    Parameters
    ----------
    name : str
        E.g. ``"Llama-3-8B"``.
    n_params : float
        Parameters N.
    n_layers, d_model, n_heads, n_kv_heads : int
        Layers, model width, query heads, key-value heads (equal to
        ``n_heads`` for multi-head attention, fewer for grouped-query attention).
    source : str
        Where the shape comes from.
    """

    name: str
    n_params: float
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    source: str = ""

    def __post_init__(self) -> None:
        check_text("name", self.name)
        check_text("source", self.source, allow_empty=True)
        single(check_positive, "n_params", self.n_params)
        for field_name in ("n_layers", "d_model", "n_heads", "n_kv_heads"):
            # kept as a Python int: numpy's small integer types would overflow in products
            object.__setattr__(self, field_name, single_whole(field_name, getattr(self, field_name)))
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model must be a multiple of n_heads; got {self.d_model} and {self.n_heads}")
        if self.n_kv_heads > self.n_heads or self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_kv_heads must divide n_heads (grouped-query attention); got {self.n_kv_heads} "
                             f"and {self.n_heads}")

    @property
    def head_dim(self) -> int:
        """Width of one attention head, ``d_model // n_heads``."""
        return self.d_model // self.n_heads

    def kv_bytes_per_token(self, bytes_per_value=2.0) -> float:
        """KV-cache bytes per token of context (:func:`scalinglib.memory.kv_cache_bytes`)."""
        return float(kv_cache_bytes(1, self.n_layers, self.n_kv_heads, self.head_dim, bytes_per_value))

    def flops_per_token(self, context):
        r"""FLOPs to generate one token at a context of ``context`` tokens.

        .. math:: F = 2N + 4\, n_\text{layers}\, d_\text{model}\, c

        (the weight matrices, then the attention scores and the weighted sum of
        values over c past tokens).
        """
        c = check_nonnegative("context", context)
        return scalar_or_array(2.0 * self.n_params + 4.0 * self.n_layers * self.d_model * c, c)


_LLAMA3 = ("Grattafiori et al., The Llama 3 Herd of Models, arXiv:2407.21783 (2024), Table 3 "
           "(layers, model dimension, attention heads, key/value heads)")
_LLAMA = ("Touvron et al., LLaMA: Open and Efficient Foundation Language Models, arXiv:2302.13971 (2023), "
          "Table 2 (6.7B: dimension 4096, 32 heads, 32 layers); Touvron et al., Llama 2, arXiv:2307.09288 "
          "(2023): grouped-query attention only in the 34B and 70B models, so the 7B keeps one KV head per head")

#: Model shapes used in Sections 3.2 and 3.4, by name (parameter counts as the papers round them).
DECODERS: Mapping[str, DecoderShape] = MappingProxyType({
    shape.name: shape
    for shape in (
        DecoderShape("Llama-3-8B", 8.0e9, 32, 4096, 32, 8, _LLAMA3),
        DecoderShape("Llama-3-70B", 70e9, 80, 8192, 64, 8, _LLAMA3),
        DecoderShape("Llama-2-7B", 6.7e9, 32, 4096, 32, 32, _LLAMA),
    )
})


@public
def get_decoder(model) -> DecoderShape:
    """Look up a :class:`DecoderShape` of :data:`DECODERS` (a shape is returned unchanged).

    Examples
    --------
    >>> get_decoder("Llama-3-8B").kv_bytes_per_token()
    131072.0
    >>> get_decoder("GPT-5")
    Traceback (most recent call last):
        ...
    ValueError: model must be one of 'Llama-3-8B', 'Llama-3-70B', 'Llama-2-7B'; got 'GPT-5'
    """
    if isinstance(model, DecoderShape):
        return model
    if not isinstance(model, str):
        raise TypeError(f"model must be a model name or a DecoderShape; got {_describe(model)}")
    for key, shape in DECODERS.items():
        if key.lower() == model.strip().lower():
            return shape
    raise ValueError(f"model must be one of {', '.join(map(repr, DECODERS))}; got {_describe(model)}")


#: The largest batch :func:`decode_profile` takes (it is returned as an integer array).
MAX_BATCH = 2**53


@public(allow_inf=("ridge_batch",))
def decode_profile(batch, model="Llama-3-8B", device="A100 SXM 80GB", context=2048, *, precision="bf16",
                   bytes_per_param=2.0, bytes_per_value=2.0, usable_fraction=0.9):
    r"""The decode model of this module for one model on one device, over a range of batch sizes.

    Every sequence is taken to hold ``context`` tokens in its KV cache (a steady
    state of long conversations).

    Parameters
    ----------
    batch : int or array_like
        Batch sizes, whole from 1 to 2**53 (returned as integers, never wrapped).
    model : str or DecoderShape, optional
        A name from :data:`DECODERS` (default ``"Llama-3-8B"``).
    device : str or Accelerator, optional
        A device of :data:`scalinglib.hardware.CATALOG` (default the A100 SXM 80GB).
    context : int, optional
        Tokens of context per sequence, whole >= 1 (default 2,048).
    precision : str, optional
        Precision whose peak FLOP/s is used (default ``"bf16"``).
    bytes_per_param : float or str, optional
        Bytes per weight, > 0, or a preset of :data:`scalinglib.memory.BYTES_PER_PARAM`
        such as ``"infer_int8"`` (default 2: bf16).
    bytes_per_value : float, optional
        Bytes per cached key or value, > 0 (default 2).
    usable_fraction : float, optional
        Share of device memory for weights and cache, in (0, 1] (default 0.9).

    Returns
    -------
    dict
        ``batch``, ``step_time`` (s), ``memory_time`` (s), ``compute_time``
        (s), ``tokens_per_s`` and ``fits`` (arrays over ``batch``), and the
        scalars ``weight_bytes``, ``kv_bytes_per_seq``, ``flops_per_token``,
        ``max_batch`` (the largest batch whose weights and cache fit, 0 if the
        weights alone do not) and ``ridge_batch`` (the batch at which compute
        time would overtake memory time; infinity if the cache grows faster
        than the arithmetic and that never happens).

    Examples
    --------
    >>> prof = decode_profile([1, 64])
    >>> round(float(prof["tokens_per_s"][1] / prof["tokens_per_s"][0]), 1)    # batch 64 against batch 1
    31.4
    >>> prof["max_batch"]
    208
    """
    shape = get_decoder(model)
    with renamed(name="device"):
        dev = get_accelerator(device)
    b = check_whole("batch", batch, maximum=MAX_BATCH, why="larger than any decode batch, and exact as an integer")
    c = float(single_whole("context", context))
    u = single(check_fraction, "usable_fraction", usable_fraction, open_low=True)
    bpp = float(_bytes_per_param(bytes_per_param if isinstance(bytes_per_param, str)
                                 else single(check_positive, "bytes_per_param", bytes_per_param)))
    single(check_positive, "bytes_per_value", bytes_per_value)
    weight = shape.n_params * bpp
    kv = float(kv_cache_bytes(c, shape.n_layers, shape.n_kv_heads, shape.head_dim, bytes_per_value))
    flops = float(shape.flops_per_token(c))
    bw, peak = dev.memory_bandwidth, dev.peak(precision)
    bb = np.atleast_1d(b)
    compute_time, memory_time = decode_time_terms(bb, shape.n_params, peak, bw, bpp, kv, flops_per_token=flops)
    step = np.maximum(memory_time, compute_time)
    room = u * dev.memory_bytes - weight
    max_batch = int(np.floor(room / kv)) if room > 0 and kv > 0 else (0 if room <= 0 else 10**12)
    per_seq_compute, per_seq_memory = flops / peak, kv / bw
    ridge = (weight / bw) / (per_seq_compute - per_seq_memory) if per_seq_compute > per_seq_memory else np.inf
    return {
        "batch": bb.astype(int),
        "step_time": step,
        "memory_time": memory_time,
        "compute_time": compute_time,
        "tokens_per_s": bb / step,
        "fits": bb <= max_batch,
        "weight_bytes": weight,
        "kv_bytes_per_seq": kv,
        "flops_per_token": flops,
        "max_batch": max_batch,
        "ridge_batch": float(ridge),
    }
