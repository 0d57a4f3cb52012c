r"""The critical batch size: where a bigger batch stops buying fewer steps (Sections 3.3 and 3.9).

McCandlish et al. (2018) found that the number of optimizer steps n and the
number of training examples e needed to reach a given loss trade off as

.. math:: \left(\frac{n}{n_\min} - 1\right)\left(\frac{e}{e_\min} - 1\right) = 1,
          \qquad B_\text{crit} = \frac{e_\min}{n_\min},

so with global batch B (and e = n B):

.. math:: n(B) = n_\min\left(1 + \frac{B_\text{crit}}{B}\right), \qquad
          e(B) = e_\min\left(1 + \frac{B}{B_\text{crit}}\right).

Below the critical batch, doubling B nearly halves the steps; above it, the
steps barely fall while the examples (and the compute) nearly double.
Batches here may be counted in sequences or in tokens, as long as ``batch``
and ``critical_batch`` use the same unit.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, check_broadcast, check_positive, check_whole, public, scalar_or_array

__all__ = ["steps_to_target", "examples_to_target", "data_parallel_cap"]


@public
def steps_to_target(batch, critical_batch, min_steps=1.0):
    r"""Optimizer steps to reach a target loss at a given batch size.

    .. math:: n(B) = n_\min\left(1 + \frac{B_\text{crit}}{B}\right)

    Parameters
    ----------
    batch : float or array_like
        Global batch size B (examples or tokens per step), > 0.
    critical_batch : float or array_like
        Critical batch size in the same unit, > 0.
    min_steps : float or array_like, optional
        Steps needed with an infinitely large batch, > 0 (default 1, so the
        result is in units of :math:`n_\min`).

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    S. McCandlish, J. Kaplan, D. Amodei and the OpenAI Dota Team, "An empirical
    model of large-batch training", arXiv:1812.06162, 2018.

    Examples
    --------
    >>> steps_to_target(1.0, 1.0)          # at the critical batch: twice the minimum
    2.0
    >>> steps_to_target([0.5, 2.0], 1.0)   # halving or doubling the batch around it
    array([3. , 1.5])
    """
    b = check_positive("batch", batch)
    bc = check_positive("critical_batch", critical_batch)
    sm = check_positive("min_steps", min_steps)
    bb, bcb, smb = check_broadcast(batch=b, critical_batch=bc, min_steps=sm)
    return scalar_or_array(smb * (1.0 + bcb / bb), b, bc, sm)


@public
def examples_to_target(batch, critical_batch, min_steps=1.0):
    r"""Training examples (or tokens) consumed to reach the target loss: steps times batch.

    .. math:: e(B) = n(B)\,B = n_\min\,(B + B_\text{crit}) = e_\min\left(1 + \frac{B}{B_\text{crit}}\right)

    Parameters
    ----------
    batch, critical_batch, min_steps
        As in :func:`steps_to_target`.

    Returns
    -------
    float or numpy.ndarray
        Examples in the unit of ``batch``; divide by ``critical_batch * min_steps``
        to express it in units of :math:`e_\min`.

    Examples
    --------
    >>> examples_to_target(4.0, 1.0)   # four times the critical batch: 5x the minimum data
    5.0
    """
    b = check_positive("batch", batch)
    bc = check_positive("critical_batch", critical_batch)
    sm = check_positive("min_steps", min_steps)
    bb, bcb, smb = check_broadcast(batch=b, critical_batch=bc, min_steps=sm)
    return scalar_or_array(smb * (bb + bcb), b, bc, sm)


@public
def data_parallel_cap(critical_batch_tokens, micro_batch, grad_accum, seq_len):
    r"""The most data-parallel replicas that keep the global batch at or below the critical batch.

    Each replica contributes ``micro_batch * grad_accum * seq_len`` tokens per step, so

    .. math:: \text{dp} \le \frac{B_\text{crit}}{\text{micro\_batch}\cdot\text{grad\_accum}\cdot\text{seq\_len}}

    and the cap is the largest whole number that satisfies it. Zero means that
    even a single replica's batch is already past the critical batch.

    Parameters
    ----------
    critical_batch_tokens : float or array_like
        Critical batch size in tokens, > 0.
    micro_batch : int or array_like
        Sequences per micro-batch on one replica, whole >= 1.
    grad_accum : int or array_like
        Micro-batches accumulated per optimizer step, whole >= 1.
    seq_len : int or array_like
        Tokens per sequence, whole >= 1.

    Returns
    -------
    int or numpy.ndarray of int

    Raises
    ------
    ValueError
        If an input is out of range, or if the cap would pass 2**53 (refused, never
        wrapped to a negative int).

    Examples
    --------
    >>> data_parallel_cap(4_000_000, micro_batch=1, grad_accum=1, seq_len=2048)
    1953
    >>> data_parallel_cap(4_000_000, micro_batch=2, grad_accum=8, seq_len=4096)
    61
    """
    bc = check_positive("critical_batch_tokens", critical_batch_tokens)
    mb = check_whole("micro_batch", micro_batch)
    ga = check_whole("grad_accum", grad_accum)
    sl = check_whole("seq_len", seq_len)
    bcb, mbb, gab, slb = check_broadcast(
        critical_batch_tokens=bc, micro_batch=mb, grad_accum=ga, seq_len=sl
    )
    # a tiny tolerance so that an exact multiple is not lost to rounding
    return as_count("the data-parallel cap", np.floor(bcb / (mbb * gab * slb) * (1 + 1e-12)),
                    "critical_batch_tokens / (micro_batch x grad_accum x seq_len)")
