r"""FLOPs per token, model FLOPs utilization and training time (Sections 3.9.2, 3.9.4 and 3.9.5).

**FLOPs per token.** A dense decoder-only transformer with N parameters
spends about 2N FLOPs per token in the forward pass (one multiply and one add
per weight) and twice that in the backward pass, so a training token costs

.. math:: C_\text{tok} = 6N + 12\,\ell\,a\,d_h\,L \quad [\text{FLOP/token}]

where the second term is the attention score and value products of
:math:`\ell` layers with a heads of size :math:`d_h` over sequences of L
tokens (Chowdhery et al. 2022, appendix B). This count is the *model* FLOPs:
activation recomputation, which runs parts of the forward pass again to save
memory, is not in it.

**Model FLOPs utilization (MFU)** compares what the run needed with what the
hardware could have done in the same time:

.. math:: \text{MFU} = \frac{R \cdot C_\text{tok}}{K P}

for a measured throughput of R tokens/s on K devices of peak rate P FLOP/s
each. The hardware FLOPs utilization (HFU) counts the recomputed FLOPs too and
is therefore larger for the same run.

**Training time.** Processing :math:`D_\text{tok}` tokens at a sustained X
FLOP/s per device takes :math:`6 N D_\text{tok} / (KX)` seconds; with full
activation recomputation the hardware executes a second forward pass, 8N per
token, and Narayanan et al. (2021) estimate :math:`8 N D_\text{tok} / (KX)`,
with X the rate *including* the recomputed FLOPs, which is what Megatron-LM
reports.

The letters follow the chapter's notation table: :math:`\ell` layers, a heads
of size :math:`d_h`, K devices, P peak FLOP/s.
"""

from __future__ import annotations

import numbers

from .._validate import (
    check_broadcast,
    check_flag,
    check_positive,
    check_whole,
    public,
    scalar_or_array,
)

__all__ = [
    "SECONDS_PER_HOUR",
    "SECONDS_PER_DAY",
    "flops_per_token",
    "mfu",
    "training_time",
]


SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0


