"""Figures of Section 3.2: devices needed per model size, the bandwidth hierarchy, where tensor parallelism fits."""

from __future__ import annotations

import numpy as np

from .._validate import check_nonnegative, check_positive, check_whole, single, single_whole
from ..hardware import CATALOG, LINKS, get_accelerator
from ..layout import A100_ACHIEVED_FLOPS, tensor_parallel_comm_fraction
from ..memory import BYTES_PER_PARAM, devices_to_hold
from ..placement import tensor_parallel_ring_fraction
from ..plots import COLORS, IDEAL, log2_axis, style_axes

#: GPUs per server in the catalog (every GPU entry has devices_per_node == 8): the line drawn in devices_needed.
GPUS_PER_SERVER = 8


def short_name(name: str) -> str:
    """'A100 SXM 80GB' -> 'A100'; TPU and AMD names are kept whole."""
    return name if name.startswith(("TPU", "MI")) else name.split()[0]


def count_label(n: float) -> str:
    """7e9 -> '7B', 1.3e9 -> '1.3B', 1e12 -> '1T'."""
    return f"{n / 1e12:g}T" if n >= 1e12 else f"{n / 1e9:g}B"


def devices_table(n_params, devices=None, usable_fraction=0.9):
    """Devices needed to hold a model for training (mixed-precision Adam) and for serving (bf16
    weights only), per device: ``{name: (training, serving)}``."""
    names = list(CATALOG) if devices is None else [get_accelerator(d).name for d in devices]
    out = {}
    for name in names:
        mem = CATALOG[name].memory_bytes
        out[name] = (devices_to_hold(n_params, "train_mixed_adam", mem, usable_fraction),
                     devices_to_hold(n_params, "infer_fp16", mem, usable_fraction))
    return out


def devices_needed(fig, n_params, devices=None, usable_fraction=0.9):
    """Grouped bars: devices needed to hold an ``n_params`` model's training state and its serving
    weights on each catalog device, on a log axis. A dotted line at eight devices runs over the GPUs
    only: a GPU server holds eight of them, while TPUs come four to a host and their inter-chip links
    join a whole pod, so no server boundary applies to them. The legend sits above the axes, clear of
    every bar. Returns the axes."""
    table = devices_table(n_params, devices, usable_fraction)
    ax = style_axes(fig.subplots())
    x = np.arange(len(table))
    train = np.array([v[0] for v in table.values()])
    serve = np.array([v[1] for v in table.values()])
    width = 0.38
    bars_t = ax.bar(x - width / 2, train, width, color=COLORS["vermillion"],
                    label=f"training ({BYTES_PER_PARAM['train_mixed_adam']:g} B/param)")
    bars_s = ax.bar(x + width / 2, serve, width, color=COLORS["blue"], hatch="//", edgecolor="white",
                    label=f"serving, weights only ({BYTES_PER_PARAM['infer_fp16']:g} B/param)")
    for bars in (bars_t, bars_s):
        for bar in bars:
            ax.annotate(f"{int(bar.get_height()):,}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        xytext=(0, 2), textcoords="offset points", ha="center", fontsize=7.5)
    gpus = [i for i, name in enumerate(table) if CATALOG[name].kind == "GPU"]
    if gpus:
        ax.hlines(GPUS_PER_SERVER, min(gpus) - 0.5, max(gpus) + 0.5, color=COLORS["grey"], linestyle=":",
                  linewidth=1.3, label=f"one {GPUS_PER_SERVER}-GPU server (GPUs only)")
    ax.set_yscale("log", base=2)
    ax.set_ylim(0.7, 4096)
    ax.set_yticks([1, 4, 16, 64, 256, 1024, 4096])
    ax.set_yticklabels(["1", "4", "16", "64", "256", "1,024", "4,096"])
    ax.set_xticks(x)
    ax.set_xticklabels([short_name(n) for n in table], fontsize=8.5)
    ax.set_xlim(-0.6, len(table) - 0.4)
    ax.set_ylabel("devices just to hold it")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=7.5, frameon=False,
              title=f"{count_label(n_params)} parameters, {usable_fraction:.0%} of each device's memory usable",
              title_fontsize=9)
    return ax


def hierarchy_rows(device="H100 SXM 80GB"):
    """(label, bytes/s per direction, scope) for one device's memory and link and for the catalog's
    host and network links, fastest first."""
    dev = get_accelerator(device)
    rows = [(f"HBM ({short_name(dev.name)})", dev.memory_bandwidth, "device memory")]
    if dev.link_bandwidth is not None:
        rows.append((f"{dev.link_name} (per {short_name(dev.name)})", dev.link_bandwidth, "intra-node"))
    rows += [(name, link.bandwidth, link.scope) for name, link in LINKS.items() if not name.startswith("NVLink")]
    return sorted(rows, key=lambda r: -r[1])


_SCOPE_COLORS = {"device memory": COLORS["green"], "intra-node": COLORS["blue"], "host": COLORS["purple"],
                 "inter-node": COLORS["orange"]}


