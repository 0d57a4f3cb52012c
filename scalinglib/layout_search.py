r"""Search for the fastest way to lay a training run out on a cluster (Section 3.9).

:func:`scalinglib.layout.parallel_layout` applies one fixed policy. This module
tries every layout instead and keeps the one with the shortest step time per
token. A layout is

* ``t`` tensor-parallel GPUs inside one node (``t`` divides the node's GPUs),
* ``p`` pipeline stages (``p`` divides the model's layers),
* ``d`` data-parallel replicas, so ``t p d`` GPUs in all, a whole number of
  nodes (or a part of one node that divides it),
* micro-batches of ``b`` sequences, ``m`` of them per replica and step,
* ``v`` model chunks per device (the interleaved schedule; ``v`` divides the
  layers of a stage, and ``m`` is then a multiple of ``p``).

**Time.** With ``N`` parameters, sequences of ``L`` tokens and a sustained
rate ``X`` of model FLOP/s per GPU, a GPU computes for
:math:`T_c = 6NmbL/(tpX)` seconds a step. Three overheads come on top
(Section 3.9.8): the tensor-parallel all-reduces, :math:`\rho_\text{TP}` of
:func:`scalinglib.layout.tensor_parallel_comm_fraction`; the pipeline bubble,
:math:`\rho_\text{PP} = (p-1)/(vm)` whole micro-batch slots, each including
its tensor-parallel traffic, and the stage-to-stage sends (each device
sends ``2v`` messages of :math:`2bLh/t` bytes a micro-batch, over the
network once a stage of all replicas fills a node, not overlapped with
compute); and the part of the gradient all-reduce
:math:`T_\text{AR}` that the backward pass of the last micro-batch,
:math:`4NbL/(tpX)`, does not hide (the ring model of
:func:`scalinglib.cost.exposed_allreduce_fraction`). So

.. math:: T_\text{step} = T_c\,(1 + \rho_\text{TP})(1 + \rho_\text{PP}) + \max\bigl(0,\,T_\text{AR} - 4NbL/(tpX)\bigr),

.. math:: E = \frac{T_c}{T_\text{step}} = \frac{1}{(1 + \rho_\text{TP})(1 + \rho_\text{PP}) + \rho_\text{DP}},

and the step time per token is :math:`T_\text{step}/(dmbL)`. Here
:math:`1 + \rho_\text{PP}` is the bubble's factor :math:`1 + (p-1)/(vm)` times
the stage-to-stage sends' :math:`1 + \tau/T_\text{slot}`.

**Memory.** A GPU holds :math:`16N/(tp)` bytes of training state
(mixed-precision Adam, nothing sharded across replicas) and the activations
of the micro-batches in flight. Without recomputation, and with tensor
parallelism but no sequence parallelism, one layer keeps

.. math:: A = L\,b\,h\Bigl(10 + \frac{24}{t} + \frac{5\,a\,L}{h\,t}\Bigr) \text{ bytes}

for ``a`` heads of hidden size ``h`` (Korthikanti et al. 2022, their
equation for tensor parallelism). Under the 1F1B schedule the first stage
holds :math:`\min(m, p)` micro-batches of its :math:`\ell/p` layers, and the
interleaved schedule :math:`1 + (p-1)/(pv)` times that. Embeddings and the
output layer's activations are left out. The two must fit in a share of the
device's memory (by default 90%; the rest is the framework's workspace).

**The batch.** The global batch :math:`dmbL` stays within a cap (the critical
batch). Given a critical batch :math:`B_\text{crit}`, the search can instead
minimise the time to a target loss, which charges a batch :math:`B` for its
extra tokens, a factor :math:`1 + B/B_\text{crit}` (McCandlish et al. 2018).

References
----------
Narayanan et al. (2021), the Megatron-LM paper at SC '21 (arXiv:2104.04473), for
the layouts and the interleaved schedule; Korthikanti et al. (2022),
arXiv:2205.05198, for the activation memory.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import (
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    public,
    single,
    single_whole,
)
from .comm import multiring_allreduce_time
from .layout import A100_ACHIEVED_FLOPS, A100_NVLINK_BANDWIDTH, hidden_size_for

__all__ = ["LayoutOption", "LayoutSearch", "evaluate_layout", "search_layout", "activation_bytes_per_layer",
           "A100_NETWORKS"]

#: Network bandwidth each A100's gradient ring gets when all eight GPUs of a server send at once, in
#: bytes/s each way, for two real offerings: name -> (bytes/s, source).
A100_NETWORKS = {
    "one HDR port per GPU": (
        200e9 / 8,
        "Microsoft, ND A100 v4 and NDm A100 v4 series: each GPU has its own 200 Gb/s HDR InfiniBand "
        "connection, 1.6 Tb/s per VM, https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
        "ndma100v4-series; NVIDIA's DGX SuperPOD gives each A100 its own HDR port too (Section 3.8.8)",
    ),
    "AWS p4de EFA": (
        400e9 / 8 / 8,
        "Amazon Web Services, Amazon EC2 P4 instances: p4d.24xlarge and p4de.24xlarge have 400 Gbps of "
        "instance networking with Elastic Fabric Adapter for eight A100 GPUs, "
        "https://aws.amazon.com/ec2/instance-types/p4/; 50e9 bytes/s shared by eight GPUs",
    ),
}

#: Bytes of training state per parameter: mixed-precision Adam (Section 3.2.2).
_STATE_BYTES = 16.0
#: Relative difference below which two step times per token count as equal.
_TIE = 1e-9
#: The largest cluster the search takes (it lists every layout).
_MAX_GPUS = 1 << 17


class LayoutOption(NamedTuple):
    """One layout of a training run and what it costs."""

    n_gpus: int  #: GPUs the layout uses, t p d
    tp: int
    pp: int
    dp: int
    micro_batch: int  #: sequences per micro-batch (b)
    microbatches: int  #: micro-batches per replica and step (m)
    chunks: int  #: model chunks per device (v; 1 without interleaving)
    batch_tokens: float  #: the global batch, d m b L tokens
    state_bytes: float  #: training state per GPU
    activation_bytes: float  #: activations held per GPU
    rho_tp: float
    rho_pp: float  #: the pipeline's overhead: (1 + bubble)(1 + stage-to-stage sends) - 1
    rho_dp: float
    efficiency: float  #: 1 / ((1 + rho_tp)(1 + rho_pp) + rho_dp)
    step_time: float  #: seconds per step
    time_per_token: float  #: seconds per token of the global batch
    objective: float  #: what the search minimises: time per token, times 1 + B/B_crit when a critical batch is given

    @property
    def memory_bytes(self) -> float:
        """Bytes per GPU: training state plus activations."""
        return self.state_bytes + self.activation_bytes


class LayoutSearch(NamedTuple):
    """What :func:`search_layout` chose, why, and the best layout with other parallel degrees."""

    best: LayoutOption
    #: the best layout with another model split (t, p); None when there is none
    runner_up: LayoutOption | None
    #: the limits the best layout meets: "batch cap", "memory", "node", "layers"
    binding: tuple
    #: one sentence saying what stops the best layout from going faster
    reason: str
    candidates: int  #: layouts compared that met every limit (those that could not win are left out first)


def _divisors(n: int) -> list[int]:
    return [k for k in range(1, n + 1) if n % k == 0]


def _settings(n_params, seq_len, n_layers, head_dim, gpus_per_node, device_memory_bytes, usable_fraction,
              achieved_flops, link_bandwidth, port_bandwidth, alpha):
    n = single(check_positive, "n_params", n_params)
    if n > 1e16:
        raise ValueError(f"n_params must be at most 1e16 for the layout search; got {n!r}")
    s = single_whole("seq_len", seq_len, maximum=1 << 24)
    hidden = float(hidden_size_for(n))
    layers = max(1, int(round(hidden / 128.0))) if n_layers is None else single_whole("n_layers", n_layers,
                                                                                     maximum=100_000)
    hd = single(check_positive, "head_dim", head_dim)
    g = single_whole("gpus_per_node", gpus_per_node, maximum=1024)
    memory = single(check_positive, "device_memory_bytes", device_memory_bytes)
    usable = single(check_fraction, "usable_fraction", usable_fraction, open_low=True)
    x = single(check_positive, "achieved_flops", achieved_flops)
    link = single(check_positive, "link_bandwidth", link_bandwidth)
    port = single(check_positive, "port_bandwidth", port_bandwidth)
    a = single(check_nonnegative, "alpha", alpha)
    return dict(n=n, s=s, h=hidden, layers=layers, heads=hidden / hd, g=g, budget=usable * memory, x=x,
                link=link, port=port, alpha=a)


def _per_layer_activations(c, b, t):
    """Korthikanti et al.'s bytes per layer and micro-batch (numpy arrays welcome)."""
    s, h, a = c["s"], c["h"], c["heads"]
    return s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t))


