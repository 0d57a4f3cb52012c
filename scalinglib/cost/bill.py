"""The bill of a whole run: the capstone calculator, the critical-batch wall, the exposed all-reduce (Sections 3.8.8, 3.9.11 and 3.9.12).

* :func:`training_cost` turns parameters, tokens, devices, MFU, utilization and
  a price per device-hour into days and dollars (:class:`TrainingCost`).
* :func:`critical_batch_cost` prices a growing cluster in GPU-time to a target
  loss: past the critical batch, more data parallelism needs more tokens, and
  splitting the model further lowers the scaling efficiency.
* :func:`exposed_allreduce_fraction` is the share of a step's compute that the
  data-parallel gradient all-reduce adds when the backward pass cannot hide it.

The layouts come from :mod:`scalinglib.layout` and the all-reduce from
``scalinglib.comm``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import (
    MAX_COUNT,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_scalar,
    check_whole,
    checked_record,
    public,
    renamed,
    single,
    single_whole,
)
from ..batchsize import examples_to_target
from ..comm import multiring_allreduce_time
from ..hardware import get_accelerator
from ..layout import A100_ACHIEVED_FLOPS, A100_NVLINK_BANDWIDTH, Layout, layout_sweep, parallel_layout
from .utilization import SECONDS_PER_DAY, SECONDS_PER_HOUR, flops_per_token

__all__ = [
    "critical_batch_cost",
    "exposed_allreduce_fraction",
    "TrainingCost",
    "training_cost",
]


@public(allow_nan=("batch_tokens", "efficiency", "cost_factor", "time_factor", "rho_dp", "rho_tp", "rho_pp"))   # NaN: does not fit
def critical_batch_cost(n_gpus, n_params, critical_batch_tokens, *, grow_batch=False, exposed_allreduce=False,
                        search=False, **layout_kwargs):
    r"""GPU-time and wall time to reach a target loss as a cluster grows: the critical-batch wall in money.

    The cluster is laid out by :func:`scalinglib.layout.layout_sweep`, which
    gives the global batch :math:`B_\text{g}` and the scaling efficiency E at each size. By
    McCandlish et al. (2018) reaching the target takes
    :math:`D_\text{tok}(B_\text{g}) = D_\text{min} (1 + B_\text{g}/B_\text{crit})` tokens,
    each costing the same FLOPs, done at a share E of the sustained rate. So the GPU-time, and the money, is
    proportional to

    .. math:: \text{cost factor} = \frac{1 + B_\text{g} / B_\text{crit}}{E},

    in units of the least possible GPU-time (:math:`D_\text{min}` tokens at E = 1),
    and the wall time to the cost factor divided by the number of GPUs.

    Two ways of using a cluster past the data-parallel cap are compared:

    * ``grow_batch=False``: the batch never exceeds the critical batch; past the
      cap the extra GPUs split the model further and E falls (weak scaling of
      the model split, as in Section 3.3.7);
    * ``grow_batch=True``: data parallelism keeps growing the batch past the
      critical batch; E stays where it was, but every doubling of the batch
      buys fewer saved steps, and tokens are wasted.

    With ``exposed_allreduce=True`` the efficiency also counts the part of the
    gradient all-reduce that the backward pass does not hide,
    :math:`E = 1/((1 + \rho_\text{TP})(1 + \rho_\text{PP}) + \rho_\text{DP})`, with
    :math:`\rho_\text{DP}` from :func:`exposed_allreduce_fraction` (its default
    A100 cluster), as Section 3.8.8 prices it.

    Parameters
    ----------
    n_gpus : array_like of int
        Cluster sizes, powers of two, at most 2**53.
    n_params : float
        Model parameters, > 0 (one number; call once per model).
    critical_batch_tokens : float
        The critical batch, tokens, > 0 (one number).
    grow_batch : bool, optional
        Which use of GPUs past the cap (default False: split the model).
    exposed_allreduce : bool, optional
        Add :math:`\rho_\text{DP}` to each layout's overheads (default False:
        the all-reduce is taken to hide, as in Section 3.3.7).
    search : bool, optional
        Lay each cluster out with :func:`scalinglib.layout_search.search_layout`
        instead of the fixed policy (default False). The search minimises the
        time to the target, :math:`(1 + B_\text{g}/B_\text{crit})` times the
        step time per token, over every layout on at most ``n_gpus`` GPUs: the
        batch may not pass :math:`B_\text{crit}` when it splits the model, and
        may when it grows the batch. All three overheads are counted (so
        ``exposed_allreduce`` is ignored), and the GPU-time is that of the GPUs
        the layout uses.
    **layout_kwargs
        Passed to :func:`scalinglib.layout.parallel_layout` (sequence length,
        micro-batches, device memory, ...), or with ``search`` to
        :func:`scalinglib.layout_search.search_layout` (network, memory, ...).

    Returns
    -------
    dict of str to numpy.ndarray
        ``n_gpus``, ``fits``, ``batch_tokens``, ``efficiency``, ``rho_dp``
        (zeros unless ``exposed_allreduce`` or ``search``), ``cost_factor`` and
        ``time_factor`` (NaN where the model does not fit). With ``search``
        also ``gpus_used``, ``tp``, ``pp``, ``dp``, ``micro_batch``,
        ``microbatches``, ``chunks``, ``rho_tp`` and ``rho_pp``.

    Raises
    ------
    TypeError
        An array for ``n_params`` or ``critical_batch_tokens``.
    ValueError
        A value out of range.

    Examples
    --------
    >>> out = critical_batch_cost([256, 1024, 4096], 13e9, 2e6)
    >>> out["cost_factor"].round(2).tolist()
    [1.34, 1.75, 3.07]
    >>> critical_batch_cost([256, 1024, 4096], 13e9, 2e6, grow_batch=True)["cost_factor"].round(2).tolist()
    [1.34, 2.18, 5.53]

    With the exposed gradient all-reduce (Section 3.8.8's A100 cluster):

    >>> out = critical_batch_cost([1024, 2048], 13e9, 4e6, exposed_allreduce=True)
    >>> out["rho_dp"].round(3).tolist(), out["efficiency"].round(3).tolist()
    ([0.079, 0.324], [0.875, 0.678])

    Searched layouts instead:

    >>> out = critical_batch_cost([1024, 2048], 13e9, 4e6, search=True)
    >>> out["tp"].tolist(), out["efficiency"].round(3).tolist(), out["cost_factor"].round(2).tolist()
    ([8, 8], [0.869, 0.869], [1.38, 1.6])
    """
    check_flag("grow_batch", grow_batch)
    check_flag("exposed_allreduce", exposed_allreduce)
    check_flag("search", search)
    n_params = check_scalar("n_params", n_params)
    crit = single(check_positive, "critical_batch_tokens", critical_batch_tokens)
    sizes = check_whole("n_gpus", n_gpus, maximum=MAX_COUNT, why="the largest count a float holds exactly")
    if search:
        return _searched_batch_cost(sizes, n_params, crit, grow_batch, layout_kwargs)
    # growing the batch: a limit so high that data parallelism can take every GPU (a billion tokens per GPU)
    limit = 1e9 * float(np.max(sizes)) if grow_batch else crit
    sweep = layout_sweep(n_gpus, n_params, limit, limit, **layout_kwargs)
    batch = sweep["batch_tokens"]
    efficiency, rho_dp = sweep["efficiency"], np.zeros(len(sweep["n_gpus"]))
    if exposed_allreduce:
        shared = {k: layout_kwargs[k] for k in ("seq_len", "micro_batch", "achieved_flops", "gpus_per_node")
                  if k in layout_kwargs}
        if "link_bandwidth" in layout_kwargs:
            shared["intra_bandwidth"] = layout_kwargs["link_bandwidth"]
        rho_dp = np.array([exposed_allreduce_fraction(parallel_layout(int(g), n_params, limit, limit, **layout_kwargs),
                                                      n_params, **shared) if fit else np.nan
                           for g, fit in zip(sweep["n_gpus"], sweep["fits"])])
        efficiency = 1.0 / (1.0 / efficiency + rho_dp)        # E = 1 / ((1 + rho_TP)(1 + rho_PP) + rho_DP)
    data_factor = np.asarray(examples_to_target(np.where(sweep["fits"], batch, crit), crit)) / crit
    cost = np.where(sweep["fits"], data_factor / efficiency, np.nan)
    return {
        "n_gpus": sweep["n_gpus"],
        "fits": sweep["fits"],
        "batch_tokens": batch,
        "efficiency": efficiency,
        "rho_dp": rho_dp,
        "cost_factor": cost,
        "time_factor": cost / sweep["n_gpus"],
    }


def _searched_batch_cost(sizes, n_params, crit, grow_batch, layout_kwargs):
    """critical_batch_cost with every cluster laid out by the search."""
    from ..layout_search import search_layout

    sizes = np.asarray(sizes, dtype=float).ravel()
    if sizes.size == 0:
        raise ValueError("n_gpus must list at least one cluster size")
    fields = ("gpus_used", "tp", "pp", "dp", "micro_batch", "microbatches", "chunks")
    out = {name: [] for name in ("fits", "batch_tokens", "efficiency", "rho_tp", "rho_pp", "rho_dp", "cost_factor",
                                 "time_factor") + fields}
    limit = crit * 1e3 if grow_batch else crit
    for k in sizes:
        try:
            best = search_layout(int(k), n_params, limit, critical_batch_tokens=crit, **layout_kwargs).best
        except ValueError as err:
            if "no split of" not in str(err) and "no layout fits" not in str(err):
                raise
            best = None
        out["fits"].append(best is not None)
        nan = float("nan")
        if best is None:
            for name in out:
                if name != "fits":
                    out[name].append(0 if name in fields else nan)
            continue
        cost = (1.0 + best.batch_tokens / crit) / best.efficiency
        values = dict(batch_tokens=best.batch_tokens, efficiency=best.efficiency, rho_tp=best.rho_tp,
                      rho_pp=best.rho_pp, rho_dp=best.rho_dp, cost_factor=cost, time_factor=cost / best.n_gpus,
                      gpus_used=best.n_gpus, tp=best.tp, pp=best.pp, dp=best.dp, micro_batch=best.micro_batch,
                      microbatches=best.microbatches, chunks=best.chunks)
        for name, value in values.items():
            out[name].append(value)
    result = {"n_gpus": sizes.astype(int)}
    result.update({name: np.array(values) for name, values in out.items()})
    return result


@public(allow_nan=True)   # NaN: the layout does not fit
def exposed_allreduce_fraction(layout, n_params, *, seq_len=2048, micro_batch=1, bytes_per_value=2.0,
                               achieved_flops=A100_ACHIEVED_FLOPS, gpus_per_node=8, alpha=5e-6,
                               intra_bandwidth=A100_NVLINK_BANDWIDTH, port_bandwidth=25e9):
    r"""The data-parallel gradient all-reduce that the backward pass does not hide, over a step's compute.

    This is :math:`\rho_\text{DP}` of Section 3.8.8, for one layout of
    :func:`scalinglib.layout.parallel_layout`. Each GPU holds :math:`1/(tp)` of
    a replica and all-reduces its :math:`b_\text{p} N/(tp)` bytes of gradients with
    the d GPUs that hold the same share in the other replicas. NCCL lays the
    rings out node by node: a node of g GPUs holds :math:`\min(d, g/t)` members
    of a group, and each runs its own ring through its own network port
    (:func:`scalinglib.comm.multiring_allreduce_time`). Only the backward pass
    of the last of the m micro-batches, :math:`4 N b L/(tpX)` seconds, can hide
    the all-reduce; what sticks out is spread over the step's compute
    :math:`6 N m b L/(tpX)`:

    .. math:: \rho_\text{DP} = \frac{\max\bigl(0,\; T_\text{AR} - 4NbL/(tpX)\bigr)}{6N\,m\,bL/(tpX)}

    The defaults are Section 3.8.8's: A100s at X = 150 TFLOP/s, eight to a node
    on NVLink 3 (300 GB/s each way), one InfiniBand HDR port of 25 GB/s per
    GPU, :math:`\alpha` = 5 us per message, bf16 gradients.

    Parameters
    ----------
    layout : Layout
        One cluster's split, from :func:`scalinglib.layout.parallel_layout`.
    n_params : float
        Parameters N of the model the layout was made for, > 0.
    seq_len, micro_batch : int, optional
        Tokens per sequence L and sequences per micro-batch b, whole >= 1
        (default 2,048 and 1, as the layout's).
    bytes_per_value : float, optional
        Bytes per gradient value :math:`b_\text{p}`, > 0 (default 2).
    achieved_flops : float, optional
        Sustained FLOP/s X of one GPU, > 0 (default 150e12).
    gpus_per_node : int, optional
        GPUs g per node, whole >= 1 (default 8).
    alpha : float, optional
        Latency per message, s, >= 0 (default 5e-6), inside and between nodes.
    intra_bandwidth, port_bandwidth : float, optional
        Bytes/s each way of one GPU's link inside a node and of its network
        port, > 0 (defaults 300e9 and 25e9).

    Returns
    -------
    float
        :math:`\rho_\text{DP}` (0 when the all-reduce hides); NaN when the layout
        does not fit.

    Raises
    ------
    TypeError
        ``layout`` is not a :class:`~scalinglib.layout.Layout`, or an array where one number is taken.
    ValueError
        A value out of range.

    References
    ----------
    Section 3.8.8; Narayanan et al. (2021) for the layout.

    Examples
    --------
    >>> from scalinglib.layout import parallel_layout
    >>> [round(exposed_allreduce_fraction(parallel_layout(k, 13e9, 4e6, 4e6), 13e9), 3) for k in (8, 1024, 2048)]
    [0.0, 0.079, 0.324]
    """
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout from parallel_layout; got {type(layout).__name__}")
    n = single(check_positive, "n_params", n_params)
    s = single_whole("seq_len", seq_len)
    b = single_whole("micro_batch", micro_batch)
    b_p = single(check_positive, "bytes_per_value", bytes_per_value)
    x = single(check_positive, "achieved_flops", achieved_flops)
    g = single_whole("gpus_per_node", gpus_per_node)
    a = single(check_nonnegative, "alpha", alpha)
    intra = single(check_positive, "intra_bandwidth", intra_bandwidth)
    port = single(check_positive, "port_bandwidth", port_bandwidth)
    if not layout.fits:
        return float("nan")
    split = layout.tp * layout.pp                         # GPUs sharing one replica's gradients
    per_node = max(1, min(layout.dp, g // layout.tp))     # members of one data-parallel group in a node
    t_ar = float(multiring_allreduce_time(b_p * n / split, max(1, layout.dp // per_node), per_node,
                                          a, 1 / intra, a, 1 / port, nics=per_node))
    tokens = b * s
    last = 4.0 * n * tokens / (split * x)                 # backward pass of the last micro-batch
    step = 6.0 * n * layout.microbatches * tokens / (split * x)
    return max(0.0, t_ar - last) / step


def _check_training_cost(run) -> None:
    for name in run._fields:
        single(check_positive, name, getattr(run, name))


@checked_record(_check_training_cost)
class TrainingCost(NamedTuple):
    """Time and money of one training run (:func:`training_cost`); every field finite and > 0."""

    flops: float  #: model FLOPs of the whole run
    compute_days: float  #: days of running at the given MFU, on all devices
    days: float  #: calendar days: compute days divided by the utilization
    device_hours: float  #: device-hours paid for
    dollars: float  #: device-hours times the price
    dollars_per_million_tokens: float  #: dollars divided by the training tokens, per million

    def summary(self) -> str:
        """One line with the days, the dollars and the dollars per million tokens."""
        return (f"{self.days:,.1f} days, {self.device_hours:,.0f} device-hours, "
                f"${self.dollars:,.0f}, ${self.dollars_per_million_tokens:,.2f} per million tokens")


@public
def training_cost(n_params, tokens, n_devices, price_per_device_hour, *, device="H100 SXM 80GB", mfu=0.4,
                  utilization=1.0, precision="bf16"):
    r"""Days and dollars to train a model: the chapter's capstone calculator.

    .. math:: T_\text{compute} = \frac{6 N D_\text{tok}}{K \cdot \text{MFU} \cdot P}, \quad
              T_\text{calendar} = \frac{T_\text{compute}}{U}, \quad
              \$ = K \, T_\text{calendar} \, C_h

    with K the number of devices, P the device's dense peak at ``precision``
    from the hardware catalog, :math:`C_h` the price of a device-hour and
    U the utilization, the share of paid device-hours the run is
    actually training (the rest goes to failures, restarts, reloading
    checkpoints and idle gaps). The price is an input, not a fact: rental
    prices vary by provider, contract and year.

    Every numeric input is one number: call once per configuration (or see
    Section 3.9.8's capstone table for a grid).

    Parameters
    ----------
    n_params : float
        Parameters N, > 0.
    tokens : float
        Training tokens :math:`D_\text{tok}`, > 0.
    n_devices : int
        Devices K, whole >= 1.
    price_per_device_hour : float
        Price :math:`C_h` of one device-hour, > 0.
    device : str or Accelerator, optional
        A device of :data:`scalinglib.hardware.CATALOG` (default the H100 SXM 80GB).
    mfu : float, optional
        Model FLOPs utilization while running, in (0, 1] (default 0.4).
    utilization : float, optional
        Share U of paid time spent training, in (0, 1] (default 1).
    precision : str, optional
        Precision of the peak (default ``"bf16"``).

    Returns
    -------
    TrainingCost

    Raises
    ------
    TypeError
        An array or list where one number is taken.
    ValueError
        A value out of range, or a device not in the catalog.

    Examples
    --------
    >>> run = training_cost(70e9, 1.4e12, 1024, 2.0, mfu=0.4)
    >>> round(run.days, 1), round(run.dollars / 1e6, 2)
    (16.8, 0.83)
    >>> round(training_cost(70e9, 1.4e12, 1024, 2.0, mfu=0.4, utilization=0.5).dollars / 1e6, 2)
    1.65
    """
    n = single(check_positive, "n_params", n_params)
    d = single(check_positive, "tokens", tokens)
    k = single_whole("n_devices", n_devices)
    price = single(check_positive, "price_per_device_hour", price_per_device_hour)
    m = single(check_fraction, "mfu", mfu, open_low=True)
    u = single(check_fraction, "utilization", utilization, open_low=True)
    with renamed(name="device"):
        peak = get_accelerator(device).peak(precision)
    flops = float(flops_per_token(n)) * d
    compute_seconds = flops / (k * m * peak)
    calendar_seconds = compute_seconds / u
    device_hours = k * calendar_seconds / SECONDS_PER_HOUR
    dollars = device_hours * price
    return TrainingCost(flops, compute_seconds / SECONDS_PER_DAY, calendar_seconds / SECONDS_PER_DAY,
                        device_hours, dollars, dollars / (d / 1e6))
