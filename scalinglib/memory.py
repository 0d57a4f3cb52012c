"""How many devices a model needs just to fit (Sections 3.2 and 3.3).

Bytes per parameter, by what is kept in device memory:

* ``"train_mixed_adam"`` (16 B): mixed-precision training with Adam, the
  usual accounting of the ZeRO paper: 2 B of fp16/bf16 weights, 2 B of
  gradients, and 12 B of fp32 optimizer state (master weights, momentum,
  variance), before any activations.
* ``"infer_fp16"`` (2 B) and ``"infer_int8"`` (1 B): weights only, for serving,
  before the KV cache.
* ``"fp32_weights"`` (4 B): weights kept in single precision.

Serving needs more than the weights: every sequence in a batch keeps the keys
and values of all its past tokens, the **KV cache** (:func:`kv_cache_bytes`).
Pass its total as ``extra_bytes`` to :func:`devices_to_hold`.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    as_count,
    check_broadcast,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_whole,
    public,
    scalar_or_array,
)

__all__ = ["BYTES_PER_PARAM", "model_bytes", "kv_cache_bytes", "devices_to_hold"]

#: Bytes of device memory per parameter for common set-ups (see the module text).
BYTES_PER_PARAM: dict[str, float] = {
    "train_mixed_adam": 16.0,
    "fp32_weights": 4.0,
    "infer_fp16": 2.0,
    "infer_int8": 1.0,
}

#: How far past a whole number of devices (counted in devices) a state may come out of the division and
#: still count as an exact fit: rounding noise, not a real excess.
_FIT_TOLERANCE = 1e-6


def _bytes_per_param(value):
    if isinstance(value, str):
        if value not in BYTES_PER_PARAM:
            raise ValueError(
                f"bytes_per_param must be a number > 0 or one of {', '.join(map(repr, BYTES_PER_PARAM))}; got {value!r}"
            )
        return np.float64(BYTES_PER_PARAM[value])
    return check_positive("bytes_per_param", value)


@public
def model_bytes(n_params, bytes_per_param="train_mixed_adam"):
    r"""Bytes a model occupies: parameters times bytes per parameter.

    Parameters
    ----------
    n_params : float or array_like
        Number of parameters N, > 0.
    bytes_per_param : float, array_like or str, optional
        Bytes per parameter, or a preset name from :data:`BYTES_PER_PARAM`.

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> model_bytes(7e9) / 1e9          # 7B parameters, training with Adam
    112.0
    >>> model_bytes(7e9, "infer_fp16") / 1e9
    14.0
    """
    n = check_positive("n_params", n_params)
    bpp = _bytes_per_param(bytes_per_param)
    nb, bb = check_broadcast(n_params=n, bytes_per_param=bpp)
    return scalar_or_array(nb * bb, n, bpp)


@public
def kv_cache_bytes(tokens, n_layers, n_kv_heads, head_dim, bytes_per_value=2.0):
    r"""Bytes of the key-value cache that a transformer keeps for ``tokens`` tokens.

    Every layer stores one key and one value vector per KV head for every past
    token:

    .. math:: 2 \cdot n_\text{layers} \cdot n_\text{kv heads} \cdot d_\text{head} \cdot b_\text{value}
              \ \text{bytes per token}.

    With multi-head attention there are as many KV heads as query heads;
    grouped-query attention shares each KV head among several query heads and
    divides the cache by that factor.

    Parameters
    ----------
    tokens : float or array_like
        Tokens held (summed over the sequences of a batch), >= 0.
    n_layers, n_kv_heads, head_dim : int or array_like
        Transformer shape, each whole >= 1.
    bytes_per_value : float or array_like, optional
        Bytes per stored number, > 0 (default 2: bf16 or fp16).

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> kv_cache_bytes(1, n_layers=32, n_kv_heads=8, head_dim=128)      # a Llama-3-8B-shaped model
    131072.0
    >>> kv_cache_bytes(2048, 32, 32, 128) / 1e9                         # one 2,048-token sequence, no GQA
    1.073741824
    """
    t = check_nonnegative("tokens", tokens)
    layers = check_whole("n_layers", n_layers)
    heads = check_whole("n_kv_heads", n_kv_heads)
    dim = check_whole("head_dim", head_dim)
    b = check_positive("bytes_per_value", bytes_per_value)
    tb, lb, hb, db, bb = check_broadcast(tokens=t, n_layers=layers, n_kv_heads=heads, head_dim=dim,
                                         bytes_per_value=b)
    return scalar_or_array(2.0 * lb * hb * db * bb * tb, t, layers, heads, dim, b)


@public
def devices_to_hold(n_params, bytes_per_param, device_memory_bytes, usable_fraction=0.9, extra_bytes=0.0):
    r"""The smallest number of devices whose memory holds the model's state.

    .. math:: \left\lceil \frac{N \cdot b_\text{p} + \text{extra}}{u \cdot M} \right\rceil

    with N parameters, :math:`b_\text{p}` bytes per parameter, extra bytes that must fit too
    (the KV cache of a serving batch, activations), and M bytes of memory per
    device of which a fraction u is usable (the rest goes to the framework and
    fragmentation). The state is assumed to split evenly across the devices.

    Parameters
    ----------
    n_params : float or array_like
        Number of parameters, > 0.
    bytes_per_param : float, array_like or str
        Bytes per parameter, or a preset name from :data:`BYTES_PER_PARAM`.
    device_memory_bytes : float or array_like
        Memory of one device in bytes, > 0.
    usable_fraction : float or array_like, optional
        Share of that memory the model state may use, in (0, 1] (default 0.9).
    extra_bytes : float or array_like, optional
        Bytes beyond the parameters' state, >= 0 (default 0), e.g. from
        :func:`kv_cache_bytes`.

    Returns
    -------
    int or numpy.ndarray of int

    Raises
    ------
    ValueError
        An input out of its range, or a count beyond 2**53 (a model no catalog could hold).

    Examples
    --------
    >>> devices_to_hold(70e9, "train_mixed_adam", 80e9)
    16
    >>> devices_to_hold(70e9, "infer_fp16", 80e9)
    2
    >>> devices_to_hold(70e9, "infer_fp16", 80e9, extra_bytes=40e9)    # plus a 40 GB KV cache
    3
    >>> devices_to_hold(72e9, "infer_fp16", 80e9)                       # 144 GB on 72 GB each: exactly two
    2
    """
    extra = check_nonnegative("extra_bytes", extra_bytes)
    need = np.asarray(model_bytes(n_params, bytes_per_param)) + extra
    mem = check_positive("device_memory_bytes", device_memory_bytes)
    u = check_fraction("usable_fraction", usable_fraction, open_low=True)
    nb, mb, ub = check_broadcast(model_bytes=need, device_memory_bytes=mem, usable_fraction=u)
    room = mb * ub                                   # usable bytes per device
    count = np.maximum(np.ceil(nb / room), 1.0)      # in float: no integer overflow
    # An exact fit (say 144 GB on two devices of 72 GB) can come out of the division a hair above a
    # whole number. The tolerance is in devices, not relative to the count: a state that exceeds
    # count - 1 devices by less than a millionth of one device (under 0.1 MB of an 80 GB device)
    # still fits in them, while a large count (1e25 parameters) is rounded up as the division says.
    excess = nb / room - (count - 1.0)
    count = np.where((count > 1.0) & (excess <= _FIT_TOLERANCE), count - 1.0, count)
    return as_count("device count", count,
                    "(n_params x bytes_per_param + extra_bytes) / (usable_fraction x device_memory_bytes)")
