"""Figures of Section 3.7: rooflines of the catalog's devices, kernels placed on them, decode batching,
and the empirical roofline of the reader's machine."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validate import (
    as_float_array,
    check_axes,
    check_flag,
    check_kwargs,
    check_nonnegative,
    check_positive,
    renamed,
    single,
)
from ..hardware import get_accelerator
from ..plots import COLORS, style_axes
from ..roofline import (
    attainable_flops,
    decode_intensity,
    decode_ridge_batch,
    decode_tokens_per_second,
    elementwise_intensity,
    gemm_intensity,
    precision_bytes,
    ridge_point,
    roofline_regime,
)

__all__ = ["plot_roofline", "plot_device_roofline", "device_roofline", "catalog_rooflines", "decode_batching",
           "measured_roofline", "CATALOG_DEVICES"]

#: The devices of Figure 3.7.1, in legend order.
CATALOG_DEVICES = ("A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "MI300X", "TPU v5e", "TPU v5p")

#: The intensities every roofline of the section spans, FLOP/byte.
INTENSITY_RANGE = (1 / 32, 8192.0)
#: The largest intensity (FLOP/byte) and kernel rate (FLOP/s) :func:`plot_roofline` places: far past any
#: kernel and any machine, and far enough inside a float that the log axes' limits and ticks stay finite.
MAX_INTENSITY = 1e12
MAX_KERNEL_RATE = 1e24
_MARKERS = ("o", "s", "D", "^", "v", "P", "X")


def _tflops(x):
    return np.asarray(x) / 1e12


def _roofline_args(peak_flops, bandwidth, kernels, intensity_range, scale):
    """Check plot_roofline's numbers: a roof, kernels with intensities >= 0 and rates > 0, a span low to high."""
    peak = single(check_positive, "peak_flops", peak_flops)
    bw = single(check_positive, "bandwidth", bandwidth)
    scale = single(check_positive, "scale", scale)
    if not np.isfinite(peak / scale):
        raise ValueError(f"scale must keep peak_flops / scale finite; got scale {scale:g}")
    span = as_float_array("intensity_range", intensity_range)
    if np.shape(span) != (2,):
        raise ValueError(f"intensity_range must be two numbers (low, high); got {intensity_range!r}")
    lo, hi = float(span[0]), float(span[1])
    if not 0 < lo < hi:
        raise ValueError(f"intensity_range must be (low, high) with 0 < low < high; got {intensity_range!r}")
    if hi > MAX_INTENSITY:
        raise ValueError(f"intensity_range must end at most at {MAX_INTENSITY:g} FLOP/byte; got {intensity_range!r}")
    if kernels is None:
        kernels = {}
    if not isinstance(kernels, Mapping):
        raise TypeError(f"kernels must be a dict of name -> intensity or (intensity, FLOP/s); got {kernels!r}")
    checked = {}
    for name, spec in kernels.items():
        if not isinstance(name, str):
            raise TypeError(f"kernels must be keyed by names (strings); got {name!r}")
        if isinstance(spec, tuple):
            if len(spec) != 2:
                raise ValueError(f"kernels[{name!r}] must be an intensity or (intensity, FLOP/s); got {spec!r}")
            intensity = single(check_positive, f"kernels[{name!r}] intensity", spec[0])
            rate = single(check_positive, f"kernels[{name!r}] rate", spec[1])
            checked[name] = (_sane(f"kernels[{name!r}] intensity", intensity, MAX_INTENSITY, "FLOP/byte"),
                             _sane(f"kernels[{name!r}] rate", rate, MAX_KERNEL_RATE, "FLOP/s"))
        else:
            intensity = single(check_nonnegative, f"kernels[{name!r}]", spec)
            checked[name] = _sane(f"kernels[{name!r}]", intensity, MAX_INTENSITY, "FLOP/byte")
    return peak, bw, checked, (lo, hi), scale


def _sane(name, value, most, unit):
    """``value`` when it is at most ``most`` (an intensity or a rate a roofline can place), else a ValueError."""
    if value > most:
        raise ValueError(f"{name} must be at most {most:g} {unit} (past any kernel, and the log axes would "
                         f"overflow); got {value:g}")
    return value