def _is_zero(value) -> bool:
    """True for the default 0 of an optional shape argument (a plain number, not a bool or an array)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == 0


@public
def flops_per_token(n_params, n_layers=0, n_heads=0, head_dim=0, seq_len=0):
    r"""Training FLOPs per token of a dense transformer: :math:`6N + 12\,\ell\,a\,d_h L`.

    The attention term is added when the model's shape is given (all four of
    ``n_layers``, ``n_heads``, ``head_dim`` and ``seq_len``); with none of them it is
    left out, giving the common :math:`6N`. This is the definition of model FLOPs
    used for MFU by Chowdhery et al. (2022): no activation recomputation, full
    (not causal-halved) attention.

    Parameters
    ----------
    n_params : float or array_like
        Parameters N, > 0.
    n_layers, n_heads, head_dim, seq_len : int or array_like, optional
        Layers :math:`\ell`, attention heads a, head size :math:`d_h` and
        sequence length L, whole numbers >= 1; give all four or none.

    Returns
    -------
    float or numpy.ndarray
        FLOPs per token.

    Raises
    ------
    ValueError
        Some but not all of the shape is given, or a value is out of range.

    References
    ----------
    Chowdhery et al. (2022), the PaLM paper (arXiv:2204.02311), appendix B.

    Examples
    --------
    >>> flops_per_token(175e9) / 1e12
    1.05
    >>> round(flops_per_token(540e9, 118, 48, 256, 2048) / 1e12, 4)   # PaLM 540B
    3.2756
    """
    n = check_positive("n_params", n_params)
    shape = {"n_layers": n_layers, "n_heads": n_heads, "head_dim": head_dim, "seq_len": seq_len}
    given = [name for name, value in shape.items() if not _is_zero(value)]
    if not given:
        return scalar_or_array(6.0 * n, n)
    if len(given) != len(shape):
        missing = [name for name in shape if name not in given]
        raise ValueError(
            "give all of n_layers, n_heads, head_dim and seq_len for the attention term, or none of them; "
            f"missing {', '.join(missing)}"
        )
    parts = [check_whole(name, value) for name, value in shape.items()]
    nb, lb, hb, qb, tb = check_broadcast(n_params=n, **dict(zip(shape, parts)))
    return scalar_or_array(6.0 * nb + 12.0 * lb * hb * qb * tb, n, *parts)


@public
def mfu(tokens_per_second, flops_per_token, n_devices, peak_flops_per_device):
    r"""Model FLOPs utilization: model FLOPs done per second over the peak of the devices.

    .. math:: \text{MFU} = \frac{R \cdot C_\text{tok}}{K P}

    Parameters
    ----------
    tokens_per_second : float or array_like
        Measured training throughput R of the whole run (all devices), tokens/s, > 0.
    flops_per_token : float or array_like
        Model FLOPs per token, > 0 (see :func:`flops_per_token`).
    n_devices : int or array_like
        Devices K, whole >= 1.
    peak_flops_per_device : float or array_like
        Dense peak P of one device at the run's precision, FLOP/s, > 0.

    Returns
    -------
    float or numpy.ndarray
        A fraction; above 1 means the inputs are inconsistent (a throughput the
        hardware cannot reach, or a sparse peak where a dense one belongs).

    Examples
    --------
    >>> round(mfu(238.3e3, flops_per_token(540e9), 6144, 275e12), 4)   # PaLM, without attention
    0.457
    """
    r = check_positive("tokens_per_second", tokens_per_second)
    c = check_positive("flops_per_token", flops_per_token)
    n = check_whole("n_devices", n_devices)
    p = check_positive("peak_flops_per_device", peak_flops_per_device)
    rb, cb, nb, pb = check_broadcast(tokens_per_second=r, flops_per_token=c, n_devices=n,
                                     peak_flops_per_device=p)
    return scalar_or_array(rb * cb / (nb * pb), r, c, n, p)


@public
def training_time(tokens, n_params, n_devices, flops_per_device, recompute=True):
    r"""Seconds to train on a number of tokens: :math:`8 N D_\text{tok}/(K X_\text{hw})`, or :math:`6 N D_\text{tok}/(K\,\text{MFU}\,P)`.

    With ``recompute=True`` every token costs 8N FLOPs (forward, backward, and
    the forward pass run again by activation recomputation) and ``flops_per_device``
    must be the rate that counts those recomputed FLOPs, as Megatron-LM reports
    it. With ``recompute=False`` a token costs 6N and ``flops_per_device`` is the
    model-FLOPs rate, MFU times peak.

    Parameters
    ----------
    tokens : float or array_like
        Training tokens :math:`D_\text{tok}`, > 0.
    n_params : float or array_like
        Parameters N, > 0.
    n_devices : int or array_like
        Devices K, whole >= 1.
    flops_per_device : float or array_like
        FLOP/s each device sustains over the whole run, overheads included, > 0: Megatron-LM's
        :math:`X_\text{hw}` with recomputation, or :math:`\text{MFU} \cdot P` without (not the capstone's
        :math:`X`, a rate before overheads).
    recompute : bool, optional
        Whether activations are recomputed (default True).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    References
    ----------
    Narayanan et al. (2021), the Megatron-LM paper at SC '21 (arXiv:2104.04473),
    equation (4).

    Examples
    --------
    >>> round(training_time(300e9, 175e9, 1024, 140e12) / SECONDS_PER_DAY, 1)   # GPT-3 on A100s
    33.9
    >>> round(training_time(300e9, 175e9, 1024, 140e12, recompute=False) / SECONDS_PER_DAY, 1)
    25.4
    """
    check_flag("recompute", recompute)
    t = check_positive("tokens", tokens)
    n = check_positive("n_params", n_params)
    k = check_whole("n_devices", n_devices)
    x = check_positive("flops_per_device", flops_per_device)
    tb, nb, kb, xb = check_broadcast(tokens=t, n_params=n, n_devices=k, flops_per_device=x)
    factor = 8.0 if recompute else 6.0
    return scalar_or_array(factor * tb * nb / (kb * xb), t, n, k, x)