def _allreduce(c, t, p, d):
    """Seconds of the gradient all-reduce of one GPU (arrays of t, p, d)."""
    t, p, d = (np.asarray(v, dtype=float) for v in (t, p, d))
    per_node = np.maximum(1.0, np.minimum(d, np.maximum(1.0, c["g"] // t)))
    nodes = np.maximum(1.0, np.floor(d / per_node))
    out = multiring_allreduce_time(2.0 * c["n"] / (t * p), nodes, per_node, c["alpha"], 1.0 / c["link"],
                                   c["alpha"], 1.0 / c["port"], nics=per_node)
    return np.where(d > 1, out, 0.0)


def _cost(c, t, p, d, b, m, v, t_ar, crit):
    """Every quantity of LayoutOption for arrays of layouts (m may be 0 where no layout exists)."""
    n, s, x = c["n"], c["s"], c["x"]
    split = t * p
    mm = np.maximum(m, 1)
    per_mb = 6.0 * n * b * s / (split * x)                       # one micro-batch's compute on one GPU
    t_c = per_mb * mm
    rho_tp = 2.0 / 9.0 * (t - 1.0) * x / (c["link"] * c["h"])
    bubble = (p - 1.0) / (v * mm)
    # stage-to-stage sends: 2 v a micro-batch (forward and backward, each chunk), each 2 b L h / t bytes,
    # over the network once a stage of all replicas fills a node, else over NVLink
    across = t * d >= c["g"]
    beta = np.where(across, 1.0 / c["port"], 1.0 / c["link"])
    p2p = np.where(p > 1, 2.0 * v * (c["alpha"] + 2.0 * b * s * c["h"] / t * beta), 0.0)
    rho_p2p = p2p / (per_mb * (1.0 + rho_tp))
    rho_pp = (1.0 + rho_p2p) * (1.0 + bubble) - 1.0
    exposed = np.maximum(0.0, t_ar - 4.0 * n * b * s / (split * x))
    step = t_c * (1.0 + rho_tp) * (1.0 + rho_pp) + exposed
    batch = d * mm * b * s
    per_token = step / batch
    objective = per_token if crit is None else per_token * (1.0 + batch / crit)
    in_flight = np.minimum(mm, p) * (c["layers"] / p) * np.where(v > 1, 1.0 + (p - 1.0) / (p * v), 1.0)
    act = in_flight * _per_layer_activations(c, b, t)
    return dict(t_c=t_c, per_mb=per_mb, rho_tp=rho_tp, bubble=bubble, rho_p2p=rho_p2p, rho_pp=rho_pp,
                rho_dp=exposed / t_c, exposed=exposed, step=step, batch=batch, per_token=per_token,
                objective=objective, act=act, state=_STATE_BYTES * n / split, efficiency=t_c / step)


def _option(c, t, p, d, b, m, v, crit) -> LayoutOption:
    t_ar = float(_allreduce(c, t, p, d))
    q = _cost(c, float(t), float(p), float(d), float(b), float(m), float(v), t_ar, crit)
    return LayoutOption(int(t * p * d), int(t), int(p), int(d), int(b), int(m), int(v), float(q["batch"]),
                        float(q["state"]), float(q["act"]), float(q["rho_tp"]), float(q["rho_pp"]),
                        float(q["rho_dp"]), float(q["efficiency"]), float(q["step"]), float(q["per_token"]),
                        float(q["objective"]))


_COMMON_DOC = """seq_len : int, optional
        Tokens per sequence L, whole >= 1 (default 2,048).
    n_layers : int, optional
        Layers of the model (default: ``round(hidden_size_for(n_params) / 128)``).
    head_dim : float, optional
        Size of one attention head, > 0 (default 128): the model has h / head_dim heads.
    gpus_per_node : int, optional
        GPUs joined by NVLink in one node, whole >= 1 (default 8).
    device_memory_bytes : float, optional
        Memory of one GPU, bytes, > 0 (default 80e9).
    usable_fraction : float, optional
        Share of it for training state and activations, in (0, 1] (default 0.9).
    achieved_flops : float, optional
        Sustained model FLOP/s X of one GPU, > 0 (default 150e12).
    link_bandwidth : float, optional
        Bytes/s each way of a GPU's link inside a node, > 0 (default 300e9, NVLink 3).
    port_bandwidth : float, optional
        Bytes/s each way of network bandwidth each GPU's ring gets, > 0 (default 25e9: one
        InfiniBand HDR port per GPU; a server with 400 Gb/s for eight GPUs gives 6.25e9).
    alpha : float, optional
        Latency per message, s, >= 0 (default 5e-6)."""


@public
def evaluate_layout(n_params, tp, pp, dp, micro_batch, microbatches, chunks=1, *, critical_batch_tokens=None,
                    seq_len=2048, n_layers=None, head_dim=128.0, gpus_per_node=8, device_memory_bytes=80e9,
                    usable_fraction=0.9, achieved_flops=A100_ACHIEVED_FLOPS, link_bandwidth=A100_NVLINK_BANDWIDTH,
                    port_bandwidth=25e9, alpha=5e-6):
    r"""Step time, efficiency and memory of one layout (the model of the module text), limits unchecked.

    Parameters
    ----------
    n_params : float
        Parameters N, > 0.
    tp, pp, dp, micro_batch, microbatches, chunks : int
        t, p, d, b, m and v, whole >= 1.
    critical_batch_tokens : float, optional
        If given (> 0), ``objective`` is the time per token times 1 + B/B_crit.
    <common>

    Returns
    -------
    LayoutOption
        Whether it fits is for the caller to compare: ``memory_bytes`` against the usable memory,
        ``batch_tokens`` against the cap.

    Examples
    --------
    The 13B model on 2,048 A100s: t = 8 and one micro-batch of four sequences per replica.

    >>> o = evaluate_layout(13e9, 8, 1, 256, 4, 1)
    >>> round(o.efficiency, 3), o.rho_dp, round(o.memory_bytes / 1e9, 1)
    (0.869, 0.0, 65.0)

    Four micro-batches of one sequence each leave the gradient all-reduce exposed:

    >>> round(evaluate_layout(13e9, 8, 1, 256, 1, 4).rho_dp, 3)
    0.324
    """
    c = _settings(n_params, seq_len, n_layers, head_dim, gpus_per_node, device_memory_bytes, usable_fraction,
                  achieved_flops, link_bandwidth, port_bandwidth, alpha)
    t, p, d, b, m, v = (single_whole(name, value, maximum=_MAX_GPUS * 1024) for name, value in
                        (("tp", tp), ("pp", pp), ("dp", dp), ("micro_batch", micro_batch),
                         ("microbatches", microbatches), ("chunks", chunks)))
    crit = None if critical_batch_tokens is None else single(check_positive, "critical_batch_tokens",
                                                             critical_batch_tokens)
    return _option(c, t, p, d, b, m, v, crit)


@public
def search_layout(n_gpus, n_params, max_batch_tokens, *, critical_batch_tokens=None, seq_len=2048, n_layers=None,
                  head_dim=128.0, gpus_per_node=8, device_memory_bytes=80e9, usable_fraction=0.9,
                  achieved_flops=A100_ACHIEVED_FLOPS, link_bandwidth=A100_NVLINK_BANDWIDTH, port_bandwidth=25e9,
                  alpha=5e-6, max_micro_batch=16, max_chunks=4, use_all_gpus=False):
    r"""The layout with the shortest step time per token on at most ``n_gpus`` GPUs, and why.

    Every (t, p, d, b, v) within the limits of the module text is tried. For
    each, the best micro-batch count m is found in closed form: the time per
    token falls as m grows (the bubble and the exposed all-reduce are spread
    over more compute), so m is the largest that the batch cap and memory
    allow; with ``critical_batch_tokens`` the objective
    :math:`(A + C/m)(1 + km)` has its minimum at :math:`m = \sqrt{C/(Ak)}`,
    rounded both ways. Ties (within a relative 1e-9) go to fewer GPUs, then to
    the smaller batch, then to less memory. Splits that cannot win are skipped:
    a split's compute and tensor-parallel traffic alone bound its objective from
    below, and splits whose bound passes the best and the runner-up found so far
    are left out, so the answer is that of trying every layout (the tests check
    it against brute force).

    Parameters
    ----------
    n_gpus : int
        GPUs available, whole from 1 to 131,072.
    n_params : float
        Parameters N, > 0.
    max_batch_tokens : float
        The largest global batch allowed, tokens per step, > 0.
    critical_batch_tokens : float, optional
        If given (> 0), minimise the time to a target loss instead: the time
        per token times :math:`1 + B/B_\text{crit}`.
    <common>
    max_micro_batch : int, optional
        Largest micro-batch b tried, whole from 1 to 64 (default 16).
    max_chunks : int, optional
        Largest interleaving v tried, whole from 1 to 64 (default 4).
    use_all_gpus : bool, optional
        Only layouts that use all ``n_gpus`` (default False: fewer may win).

    Returns
    -------
    LayoutSearch
        ``best``, ``runner_up`` (the best with another t or p), ``binding``, ``reason`` and ``candidates``.

    Raises
    ------
    ValueError
        An input out of range, or no layout fits (too few GPUs for the model, or a batch cap below one sequence).

    Examples
    --------
    >>> found = search_layout(2048, 13e9, 4e6)
    >>> b = found.best
    >>> (b.tp, b.pp, b.dp, b.micro_batch, b.microbatches, b.chunks), round(b.efficiency, 3)
    ((8, 1, 256, 4, 1, 1), 0.869)
    >>> found.binding
    ('batch cap', 'memory', 'node')
    >>> r = found.runner_up
    >>> (r.tp, r.pp, r.dp, r.micro_batch, r.microbatches), round(r.efficiency, 3)
    ((4, 1, 512, 1, 3), 0.852)
    """
    k = single_whole("n_gpus", n_gpus, maximum=_MAX_GPUS)
    c = _settings(n_params, seq_len, n_layers, head_dim, gpus_per_node, device_memory_bytes, usable_fraction,
                  achieved_flops, link_bandwidth, port_bandwidth, alpha)
    cap = single(check_positive, "max_batch_tokens", max_batch_tokens)
    crit = None if critical_batch_tokens is None else single(check_positive, "critical_batch_tokens",
                                                             critical_batch_tokens)
    b_max = int(single_whole("max_micro_batch", max_micro_batch, maximum=64))
    v_max = int(single_whole("max_chunks", max_chunks, maximum=64))
    all_gpus = check_flag("use_all_gpus", use_all_gpus)
    k, g, layers, s = int(k), int(c["g"]), int(c["layers"]), int(c["s"])
    cap_seq = cap / s
    if cap_seq < 1:
        raise ValueError(f"the batch cap must hold at least one sequence of {s:,} tokens; got {cap!r}")

    # every (t, p, d) that respects the node and the layers, and whose training state fits
    rows = []
    for t in (t for t in _divisors(g) if t <= k):
        for p in (p for p in _divisors(layers) if t * p <= k):
            if _STATE_BYTES * c["n"] / (t * p) > c["budget"]:
                continue
            d = np.arange(1, k // (t * p) + 1)
            used = t * p * d
            whole = np.where(used >= g, used % g == 0, g % used == 0)
            if all_gpus:
                whole &= used == k
            for dd in d[whole]:
                rows.append((t, p, dd))
    if not rows:
        raise ValueError(f"no split of {k:,} GPUs holds a {c['n']:.3g}-parameter model's training state "
                         f"in {c['budget'] / 1e9:.3g} GB per GPU (or no layout uses them all)")
    tpd = np.array(rows, dtype=float)
    t_ar = _allreduce(c, tpd[:, 0], tpd[:, 1], tpd[:, 2])
    # a lower bound on every layout's objective: compute alone, with its tensor-parallel traffic
    bound = 6.0 * c["n"] * (1.0 + 2.0 / 9.0 * (tpd[:, 0] - 1.0) * c["x"] / (c["link"] * c["h"])) / (
        tpd[:, 0] * tpd[:, 1] * tpd[:, 2] * c["x"])
    if crit is not None:                     # at least one sequence per replica: B >= d L
        bound = bound * (1.0 + tpd[:, 2] * s / crit)

    def evaluate(chosen):
        """The best m, and every quantity, for each (b, v) of the (t, p, d) rows chosen; feasible ones only."""
        options = []
        for b in range(1, b_max + 1):
            for v in range(1, v_max + 1):
                ok = chosen & ((v == 1) | ((tpd[:, 1] > 1) & ((layers / tpd[:, 1]) % v == 0)))
                idx = np.nonzero(ok)[0]
                if idx.size:
                    options.append(np.column_stack([idx, np.full(idx.size, b), np.full(idx.size, v)]))
        grid = np.concatenate(options) if options else np.zeros((0, 3))
        i, b, v = grid[:, 0].astype(int), grid[:, 1], grid[:, 2]
        t, p, d = tpd[i, 0], tpd[i, 1], tpd[i, 2]
        ar = t_ar[i]
        # the largest m the batch cap and memory allow
        state = _STATE_BYTES * c["n"] / (t * p)
        per_mb = (c["layers"] / p) * np.where(v > 1, 1.0 + (p - 1.0) / (p * v), 1.0) * _per_layer_activations(
            c, b, t)
        k_mem = np.floor((c["budget"] - state) / per_mb)             # micro-batches that fit in flight
        m_hi = np.floor(cap_seq / (d * b))
        m_hi = np.where(k_mem >= p, m_hi, np.minimum(m_hi, k_mem))
        step_m = np.where(v > 1, p, 1.0)                              # m is a multiple of p when interleaved
        m_hi = np.floor(m_hi / step_m) * step_m
        keep = np.nonzero(m_hi >= step_m)[0]
        t, p, d, b, v, ar, m_hi, step_m = (arr[keep] for arr in (t, p, d, b, v, ar, m_hi, step_m))
        if crit is None:
            m = m_hi
        else:
            # step = A m + C with A a slot and C the bubble's slots plus the exposed all-reduce; the objective
            # (A + C/m)(1 + k m) is least at m0 = sqrt(C / (A k)); try the neighbours of m0 within [step, m_hi]
            q = _cost(c, t, p, d, b, np.ones_like(t), v, ar, None)
            a_coef = q["per_mb"] * (1.0 + q["rho_tp"]) * (1.0 + q["rho_p2p"])
            c_coef = a_coef * (p - 1.0) / v + q["exposed"]
            kk = d * b * s / crit
            m0 = np.sqrt(c_coef / (a_coef * kk))
            best_m, best_val = np.zeros_like(m_hi), np.full(m_hi.shape, np.inf)
            for guess in (np.floor(m0 / step_m) * step_m, np.ceil(m0 / step_m) * step_m, m_hi, step_m):
                mg = np.clip(guess, step_m, np.maximum(m_hi, step_m))
                val = _cost(c, t, p, d, b, mg, v, ar, crit)["objective"]
                better = val < best_val
                best_m, best_val = np.where(better, mg, best_m), np.where(better, val, best_val)
            m = best_m
        q = _cost(c, t, p, d, b, m, v, ar, crit)
        ok = np.nonzero(np.isfinite(q["objective"]) & (q["objective"] > 0))[0]
        return (t[ok], p[ok], d[ok], b[ok], v[ok], m[ok]), {key: np.asarray(val)[ok] if np.ndim(val) else val
                                                            for key, val in q.items()}

    def pick(q, used, mask):
        obj = np.where(mask, q["objective"], np.inf)
        low = obj.min()
        tied = np.nonzero(obj <= low * (1.0 + _TIE))[0]
        order = np.lexsort((q["act"][tied] + q["state"][tied], q["batch"][tied], used[tied]))
        return int(tied[order[0]]), low

    # passes until nothing changes: the layouts on at least half the GPUs give an upper bound on the best and
    # the runner-up; every row whose lower bound is within it joins the next pass, so the answer is exact
    chosen = tpd[:, 0] * tpd[:, 1] * tpd[:, 2] * 2 >= k
    while True:
        (t, p, d, b, v, m), q = evaluate(chosen)
        if t.size == 0:
            if chosen.all():
                raise ValueError("no layout fits the device's memory and the batch cap together with a finite "
                                 "step time")
            chosen = np.ones(len(tpd), dtype=bool)
            continue
        used = t * p * d
        j, low = pick(q, used, np.ones(t.shape, dtype=bool))
        other = (t != t[j]) | (p != p[j])
        second = pick(q, used, other)[1] if other.any() else np.inf
        wider = chosen | (bound <= max(low, second) * (1.0 + _TIE))
        if np.array_equal(wider, chosen):
            break
        chosen = wider
    best = _option(c, t[j], p[j], d[j], b[j], m[j], v[j], crit)
    runner = None
    if other.any():
        o = pick(q, used, other)[0]
        runner = _option(c, t[o], p[o], d[o], b[o], m[o], v[o], crit)
    sel = t
    binding, reason = _why(c, best, cap, crit)
    return LayoutSearch(best, runner, binding, reason, int(sel.size))


def _why(c, best: LayoutOption, cap: float, crit) -> tuple[tuple, str]:
    """The limits the best layout meets, and a sentence naming the one that stops it."""
    s, b, m, t, p, v = c["s"], best.micro_batch, best.microbatches, best.tp, best.pp, best.chunks
    found, words = [], []
    step = p if v > 1 else 1
    if best.dp * (m + step) * b * s > cap:
        found.append("batch cap")
        words.append(f"one more micro-batch per replica would pass the batch cap of {cap:,.0f} tokens")
    more = _per_layer_activations(c, b + 1, t) * (c["layers"] / p) * min(m, p) * (
        1.0 + (p - 1.0) / (p * v) if v > 1 else 1.0)
    if best.state_bytes + more > c["budget"]:
        found.append("memory")
        words.append(f"a micro-batch of {b + 1} sequences would need {(best.state_bytes + more) / 1e9:.1f} GB "
                     f"of the {c['budget'] / 1e9:.1f} GB usable")
    if t == c["g"]:
        found.append("node")
        words.append(f"tensor parallelism already spans a whole node of {int(c['g'])} GPUs")
    if p == c["layers"]:
        found.append("layers")
        words.append("every pipeline stage already holds a single layer")
    largest = max((best.rho_tp, "tensor-parallel traffic"), (best.rho_pp, "the pipeline's bubble and stage-to-stage sends"),
                  (best.rho_dp, "the exposed gradient all-reduce"))
    tail = (f"; its largest overhead is {largest[1]} (rho = {largest[0]:.3f})" if largest[0] > 0
            else "; it has no overhead left")
    if crit is not None and "batch cap" not in found:
        words.insert(0, "a larger batch would cost more in extra tokens than it saves in time")
    text = ("; ".join(words) if words else "no limit is met: every larger split is slower") + tail
    return tuple(found), text[0].upper() + text[1:] + "."


@public
def activation_bytes_per_layer(seq_len, micro_batch, hidden, heads, tp=1):
    r"""Activation memory of one transformer layer and micro-batch (Korthikanti et al. 2022).

    .. math:: A = L\,b\,h\Bigl(10 + \frac{24}{t} + \frac{5\,a\,L}{h\,t}\Bigr)

    bytes, with 2-byte activations, no recomputation, and tensor parallelism
    over ``t`` GPUs without sequence parallelism.

    Parameters
    ----------
    seq_len, micro_batch : float
        L and b, > 0.
    hidden, heads : float
        h and a, > 0.
    tp : float, optional
        t, > 0 (default 1).

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> round(activation_bytes_per_layer(2048, 1, 5176, 5176 / 128, 8) / 1e6)
    244
    """
    s = check_positive("seq_len", seq_len)
    b = check_positive("micro_batch", micro_batch)
    h = check_positive("hidden", hidden)
    a = check_positive("heads", heads)
    t = check_positive("tp", tp)
    out = s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t))
    return float(out) if np.ndim(out) == 0 else out


for _f in (evaluate_layout, search_layout):
    _f.__doc__ = _f.__doc__.replace("<common>", _COMMON_DOC)