def _line_style(color, linestyle):
    """A colour (or None) and a line style matplotlib accepts, else an error naming the parameter."""
    from matplotlib.colors import is_color_like
    from matplotlib.lines import Line2D

    if color is not None and (isinstance(color, np.ndarray) or not is_color_like(color)):
        raise ValueError(f"color must be a matplotlib colour such as 'C0' or '#0072B2'; got {color!r}")
    try:
        Line2D([], [], linestyle=linestyle)
    except (ValueError, TypeError):
        raise ValueError(f"linestyle must be a matplotlib line style such as '-', '--' or ':'; got {linestyle!r}") \
            from None
    return color, linestyle


def plot_roofline(ax, peak_flops, bandwidth, kernels=None, *, label=None, color=None, linestyle="-",
                  intensity_range=INTENSITY_RANGE, scale=1e12, mark_ridge=True, annotate=True):
    """Draw one roofline, ``min(P, B I)``, on log axes and place kernels on or under it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    peak_flops : float
        P in FLOP/s.
    bandwidth : float
        B in bytes/s.
    kernels : mapping, optional
        Kernel name -> intensity (the kernel is placed on the roof, at its
        attainable rate), or name -> ``(intensity, measured FLOP/s)`` (placed at
        the measured rate).
    label : str, optional
        Legend label of the roof.
    color, linestyle : optional
        Style of the roof; the colour defaults to the book's blue.
    intensity_range : (float, float)
        Span of the x axis in FLOP/byte, low then high, both > 0.
    scale : float
        Units of the y axis: 1e12 plots TFLOP/s, 1e9 GFLOP/s (> 0).
    mark_ridge : bool
        Mark the ridge point P/B with a dotted vertical line.
    annotate : bool
        Write each kernel's name beside its point.

    Returns
    -------
    matplotlib.axes.Axes
        The line of the roof carries ``label``; each kernel's point is a line
        labelled with the kernel's name.
    """
    check_axes("ax", ax)
    peak_flops, bandwidth, kernels, (lo, hi), scale = _roofline_args(peak_flops, bandwidth, kernels,
                                                                     intensity_range, scale)
    color, linestyle = _line_style(color, linestyle)
    mark_ridge, annotate = check_flag("mark_ridge", mark_ridge), check_flag("annotate", annotate)
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string or None; got {label!r}")
    color = color or COLORS["blue"]
    intensity = np.geomspace(lo, hi, 400)
    ridge = ridge_point(peak_flops, bandwidth)
    intensity = np.union1d(intensity, [ridge]) if lo < ridge < hi else intensity
    ax.plot(intensity, attainable_flops(intensity, peak_flops, bandwidth) / scale, color=color,
            linestyle=linestyle, label=label)
    if mark_ridge and lo < ridge < hi:
        ax.axvline(ridge, color=color, linestyle=":", linewidth=1.0, alpha=0.8)
    for i, (name, spec) in enumerate((kernels or {}).items()):
        if isinstance(spec, tuple):
            x, y = float(spec[0]), float(spec[1])
        else:
            x, y = float(spec), float(attainable_flops(spec, peak_flops, bandwidth))
        ax.plot([x], [y / scale], marker=_MARKERS[i % len(_MARKERS)], markersize=7, linestyle="none",
                color=COLORS["vermillion"] if isinstance(spec, tuple) else COLORS["black"], label=name)
        if annotate:
            ax.annotate(name, (x, y / scale), xytext=(6, -3), textcoords="offset points", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
    return ax


def plot_device_roofline(ax, device, kernels=None, precision="bf16", **kwargs):
    """:func:`plot_roofline` for a device of the catalog: its dense peak at ``precision`` and its HBM bandwidth.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    device : str or Accelerator
        Any name :func:`scalinglib.get_accelerator` accepts, e.g. ``"H100"``.
    kernels : mapping, optional
        As in :func:`plot_roofline`: name -> intensity, or name -> (intensity, measured FLOP/s).
    precision : str, optional
        Which peak to use (default ``"bf16"``).
    **kwargs
        Passed to :func:`plot_roofline`; the label defaults to the device and precision.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_device_roofline(ax, "A100", {"GEMM 512^3": 170.7})
    >>> [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    ['A100 SXM 80GB (bf16)', 'GEMM 512^3']
    >>> plt.close(fig)
    """
    check_axes("ax", ax)
    check_kwargs("kwargs", kwargs)
    with renamed(name="device"):
        acc = get_accelerator(device)
    kwargs.setdefault("label", f"{acc.name} ({precision})")
    ax = plot_roofline(ax, acc.peak(precision), acc.memory_bandwidth, kernels, **kwargs)
    ax.set_ylabel(f"attainable {precision} (TFLOP/s)" if kwargs.get("scale", 1e12) == 1e12 else "FLOP/s")
    return ax


def _intensity_ticks(ax):
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v >= 1 else f"1/{1 / v:g}"))