def bandwidth_hierarchy(fig, device="H100 SXM 80GB"):
    """Horizontal bars, on a log axis, of the bandwidth (GB/s, one direction) of a device's memory, its
    NVLink and the catalog's PCIe, InfiniBand and Ethernet links. Returns the axes."""
    rows = hierarchy_rows(device)
    ax = style_axes(fig.subplots())
    y = np.arange(len(rows))[::-1]
    for yi, (_label, bw, scope) in zip(y, rows):
        ax.barh(yi, bw / 1e9, color=_SCOPE_COLORS[scope], label=scope)
        ax.annotate(f"{bw / 1e9:,.1f}", (bw / 1e9, yi), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8.5)
    ax.set_xscale("log")
    ax.set_xlim(5, 20_000)
    ax.set_xlabel("bandwidth per direction (GB/s, log scale)")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), loc="lower right", fontsize=8)
    ax.grid(axis="y", visible=False)
    return ax


def tp_link(tp, gpus_per_node=8, nvlink=300e9, network=None):
    """The bandwidth (bytes/s per direction) a tensor-parallel group of ``tp`` GPUs communicates at: NVLink
    while it fits in one server of ``gpus_per_node``, the slowest link it crosses (one network port per GPU,
    InfiniBand HDR unless ``network`` is given) once it spans servers.

    Raises ValueError for a degree or server size that is not a whole number >= 1, or a bandwidth <= 0.

    >>> tp_link([8, 16]) / 1e9
    array([300.,  25.])
    """
    t = check_whole("tp", tp)
    per_node = single_whole("gpus_per_node", gpus_per_node)
    fast = single(check_positive, "nvlink", nvlink)
    slow = LINKS["InfiniBand HDR"].bandwidth if network is None else single(check_positive, "network", network)
    return np.where(t <= per_node, fast, slow)


def tensor_parallel_placement(fig, hidden=12288, achieved_flops=A100_ACHIEVED_FLOPS, gpus_per_node=8,
                              tp_max=64, alpha=5e-6):
    """Scaling efficiency 1/(1 + rho_TP) against the tensor-parallel degree t = 1, 2, 4, ..., ``tp_max``, on A100
    servers of ``gpus_per_node`` (NVLink 3 inside, one InfiniBand HDR port per GPU), priced three ways once the
    group spans servers: the worst case, every ring hop on one network port (the formula with beta_link of the
    port); rings laid out node by node, one per port (:func:`scalinglib.placement.tensor_parallel_ring_fraction`),
    without latency and with ``alpha`` seconds per ring step; and, for comparison, every all-reduce over
    InfiniBand even inside the server. Returns the axes.

    ``tp_max`` must be a power of two >= 2; ``hidden`` and ``achieved_flops`` numbers > 0; ``gpus_per_node``
    a whole number >= 1; ``alpha`` >= 0 (ValueError otherwise, TypeError for an array)."""
    h = single(check_positive, "hidden", hidden)
    x = single(check_positive, "achieved_flops", achieved_flops)
    gpus_per_node = single_whole("gpus_per_node", gpus_per_node)
    top = single_whole("tp_max", tp_max, 2)
    a = single(check_nonnegative, "alpha", alpha)
    if top & (top - 1):
        raise ValueError(f"tp_max must be a power of two >= 2 (the axis doubles t); got {top}")
    t = 2 ** np.arange(top.bit_length())
    t = t[(t <= gpus_per_node) | (t % gpus_per_node == 0)]
    nvlink = get_accelerator("A100").link_bandwidth
    ib = LINKS["InfiniBand HDR"].bandwidth
    placed = 1 / (1 + tensor_parallel_comm_fraction(t, h, x, tp_link(t, gpus_per_node, nvlink, ib)))
    rings = 1 / (1 + tensor_parallel_ring_fraction(t, h, x, nvlink, ib, gpus_per_node=gpus_per_node))
    rings_alpha = 1 / (1 + tensor_parallel_ring_fraction(t, h, x, nvlink, ib, gpus_per_node=gpus_per_node,
                                                         alpha=a))
    all_ib = 1 / (1 + tensor_parallel_comm_fraction(t, h, x, ib))
    ax = style_axes(fig.subplots())
    ax.plot(t, placed, marker="o", markersize=4, color=COLORS["blue"],
            label="NVLink in a server; beyond it, every ring hop on the network (worst case)")
    ax.plot(t, rings, marker="D", markersize=3.5, color=COLORS["green"], linestyle="-.",
            label=r"beyond it, rings laid out node by node, one per port ($\alpha = 0$)")
    ax.plot(t, rings_alpha, marker="D", markersize=3.5, color=COLORS["green"], linestyle=":",
            label=rf"the same with $\alpha = {a * 1e6:g}\ \mu$s per ring step")
    ax.plot(t, all_ib, marker="s", markersize=3.5, color=COLORS["vermillion"], linestyle="--",
            label="every all-reduce over InfiniBand, even inside the server")
    ax.axvline(gpus_per_node, color=COLORS["grey"], linestyle=":", linewidth=1.3)
    ax.annotate(f"one server\n({gpus_per_node} GPUs)", (gpus_per_node, 0.03), xytext=(4, 0),
                textcoords="offset points", ha="left", va="bottom", fontsize=8, color=COLORS["grey"])
    ax.axhline(1.0, **IDEAL)
    log2_axis(ax, "x")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("tensor-parallel degree t")
    ax.set_ylabel(r"efficiency $1/(1 + \rho_\mathrm{TP})$")
    ax.set_title(f"hidden size {h:,g}, {x / 1e12:g} TFLOP/s sustained per GPU, NVLink 3 and one HDR port per GPU",
                 fontsize=9, fontweight="normal")
    fig.legend(handles=ax.get_lines()[:4], loc="outside lower center", ncols=1, fontsize=7.5)
    return ax