def device_roofline(fig, device="H100 SXM 80GB", gemm_size=1024, precision="bf16", others=None):
    """One device's roof (the other devices' roofs faint behind it) with a square GEMM of order
    ``gemm_size`` and a vector add placed on it, and a line of text saying where the GEMM sits.
    Returns the axes."""
    acc = get_accelerator(device)
    ax = style_axes(fig.subplots())
    peak, bw = acc.peak(precision), acc.memory_bandwidth
    for name in others if others is not None else ("A100 SXM 80GB", "H100 SXM 80GB", "MI300X", "TPU v5e"):
        other = get_accelerator(name)
        if other.name != acc.name and precision in other.peak_flops:
            plot_roofline(ax, other.peak(precision), other.memory_bandwidth, color=COLORS["grey"],
                          linestyle="-", mark_ridge=False)
            ax.lines[-1].set_alpha(0.35)
            ax.lines[-1].set_linewidth(1.0)
    bytes_per = precision_bytes(precision)
    gemm_i = float(gemm_intensity(gemm_size, gemm_size, gemm_size, bytes_per))
    add_i = float(elementwise_intensity(1, 3, bytes_per))
    plot_roofline(ax, peak, bw, {"vector add": add_i, f"GEMM {gemm_size}\u00b3": gemm_i},
                  label=f"{acc.name} ({precision})", color=COLORS["blue"])
    reach = float(attainable_flops(gemm_i, peak, bw))
    ax.set_title(f"GEMM {gemm_size}\u00b3: I = {gemm_i:,.0f} FLOP/byte, {roofline_regime(gemm_i, peak, bw)}, "
                 f"{reach / 1e12:,.0f} TFLOP/s ({reach / peak:.0%} of peak)", fontsize=9, fontweight="normal")
    ax.annotate(f"ridge {acc.ridge_point(precision):.0f}", (acc.ridge_point(precision), 0.03),
                xytext=(3, 0), textcoords="offset points", fontsize=8, color=COLORS["blue"])
    ax.set_xlim(*INTENSITY_RANGE)
    ax.set_ylim(0.02, 4000)
    ax.set_ylabel("attainable (TFLOP/s)")
    _intensity_ticks(ax)
    ax.legend(loc="upper left", fontsize=8)
    return ax


def catalog_rooflines(fig, names=None, precision="bf16", kernels=None):
    """The roofs of several catalog devices on one set of axes, ridge points dotted, with kernels
    (name -> intensity) marked on the x axis as vertical bands. Returns the axes."""
    ax = style_axes(fig.subplots())
    names = names or CATALOG_DEVICES
    palette = [COLORS[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "black")]
    styles = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1)), "-"]
    for i, name in enumerate(names):
        acc = get_accelerator(name)
        plot_roofline(ax, acc.peak(precision), acc.memory_bandwidth, label=acc.name, color=palette[i % 7],
                      linestyle=styles[i % 7])
    for name, intensity in (kernels or {}).items():
        ax.axvline(intensity, color=COLORS["grey"], linewidth=5, alpha=0.18)
        ax.annotate(name, (intensity, 0.03), rotation=90, fontsize=8, color=COLORS["grey"],
                    xytext=(4, 0), textcoords="offset points", va="bottom")
    ax.set_xlim(*INTENSITY_RANGE)
    ax.set_ylim(0.02, 4000)
    ax.set_ylabel(f"attainable {precision} (TFLOP/s)")
    _intensity_ticks(ax)
    ax.plot([], [], color=COLORS["grey"], linestyle=":", linewidth=1.0, label="ridge points (dotted)")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def decode_batching(fig, n_params=7e9, names=("A100 SXM 80GB", "H100 SXM 80GB"), precision="bf16",
                    bytes_per_param=2, kv_bytes_per_seq=0.0, batches=None):
    """Left: decode throughput (tokens/s) against batch size on each device.
    Right: the fraction of peak FLOP/s decoding uses, on log axes too, the ridge batch dotted. Returns the two axes.

    The curves are sampled densely over the span of ``batches`` (1 to 2048 by default) and at each
    device's ridge batch, so their corners sit exactly at the ridge; dots mark ``batches`` themselves
    (the powers of two by default)."""
    span = np.asarray(batches if batches is not None else 2.0 ** np.arange(0, 12), dtype=float)
    ax_t, ax_u = fig.subplots(1, 2)
    for ax in (ax_t, ax_u):
        style_axes(ax)
    palette = (COLORS["blue"], COLORS["orange"], COLORS["green"], COLORS["vermillion"])
    for i, name in enumerate(names):
        acc = get_accelerator(name)
        peak, bw = acc.peak(precision), acc.memory_bandwidth
        ridge_batch = float(decode_ridge_batch(peak, bw, bytes_per_param))
        dense = np.geomspace(span.min(), span.max(), 400)
        if kv_bytes_per_seq == 0 and span.min() < ridge_batch < span.max():
            dense = np.union1d(dense, [ridge_batch])
        color, style = palette[i % len(palette)], ["-", "--"][i % 2]
        tokens = decode_tokens_per_second(dense, n_params, peak, bw, bytes_per_param, kv_bytes_per_seq)
        dots = decode_tokens_per_second(span, n_params, peak, bw, bytes_per_param, kv_bytes_per_seq)
        for ax, scale in ((ax_t, 1.0), (ax_u, 2.0 * n_params / peak)):   # right: FLOP/s used over peak
            ax.plot(dense, tokens * scale, color=color, linestyle=style, label=acc.name)
            ax.plot(span, dots * scale, color=color, marker="o", markersize=3.5, linestyle="none")
        if kv_bytes_per_seq == 0 and span.min() <= ridge_batch <= span.max():
            ax_u.axvline(ridge_batch, color=color, linestyle=":", linewidth=1.2)
    for ax in (ax_t, ax_u):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("batch b (sequences decoded together)")
    ax_t.set_yscale("log")
    ax_t.set_ylabel("tokens per second")
    ax_t.legend(loc="upper left", fontsize=8)
    ax_u.set_yscale("log")
    ax_u.set_ylim(1e-3, 1.5)
    ax_u.set_ylabel("fraction of peak FLOP/s used")
    ax_u.legend(loc="upper left", fontsize=8)
    intensity = decode_intensity(span, n_params, bytes_per_param, kv_bytes_per_seq)
    ax_t.set_title(f"{n_params / 1e9:g}B parameters, {bytes_per_param:g} bytes each", fontsize=9,
                   fontweight="normal")
    ax_u.set_title(f"share of the peak in use (I = {intensity[0]:g} to {intensity[-1]:g}); dotted: ridge batch",
                   fontsize=9, fontweight="normal")
    return ax_t, ax_u


def measured_roofline(fig, peak_flops, bandwidth, runs, machine="this machine", whole=None):
    """The roof of the reader's machine from its measured peak FLOP/s and bandwidth, with measured
    kernels (objects with ``name``, ``intensity`` and ``rate``) placed at their measured FLOP/s.

    ``whole``, if given, is ``(label, P, B)`` of a second roof measured on all the machine's cores,
    drawn dashed. Returns the axes."""
    ax = style_axes(fig.subplots())
    kernels: Mapping[str, tuple] = {run.name: (run.intensity, run.rate) for run in runs}
    plot_roofline(ax, peak_flops, bandwidth, kernels, label=f"{machine}: min(P, B I)", scale=1e9,
                  intensity_range=(1 / 64, 512.0))
    ridge = ridge_point(peak_flops, bandwidth)
    ax.annotate(f"ridge {ridge:.2g} FLOP/byte", (ridge, peak_flops / 1e9), xytext=(4, 6), textcoords="offset points",
                fontsize=8, color=COLORS["blue"])
    top = peak_flops
    labels = [machine]
    if whole is not None:
        if not isinstance(whole, tuple) or len(whole) != 3 or not isinstance(whole[0], str):
            raise TypeError(f"whole must be a tuple (label, peak_flops, bandwidth); got {whole!r}")
        label, whole_peak, whole_bw = whole
        plot_roofline(ax, whole_peak, whole_bw, label=label, color=COLORS["vermillion"], linestyle="--",
                      scale=1e9, intensity_range=(1 / 64, 512.0))
        top = max(top, float(whole_peak))
        labels.append(label)
    ax.set_ylabel("FLOP/s (GFLOP/s)")
    ax.set_xlim(1 / 64, 512)
    lowest = min([run.rate for run in runs] + [bandwidth / 64]) / 1e9
    ax.set_ylim(lowest / 3, top / 1e9 * 3)
    _intensity_ticks(ax)
    roof = [line for line in ax.get_lines() if line.get_label() in labels or line.get_label().startswith(machine)]
    ax.legend(handles=roof, loc="lower right", fontsize=8)
    return ax
