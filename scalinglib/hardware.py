r"""A small, cited catalog of accelerators and links (Sections 3.2, 3.7 and 3.9).

Each :class:`Accelerator` in :data:`CATALOG` records what the vendor publishes
for one device, turned into SI units so that the rest of the library can use
the numbers directly:

* ``peak_flops`` maps a precision name (``"fp64"``, ``"fp32"``, ``"tf32"``,
  ``"bf16"``, ``"fp16"``, ``"fp8"``, ``"int8"``) to the **dense** peak rate in
  FLOP/s (operations per second for ``"int8"``). NVIDIA and AMD print their
  headline tensor-core figures with 2:4 structured sparsity (the figures marked
  with an asterisk on NVIDIA datasheets); those are halved here. Only the
  precisions the vendor lists are present. ``"fp64"`` and ``"fp32"`` hold the
  fastest dense path the vendor lists (tensor or matrix cores where they exist);
  the slower vector rates are given in ``notes``.
* ``memory_bytes`` is the HBM capacity in bytes. A vendor figure in "GB" is
  read as :math:`10^9` bytes and kept as printed (80 GB is ``80e9``); a figure
  the vendor labels "GiB" is converted with :math:`2^{30}` (32 GiB is
  ``34_359_738_368``). Which of the two applies is said in each entry's notes.
* ``memory_bandwidth`` is the peak HBM bandwidth in bytes/s.
* ``link_bandwidth`` is the device's chip-to-chip bandwidth in bytes/s **in
  one direction**, summed over all of its links: NVLink 3 on an A100 is sold
  as 600 GB/s, which counts both directions, so it is stored as ``300e9``.
  ``None`` means the vendor's documentation gives no per-device figure.
* ``devices_per_node`` is the number of devices one server (host) holds in
  the usual configuration; ``link_domain`` is the largest group that
  ``link_name`` joins without the data-centre network (the 8-GPU board for
  GPUs, the pod for TPUs).
* ``sources`` maps each of those fields to the document it comes from, with a
  URL; ``notes`` records derivations and any disagreement between sources.

The ridge point of the roofline model (Section 3.7) is the arithmetic
intensity at which a kernel stops being limited by memory:

.. math:: I^{*} = \frac{P}{B}\quad[\text{FLOP/byte}]

for peak rate P (FLOP/s) and memory bandwidth B (bytes/s).

:data:`LINKS` holds the network links of the bandwidth hierarchy of Section
3.2 (PCIe, NVLink, InfiniBand, Ethernet) as :class:`Link` entries, again in
bytes/s per direction, each with its source.

:data:`INSTANCE_PRICES` holds a few published hourly prices of cloud servers
of eight GPUs (Section 3.2's cost of scaling up), as :class:`InstancePrice`
entries with the source and the date of every price. Prices are dated facts,
not constants: they differ between providers, contracts and years.

Peaks are what the silicon can do under ideal conditions; sustained rates on
real kernels are lower (Section 3.9 calls the ratio MFU).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

from ._validate import check_choice, check_positive, public, renamed, single, single_whole

__all__ = [
    "PRECISIONS",
    "KINDS",
    "Accelerator",
    "Link",
    "CATALOG",
    "LINKS",
    "get_accelerator",
    "accelerator_table",
    "PRICINGS",
    "InstancePrice",
    "INSTANCE_PRICES",
]

#: Precision names a peak rate may be given for, from the widest to the narrowest.
PRECISIONS: tuple[str, ...] = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
#: Kinds of device. The catalog holds GPUs and TPUs; "CPU" is allowed so that a
#: section can describe the reader's own machine with the same class.
KINDS: tuple[str, ...] = ("GPU", "TPU", "CPU")
#: Fields of :class:`Accelerator` that hold a number (or None) and so need a source.
NUMERIC_FIELDS: tuple[str, ...] = (
    "peak_flops",
    "memory_bytes",
    "memory_bandwidth",
    "link_bandwidth",
    "devices_per_node",
    "link_domain",
)
#: Where a link sits in the hierarchy of Section 3.2.
LINK_SCOPES: tuple[str, ...] = ("intra-node", "host", "inter-node")

_GiB = 2**30


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _positive_number(name: str, value: Any) -> float:
    """One finite real number > 0, returned as a float."""
    return single(check_positive, name, value)


def _whole_number(name: str, value: Any) -> int:
    """One whole number >= 1, returned as an int (at most 2**53, the largest a float holds exactly)."""
    return single_whole(name, value, maximum=2**53, why="the largest count a float holds exactly")


def _text(name: str, value: Any, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string; got {_describe(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    return value


@dataclass(frozen=True)
class Accelerator:
    """One accelerator as its vendor documents it, in SI units.

    The field conventions (dense peaks, bytes, bandwidth per direction) are
    described in the module documentation of :mod:`scalinglib.hardware`.

    Parameters
    ----------
    name : str
        Short name, e.g. ``"A100 SXM 80GB"``.
    vendor : str
        Maker, e.g. ``"NVIDIA"``.
    kind : str
        One of :data:`KINDS` (``"GPU"``, ``"TPU"``, ``"CPU"``).
    peak_flops : mapping of str to float
        Dense peak rate in FLOP/s for each precision in :data:`PRECISIONS`
        the device supports; at least one entry, every value > 0.
    memory_bytes : float
        Device memory (HBM) capacity in bytes, > 0.
    memory_bandwidth : float
        Peak device memory bandwidth in bytes/s, > 0.
    link_bandwidth : float or None, optional
        Chip-to-chip bandwidth of one device in bytes/s, per direction, summed
        over its links; None when not documented (the default).
    link_name : str or None, optional
        Name of that interconnect, e.g. ``"NVLink 3"`` or ``"ICI"``.
    devices_per_node : int, optional
        Devices per server or host in the usual configuration (default 1).
    link_domain : int or None, optional
        Most devices the interconnect joins without the data-centre network.
    sources : mapping of str to str, optional
        Field name -> citation (document title and URL).
    notes : str, optional
        Derivations, caveats and disagreements between sources.

    Raises
    ------
    ValueError
        A number out of range, an unknown precision or kind, or a source for a
        field that does not exist.
    TypeError
        A value of the wrong type.

    Examples
    --------
    >>> chip = Accelerator("Toy", "Example", "GPU", {"bf16": 100e12}, 16e9, 1e12)
    >>> chip.ridge_point("bf16")
    100.0
    >>> chip.peak("fp8")
    Traceback (most recent call last):
        ...
    ValueError: precision 'fp8' is not available on Toy; available: 'bf16'
    """

    name: str
    vendor: str
    kind: str
    peak_flops: Mapping[str, float] = field(hash=False)
    memory_bytes: float
    memory_bandwidth: float
    link_bandwidth: float | None = None
    link_name: str | None = None
    devices_per_node: int = 1
    link_domain: int | None = None
    sources: Mapping[str, str] = field(default_factory=dict, hash=False, repr=False)
    notes: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # the dataclass is frozen; normalise once, here
        set_(self, "name", _text("name", self.name))
        set_(self, "vendor", _text("vendor", self.vendor))
        set_(self, "kind", check_choice("kind", self.kind, KINDS))
        if not isinstance(self.peak_flops, Mapping):
            raise TypeError(
                f"peak_flops must be a mapping of precision name to FLOP/s; got {_describe(self.peak_flops)}"
            )
        if not self.peak_flops:
            raise ValueError(f"peak_flops must name at least one of {', '.join(map(repr, PRECISIONS))}; got {{}}")
        peaks = {}
        for key, value in self.peak_flops.items():
            if key not in PRECISIONS:
                raise ValueError(
                    f"peak_flops keys must be among {', '.join(map(repr, PRECISIONS))}; got {_describe(key)}"
                )
            peaks[key] = _positive_number(f"peak_flops[{key!r}]", value)
        # keep the canonical order whatever order the caller used
        set_(self, "peak_flops", MappingProxyType({p: peaks[p] for p in PRECISIONS if p in peaks}))
        set_(self, "memory_bytes", _positive_number("memory_bytes", self.memory_bytes))
        set_(self, "memory_bandwidth", _positive_number("memory_bandwidth", self.memory_bandwidth))
        if self.link_bandwidth is not None:
            set_(self, "link_bandwidth", _positive_number("link_bandwidth", self.link_bandwidth))
        if self.link_name is not None:
            _text("link_name", self.link_name)
        set_(self, "devices_per_node", _whole_number("devices_per_node", self.devices_per_node))
        if self.link_domain is not None:
            set_(self, "link_domain", _whole_number("link_domain", self.link_domain))
        if not isinstance(self.sources, Mapping):
            raise TypeError(f"sources must be a mapping of field name to citation; got {_describe(self.sources)}")
        names = [f.name for f in fields(self)]
        for key, value in self.sources.items():
            if key not in names:
                raise ValueError(f"sources keys must be field names ({', '.join(names)}); got {_describe(key)}")
            _text(f"sources[{key!r}]", value)
        set_(self, "sources", MappingProxyType(dict(self.sources)))
        _text("notes", self.notes, allow_empty=True)

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precisions this device has a peak rate for, widest first."""
        return tuple(self.peak_flops)

    def peak(self, precision: str = "bf16") -> float:
        """Dense peak rate in FLOP/s (OP/s for int8) at one precision.

        Parameters
        ----------
        precision : str, optional
            One of :data:`PRECISIONS` (case-insensitive); default ``"bf16"``.

        Returns
        -------
        float
            FLOP/s.

        Raises
        ------
        ValueError
            The precision is unknown, or the device has no rate for it; the
            message lists the precisions it has.
        TypeError
            ``precision`` is not a string.

        Examples
        --------
        >>> get_accelerator("A100 SXM 80GB").peak("tf32") / 1e12
        156.0
        """
        precision = check_choice("precision", precision, PRECISIONS)
        if precision not in self.peak_flops:
            raise ValueError(
                f"precision {precision!r} is not available on {self.name}; "
                f"available: {', '.join(map(repr, self.peak_flops))}"
            )
        return self.peak_flops[precision]

    def ridge_point(self, precision: str = "bf16") -> float:
        r"""Arithmetic intensity (FLOP/byte) where the roofline turns flat.

        .. math:: I^{*} = \frac{P_\text{precision}}{B_\text{HBM}}

        A kernel doing fewer FLOPs per byte of memory traffic than this is
        limited by memory bandwidth; one doing more is limited by compute.

        Parameters
        ----------
        precision : str, optional
            One of the device's :attr:`precisions`; default ``"bf16"``.

        Returns
        -------
        float
            FLOP per byte.

        Raises
        ------
        ValueError, TypeError
            As for :meth:`peak`.

        Examples
        --------
        >>> round(get_accelerator("A100 SXM 80GB").ridge_point("bf16"), 1)
        153.0
        """
        return self.peak(precision) / self.memory_bandwidth


@dataclass(frozen=True)
class Link:
    """One kind of link in the bandwidth hierarchy, with its source.

    Parameters
    ----------
    name : str
        E.g. ``"InfiniBand NDR"``.
    bandwidth : float
        Bytes/s in one direction for one port or one device, > 0.
    scope : str
        One of :data:`LINK_SCOPES`: ``"intra-node"`` (device to device inside
        a server), ``"host"`` (device to CPU) or ``"inter-node"`` (between servers).
    source : str
        Citation (document title and URL).
    notes : str, optional
        How the figure was derived.

    Examples
    --------
    >>> LINKS["InfiniBand NDR"].bandwidth / 1e9
    50.0
    """

    name: str
    bandwidth: float
    scope: str
    source: str
    notes: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _text("name", self.name))
        object.__setattr__(self, "bandwidth", _positive_number("bandwidth", self.bandwidth))
        object.__setattr__(self, "scope", check_choice("scope", self.scope, LINK_SCOPES))
        _text("source", self.source)
        _text("notes", self.notes, allow_empty=True)


# --- sources ------------------------------------------------------------------------------------

_A100_DATASHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet (June 2021), "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
_H100_DATASHEET = (
    "NVIDIA H100 Tensor Core GPU datasheet and product page, technical specifications (H100 SXM), "
    "https://www.nvidia.com/en-us/data-center/h100/"
)
_H200_DATASHEET = (
    "NVIDIA H200 Tensor Core GPU product page, technical specifications (H200 SXM), "
    "https://www.nvidia.com/en-us/data-center/h200/"
)
_DGX_A100 = "NVIDIA DGX A100 User Guide, hardware overview (8 A100 GPUs), https://docs.nvidia.com/dgx/dgxa100-user-guide/"
_DGX_H100 = (
    "NVIDIA DGX H100/H200 User Guide, hardware overview (8 GPUs joined by NVSwitch), "
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/"
)
_MLPERF_H200 = (
    "MLPerf Inference v4.1, NVIDIA system description H200-SXM-141GBx8 (8 accelerators per node, "
    "18 NVLink 4 links, 900 GB/s), https://github.com/mlcommons/inference_results_v4.1/blob/main/"
    "closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"
)
_MI300X_ROCM = (
    "AMD ROCm documentation, AMD Instinct MI300 series microarchitecture (peak TFLOPS table, 5.3 TB/s, "
    "seven Infinity Fabric links per GPU in a fully connected 8-GPU node), "
    "https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi300.html"
)
_MI300X_DATASHEET = (
    "AMD Instinct MI300X accelerator data sheet (peak dense TFLOPS per precision, 192 GB HBM3, 5.3 TB/s), "
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf"
)
_MI300X_PAGE = (
    "AMD Instinct MI300X accelerator product page, specifications and footnotes MI300-05A and MI300-17, "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
)
_TPU_V4 = "Google Cloud TPU documentation, TPU v4 system architecture, https://cloud.google.com/tpu/docs/v4"
_TPU_V5E = "Google Cloud TPU documentation, TPU v5e system architecture, https://cloud.google.com/tpu/docs/v5e"
_TPU_V5P = "Google Cloud TPU documentation, TPU v5p system architecture, https://cloud.google.com/tpu/docs/v5p"
_SCALING_BOOK = (
    "Austin et al., How to Scale Your Model, part 2 'How to Think About TPUs' (Google DeepMind, 2025), "
    "TPU specification tables, https://jax-ml.github.io/scaling-book/tpus/"
)


# --- the catalog --------------------------------------------------------------------------------

# H100 SXM and H200 SXM print the same compute figures; the starred (2:4 sparse) ones are halved.
_HOPPER_SXM_DENSE = {
    "fp64": 67e12,
    "fp32": 67e12,
    "tf32": 989e12 / 2,
    "bf16": 1979e12 / 2,
    "fp16": 1979e12 / 2,
    "fp8": 3958e12 / 2,
    "int8": 3958e12 / 2,
}

_ENTRIES = (
    Accelerator(
        name="A100 SXM 80GB",
        vendor="NVIDIA",
        kind="GPU",
        peak_flops={
            "fp64": 19.5e12,
            "fp32": 19.5e12,
            "tf32": 156e12,
            "bf16": 312e12,
            "fp16": 312e12,
            "int8": 624e12,
        },
        memory_bytes=80e9,
        memory_bandwidth=2.039e12,
        link_bandwidth=300e9,
        link_name="NVLink 3",
        devices_per_node=8,
        link_domain=8,
        sources={
            "peak_flops": _A100_DATASHEET,
            "memory_bytes": _A100_DATASHEET,
            "memory_bandwidth": _A100_DATASHEET,
            "link_bandwidth": _A100_DATASHEET,
            "devices_per_node": _DGX_A100,
            "link_domain": _DGX_A100,
        },
        notes=(
            "Datasheet prints TF32 156|312*, BF16 and FP16 312|624*, INT8 624|1,248* TOPS; the starred "
            "figures use 2:4 sparsity and are not used. fp64 is the FP64 tensor-core rate (19.5 TFLOPS); "
            "plain FP64 is 9.7 TFLOPS. Memory: '80GB HBM2e' read as 80e9 bytes, not converted. NVLink: "
            "600 GB/s is the sum of both directions over 12 links, so 300e9 bytes/s each way. The 40 GB "
            "A100 and the PCIe cards have lower bandwidth (1,555 and 1,935 GB/s) and are not this entry."
        ),
    ),
    Accelerator(
        name="H100 SXM 80GB",
        vendor="NVIDIA",
        kind="GPU",
        peak_flops=_HOPPER_SXM_DENSE,
        memory_bytes=80e9,
        memory_bandwidth=3.35e12,
        link_bandwidth=450e9,
        link_name="NVLink 4",
        devices_per_node=8,
        link_domain=8,
        sources={
            "peak_flops": _H100_DATASHEET,
            "memory_bytes": _H100_DATASHEET,
            "memory_bandwidth": _H100_DATASHEET,
            "link_bandwidth": _H100_DATASHEET,
            "devices_per_node": _DGX_H100,
            "link_domain": _DGX_H100,
        },
        notes=(
            "Datasheet prints TF32 989*, BF16/FP16 1,979*, FP8 3,958*, INT8 3,958* TOPS, all with 2:4 "
            "sparsity; the dense rates stored here are those halved (bf16 989.5 TFLOPS). NVIDIA's Hopper "
            "architecture whitepaper gives the unrounded dense figure as 989.4 TFLOPS; the gap is "
            "rounding. fp64 is the FP64 tensor-core rate (67 TFLOPS); plain FP64 is 34 TFLOPS. Memory "
            "bandwidth: early H100 SXM material (including DGX H100 summaries) says 3 TB/s, the current "
            "datasheet 3.35 TB/s, which is used. Memory: '80GB' read as 80e9 bytes, not converted. "
            "NVLink: 900 GB/s counts both directions over 18 links, so 450e9 bytes/s each way. The NVLink "
            "Switch System can join up to 256 GPUs; link_domain keeps the usual 8-GPU HGX/DGX board."
        ),
    ),
    Accelerator(
        name="H200 SXM 141GB",
        vendor="NVIDIA",
        kind="GPU",
        peak_flops=_HOPPER_SXM_DENSE,
        memory_bytes=141e9,
        memory_bandwidth=4.8e12,
        link_bandwidth=450e9,
        link_name="NVLink 4",
        devices_per_node=8,
        link_domain=8,
        sources={
            "peak_flops": _H200_DATASHEET,
            "memory_bytes": _H200_DATASHEET,
            "memory_bandwidth": _H200_DATASHEET,
            "link_bandwidth": _H200_DATASHEET,
            "devices_per_node": _MLPERF_H200 + "; " + _DGX_H100,
            "link_domain": _MLPERF_H200 + "; " + _DGX_H100,
        },
        notes=(
            "Same GH100 compute as the H100 SXM: the H200 SXM datasheet prints the same starred (sparse) "
            "tensor figures, halved here. Only the memory differs: 141 GB of HBM3e (read as 141e9 bytes, "
            "not converted) at 4.8 TB/s. NVLink 4 at 900 GB/s both directions, so 450e9 bytes/s each way."
        ),
    ),
    Accelerator(
        name="MI300X",
        vendor="AMD",
        kind="GPU",
        peak_flops={
            "fp64": 163.4e12,
            "fp32": 163.4e12,
            "tf32": 653.7e12,
            "bf16": 1307.4e12,
            "fp16": 1307.4e12,
            "fp8": 2614.9e12,
            "int8": 2614.9e12,
        },
        memory_bytes=192e9,
        memory_bandwidth=5.3e12,
        link_bandwidth=7 * 128e9 / 2,
        link_name="Infinity Fabric",
        devices_per_node=8,
        link_domain=8,
        sources={
            "peak_flops": _MI300X_DATASHEET + "; " + _MI300X_ROCM + "; " + _MI300X_PAGE,
            "memory_bytes": _MI300X_DATASHEET + "; " + _MI300X_PAGE,
            "memory_bandwidth": _MI300X_DATASHEET + "; " + _MI300X_ROCM + "; " + _MI300X_PAGE,
            "link_bandwidth": _MI300X_PAGE + "; " + _MI300X_ROCM,
            "devices_per_node": _MI300X_ROCM,
            "link_domain": _MI300X_ROCM,
        },
        notes=(
            "AMD's peak table lists dense rates (footnote MI300-17 gives the sparse ones separately: "
            "2,614.9 TFLOPS BF16, 5,229.8 FP8). fp64 is the FP64 matrix rate (163.4 TFLOPS); vector FP64 "
            "is 81.7. Memory: the product page says '192 GB' (read as 192e9 bytes, not converted) while "
            "ROCm's GPU specification table lists the MI300X as 192 GiB (206.2e9 bytes). Bandwidth: 5.3 "
            "TB/s headline; footnote MI300-05A works it out as 5.325 TB/s (8,192 bits x 5.2 Gbps / 8). "
            "Link: the product page lists 8 Infinity Fabric links at 128 GB/s peak each; the ROCm page "
            "says seven of them join the 8 GPUs of a node all-to-all. Taking 128 GB/s to count both "
            "directions (64 GB/s each way per x16 link), one GPU can send 7 x 64 = 448e9 bytes/s; AMD's "
            "'896 GB/s' aggregate is the same sum counted both ways."
        ),
    ),
    Accelerator(
        name="TPU v4",
        vendor="Google",
        kind="TPU",
        peak_flops={"bf16": 275e12, "int8": 275e12},
        memory_bytes=32 * _GiB,
        memory_bandwidth=1200e9,
        link_bandwidth=None,
        link_name="ICI",
        devices_per_node=4,
        link_domain=4096,
        sources={
            "peak_flops": _TPU_V4,
            "memory_bytes": _TPU_V4,
            "memory_bandwidth": _TPU_V4,
            "link_bandwidth": _TPU_V4 + " (no per-chip ICI bandwidth is given there)",
            "devices_per_node": _SCALING_BOOK,
            "link_domain": _TPU_V4,
        },
        notes=(
            "Google lists 275 teraflops per chip for bf16 or int8 (int8 is not faster on v4). Memory: "
            "'32 GiB' converted to 32 x 2**30 = 34,359,738,368 bytes. Bandwidth: 1200 GBps read as "
            "1.2e12 bytes/s; Google's TPU v5p launch post compares against 1,228 GBps for v4 (seen only "
            "as quoted by third parties). ICI: the v4 page gives no per-chip figure, so link_bandwidth "
            "is None. Other figures exist but were not used: the v5p launch post lists v4 ICI as "
            "2,400 Gbps (300e9 bytes/s if per direction), and How to Scale Your Model gives 4.5e10 "
            "bytes/s one way per link, or 2.7e11 over the six links of a 3D torus. A host holds 4 chips "
            "(a 2x2x1 block); a pod is 4096 chips."
        ),
    ),
    Accelerator(
        name="TPU v5e",
        vendor="Google",
        kind="TPU",
        peak_flops={"bf16": 197e12, "int8": 393e12},
        memory_bytes=16e9,
        memory_bandwidth=819e9,
        link_bandwidth=400e9 / 2,
        link_name="ICI",
        devices_per_node=8,
        link_domain=256,
        sources={
            "peak_flops": _TPU_V5E,
            "memory_bytes": _TPU_V5E,
            "memory_bandwidth": _TPU_V5E,
            "link_bandwidth": _TPU_V5E,
            "devices_per_node": _TPU_V5E + "; " + _SCALING_BOOK,
            "link_domain": _TPU_V5E,
        },
        notes=(
            "Memory: '16 GB' read as 16e9 bytes, not converted. Bandwidth: the page says 819 GBps; one "
            "revision of the same page lists '800 GiBps' (859e9 bytes/s) instead; 819e9 is used. int8: "
            "Google lists 393 TOPs; How to Scale Your Model rounds it to 3.94e14. ICI: the current page "
            "gives 400 GBps bidirectional per chip, an older one 1600 Gbps (200 GB/s); both give 200e9 "
            "bytes/s each way, summed over the chip's 4 ICI ports. 8 chips per host, 256 per pod."
        ),
    ),
    Accelerator(
        name="TPU v5p",
        vendor="Google",
        kind="TPU",
        peak_flops={"bf16": 459e12, "fp8": 459e12, "int8": 918e12},
        memory_bytes=95 * _GiB,
        memory_bandwidth=2765e9,
        link_bandwidth=1200e9 / 2,
        link_name="ICI",
        devices_per_node=4,
        link_domain=8960,
        sources={
            "peak_flops": _TPU_V5P + " (bf16, fp8); " + _SCALING_BOOK + " (int8)",
            "memory_bytes": _TPU_V5P,
            "memory_bandwidth": _TPU_V5P,
            "link_bandwidth": _TPU_V5P,
            "devices_per_node": _TPU_V5P,
            "link_domain": _TPU_V5P,
        },
        notes=(
            "The v5p page lists fp8 at the same 459 TFLOPs as bf16 (no speed-up from fp8). int8 918 TOPS "
            "is not on the Cloud page; it comes from How to Scale Your Model (9.18e14) and Google's v5p "
            "launch post. Memory: the current page says '95 GiB' (converted: 95 x 2**30 = 102.0e9 "
            "bytes); an older revision and the launch post say '95GB' (95e9), and How to Scale Your "
            "Model says 96 GB. Bandwidth: 2765 GBps (the page also gives it as 2575 GiBps, the same "
            "number). ICI: 1200 GBps bidirectional per chip, so 600e9 bytes/s each way over its 6 ports; "
            "an older revision's '4800 Gbps' is the same 600 GB/s. A host holds 4 chips (2x2x1); a pod "
            "has 8960 chips, of which at most 6144 form one slice."
        ),
    ),
)

#: The accelerators of Sections 3.2, 3.7 and 3.9, by name.
CATALOG: Mapping[str, Accelerator] = MappingProxyType({a.name: a for a in _ENTRIES})

# --- links --------------------------------------------------------------------------------------


def _pcie_x16(gt_per_s: float) -> float:
    """Bytes/s one way over 16 lanes with 128b/130b coding (PCIe 3.0 to 5.0)."""
    return gt_per_s * 1e9 * 16 * (128 / 130) / 8


_PCIE = (
    "PCI-SIG, PCI Express Base Specification 4.0 (16 GT/s) and 5.0 (32 GT/s; 'up to 128 GB/s via x16' "
    "counting both directions), https://pcisig.com/specifications"
)
_NDR_SOURCE = (
    "NVIDIA MMS4X00-NS400 400Gb/s OSFP transceiver specification (400 Gb/s NDR for ConnectX-7, 200 Gb/s "
    "NDR200), https://docs.nvidia.com/networking/display/mms4x00ns400/overview"
)
_HDR_SOURCE = (
    "NVIDIA ConnectX-6 InfiniBand/Ethernet adapter cards user manual (HDR 200 Gb/s ports), "
    "https://docs.nvidia.com/networking/display/connectx6vpi; HDR lane rate 50 Gb/s x 4 lanes as coded "
    "in Open MPI, https://github.com/open-mpi/ompi/pull/4946"
)

_LINK_ENTRIES = (
    Link(
        "NVLink 4 (H100)",
        450e9,
        "intra-node",
        _H100_DATASHEET,
        "900 GB/s per GPU counts both directions over 18 links; 450e9 bytes/s each way.",
    ),
    Link(
        "NVLink 3 (A100)",
        300e9,
        "intra-node",
        _A100_DATASHEET,
        "600 GB/s per GPU counts both directions over 12 links; 300e9 bytes/s each way.",
    ),
    Link(
        "PCIe 5.0 x16",
        _pcie_x16(32),
        "host",
        _PCIE,
        "32 GT/s x 16 lanes x 128/130 / 8 = 63.0e9 bytes/s each way, before packet overhead. NVIDIA's "
        "'PCIe Gen5 128GB/s' counts both directions and ignores the line code.",
    ),
    Link(
        "InfiniBand NDR",
        400e9 / 8,
        "inter-node",
        _NDR_SOURCE,
        "400 Gb/s data rate per 4-lane port in each direction (100 Gb/s per lane): 50e9 bytes/s.",
    ),
    Link(
        "400GbE",
        400e9 / 8,
        "inter-node",
        "IEEE Std 802.3bs-2017, 200 Gb/s and 400 Gb/s Ethernet, https://www.ieee802.org/3/bs/",
        "400 Gb/s MAC data rate in each direction: 50e9 bytes/s.",
    ),
    Link(
        "PCIe 4.0 x16",
        _pcie_x16(16),
        "host",
        _PCIE,
        "16 GT/s x 16 lanes x 128/130 / 8 = 31.5e9 bytes/s each way, before packet overhead. NVIDIA's "
        "'PCIe Gen4 64GB/s' counts both directions and ignores the line code.",
    ),
    Link(
        "InfiniBand HDR",
        200e9 / 8,
        "inter-node",
        _HDR_SOURCE,
        "200 Gb/s data rate per 4-lane port in each direction (50 Gb/s per lane): 25e9 bytes/s.",
    ),
    Link(
        "100GbE",
        100e9 / 8,
        "inter-node",
        "IEEE Std 802.3ba-2010, 40 Gb/s and 100 Gb/s Ethernet, https://www.ieee802.org/3/ba/",
        "100 Gb/s MAC data rate in each direction: 12.5e9 bytes/s.",
    ),
)

#: Links of the bandwidth hierarchy (Section 3.2), fastest first, in bytes/s per direction.
LINKS: Mapping[str, Link] = MappingProxyType({link.name: link for link in _LINK_ENTRIES})


# --- look-ups -----------------------------------------------------------------------------------


def _key(text: str) -> str:
    """Lower case with everything but letters and digits removed: 'H100-SXM 80GB' -> 'h100sxm80gb'."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


_ALIASES = {
    "a100": "A100 SXM 80GB",
    "a100sxm": "A100 SXM 80GB",
    "a10080gb": "A100 SXM 80GB",
    "h100": "H100 SXM 80GB",
    "h100sxm": "H100 SXM 80GB",
    "h10080gb": "H100 SXM 80GB",
    "h200": "H200 SXM 141GB",
    "h200sxm": "H200 SXM 141GB",
    "h200141gb": "H200 SXM 141GB",
    "amdmi300x": "MI300X",
    "instinctmi300x": "MI300X",
    "v4": "TPU v4",
    "v5e": "TPU v5e",
    "v5p": "TPU v5p",
}
_LOOKUP = {**{_key(name): name for name in CATALOG}, **_ALIASES}


@public
def get_accelerator(name: str | Accelerator) -> Accelerator:
    """Look up an accelerator of :data:`CATALOG` by name.

    Matching ignores case, spaces, hyphens and other punctuation, so
    ``"h100-sxm-80gb"`` finds ``"H100 SXM 80GB"``. A few short aliases are
    accepted too: ``"A100"``, ``"H100"`` and ``"H200"`` mean the SXM variants
    of the catalog, ``"v4"``, ``"v5e"`` and ``"v5p"`` the TPUs. An
    :class:`Accelerator` is returned unchanged, so functions can take either.

    Parameters
    ----------
    name : str or Accelerator
        The device.

    Returns
    -------
    Accelerator

    Raises
    ------
    ValueError
        Unknown name; the message lists the catalog's names.
    TypeError
        ``name`` is neither a string nor an Accelerator.

    Examples
    --------
    >>> get_accelerator("h100 sxm 80gb").name
    'H100 SXM 80GB'
    >>> get_accelerator("TPU-v5e").memory_bandwidth / 1e9
    819.0
    >>> get_accelerator("B200")
    Traceback (most recent call last):
        ...
    ValueError: name must be one of 'A100 SXM 80GB', 'H100 SXM 80GB', 'H200 SXM 141GB', 'MI300X', 'TPU v4', 'TPU v5e', 'TPU v5p'; got 'B200'
    """
    if isinstance(name, Accelerator):
        return name
    if not isinstance(name, str):
        raise TypeError(f"name must be a string naming an accelerator or an Accelerator; got {_describe(name)}")
    found = _LOOKUP.get(_key(name))
    if found is None:
        raise ValueError(f"name must be one of {', '.join(map(repr, CATALOG))}; got {_describe(name)}")
    return CATALOG[found]


@public
def accelerator_table(precision: str = "bf16", names=None) -> list[dict]:
    """One row per accelerator, for printing or plotting, at one precision.

    Each row is a dict with ``name``, ``vendor``, ``kind``, ``precision``,
    ``peak_flops`` (FLOP/s), ``memory_bytes``, ``memory_bandwidth`` (bytes/s),
    ``link_name``, ``link_bandwidth`` (bytes/s per direction) and
    ``ridge_point`` (FLOP/byte). Units are SI and unrounded; format them when
    printing. A device without a rate at ``precision`` keeps its row, with
    ``peak_flops`` and ``ridge_point`` set to None.

    Parameters
    ----------
    precision : str, optional
        One of :data:`PRECISIONS`; default ``"bf16"``.
    names : iterable of str, optional
        Devices to include, in this order (any spelling
        :func:`get_accelerator` accepts); default the whole catalog.

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        Unknown precision or device name.
    TypeError
        ``precision`` is not a string, or ``names`` is not an iterable of names.

    Examples
    --------
    >>> rows = accelerator_table("bf16")
    >>> [(r["name"], round(r["ridge_point"])) for r in rows[:3]]
    [('A100 SXM 80GB', 153), ('H100 SXM 80GB', 295), ('H200 SXM 141GB', 206)]
    >>> accelerator_table("fp8", names=["A100"])[0]["peak_flops"] is None
    True
    """
    precision = check_choice("precision", precision, PRECISIONS)
    if names is None:
        devices = list(CATALOG.values())
    else:
        if isinstance(names, (str, Accelerator, dict)) or not hasattr(names, "__iter__") or np.ndim(names) != 1:
            raise TypeError(f"names must be a list of accelerator names; got {_describe(names)}")
        with renamed(name="names"):
            devices = [get_accelerator(n) for n in names]
    rows = []
    for device in devices:
        has = precision in device.peak_flops
        rows.append(
            {
                "name": device.name,
                "vendor": device.vendor,
                "kind": device.kind,
                "precision": precision,
                "peak_flops": device.peak(precision) if has else None,
                "memory_bytes": device.memory_bytes,
                "memory_bandwidth": device.memory_bandwidth,
                "link_name": device.link_name,
                "link_bandwidth": device.link_bandwidth,
                "ridge_point": device.ridge_point(precision) if has else None,
            }
        )
    return rows


# --- prices -------------------------------------------------------------------------------------

#: How an hourly price was offered.
PRICINGS: tuple[str, ...] = ("on-demand", "capacity block")


@dataclass(frozen=True)
class InstancePrice:
    """One published hourly price of a cloud server of accelerators, with its source.

    Parameters
    ----------
    instance : str
        Provider and instance type, e.g. ``"AWS p5.48xlarge"``.
    chip : str
        The catalog entry whose compute figures the devices share (any spelling
        :func:`get_accelerator` accepts; stored as the catalog name). An A100
        with 40 GB has the compute of the catalog's A100 SXM 80GB and its own
        ``device_memory_bytes``.
    devices : int
        Accelerators in the instance, whole >= 1.
    device_memory_bytes : float
        Memory of one of them in bytes (10**9 per GB, as the provider prints it), > 0.
    usd_per_hour : float
        Price of the whole instance for one hour, in US dollars, > 0.
    pricing : str
        One of :data:`PRICINGS`.
    region : str
        Where the price applies.
    source : str
        Citation (document title, URL and the date the price applied or was read).
    notes : str, optional
        How the row was read.
    device_memory_bandwidth : float, optional
        Memory bandwidth of one accelerator in bytes/s, > 0, where it differs
        from the catalog entry :attr:`chip` (the 40 GB A100); default: the
        catalog's (see :attr:`memory_bandwidth`).
    as_of : str, optional
        When the price applied, as a reader should quote it (e.g. ``"2024"``,
        ``"2026-11-09"``). Prices of different dates should not be compared
        without saying so.

    Examples
    --------
    >>> row = INSTANCE_PRICES["AWS p5.48xlarge, capacity block"]
    >>> round(row.usd_per_device_hour, 3), row.device_memory_bytes / 1e9
    (4.916, 80.0)
    >>> [INSTANCE_PRICES[f"AWS {i}.24xlarge, on-demand"].memory_bandwidth / 1e12 for i in ("p4d", "p4de")]
    [1.555, 2.039]
    """

    instance: str
    chip: str
    devices: int
    device_memory_bytes: float
    usd_per_hour: float
    pricing: str
    region: str
    source: str
    notes: str = field(default="", repr=False)
    device_memory_bandwidth: float | None = None
    as_of: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "instance", _text("instance", self.instance))
        try:
            chip = get_accelerator(self.chip).name
        except (TypeError, ValueError) as err:      # get_accelerator names its own parameter, "name"
            message = str(err)
            raise type(err)("chip" + message[4:] if message.startswith("name ") else f"chip: {message}") from None
        object.__setattr__(self, "chip", chip)
        object.__setattr__(self, "devices", _whole_number("devices", self.devices))
        object.__setattr__(self, "device_memory_bytes",
                           _positive_number("device_memory_bytes", self.device_memory_bytes))
        object.__setattr__(self, "usd_per_hour", _positive_number("usd_per_hour", self.usd_per_hour))
        object.__setattr__(self, "pricing", check_choice("pricing", self.pricing, PRICINGS))
        _text("region", self.region)
        _text("source", self.source)
        _text("notes", self.notes, allow_empty=True)
        _text("as_of", self.as_of, allow_empty=True)
        if self.device_memory_bandwidth is not None:
            object.__setattr__(self, "device_memory_bandwidth",
                               _positive_number("device_memory_bandwidth", self.device_memory_bandwidth))

    @property
    def key(self) -> str:
        """The row's name in :data:`INSTANCE_PRICES`: instance and pricing."""
        return f"{self.instance}, {self.pricing}"

    @property
    def usd_per_device_hour(self) -> float:
        """Dollars per accelerator-hour: the instance's price over its accelerators."""
        return self.usd_per_hour / self.devices

    def peak(self, precision: str = "bf16") -> float:
        """Dense peak FLOP/s of one accelerator at ``precision``, from the catalog entry :attr:`chip`."""
        return get_accelerator(self.chip).peak(precision)

    @property
    def memory_bandwidth(self) -> float:
        """Memory bandwidth of one accelerator, bytes/s: :attr:`device_memory_bandwidth` if the row gives it,
        else the catalog entry :attr:`chip`'s."""
        if self.device_memory_bandwidth is not None:
            return self.device_memory_bandwidth
        return get_accelerator(self.chip).memory_bandwidth


_AWS_CAPACITY_BLOCKS = (
    "Amazon Web Services, Amazon EC2 Capacity Blocks for ML Pricing, reservation rates as listed until "
    "1 January 2025 (effective instance and accelerator hourly rates), "
    "https://aws.amazon.com/ec2/capacityblocks/pricing/ (read 2026-11-22 from a copy of the page)"
)
_AWS_ON_DEMAND = (
    "Data Receipts, '109 - What an H100 actually costs per hour', hyperscalers.json: AWS on-demand Linux "
    "prices in us-east-1 retrieved 2026-11-09 from the AWS price list, "
    "https://github.com/datareceipts/data-receipts/tree/main/109-gpu-pricing"
)

#: When each list's prices applied: the capacity-block rates were listed until 1 January 2025; the on-demand
#: rates were read from AWS's price list on 9 November 2026.
_CB_DATE = "until 2025-01-01"
_OD_DATE = "2026-11-09"

_A100_40GB_NOTE = ("8 x A100 SXM 40GB, 320 GB of HBM2 in all: the compute of the catalog's A100 SXM 80GB; memory "
                   "bandwidth 1,555 GB/s per GPU from the " + _A100_DATASHEET)

_PRICE_ENTRIES = (
    InstancePrice("AWS p4d.24xlarge", "A100 SXM 80GB", 8, 40e9, 14.75, "capacity block", "US East (Ohio)",
                  _AWS_CAPACITY_BLOCKS, _A100_40GB_NOTE, 1.555e12, _CB_DATE),
    InstancePrice("AWS p5.48xlarge", "H100 SXM 80GB", 8, 80e9, 39.33, "capacity block", "US East (Ohio)",
                  _AWS_CAPACITY_BLOCKS, "8 x H100 with 640 GB of HBM3; $4.916 per accelerator-hour.",
                  as_of=_CB_DATE),
    InstancePrice("AWS p5e.48xlarge", "H200 SXM 141GB", 8, 141e9, 43.26, "capacity block", "US East (Ohio)",
                  _AWS_CAPACITY_BLOCKS, "8 x H200 with 1128 GB of HBM3e; $5.408 per accelerator-hour.",
                  as_of=_CB_DATE),
    InstancePrice("AWS p4d.24xlarge", "A100 SXM 80GB", 8, 40e9, 21.957642, "on-demand", "us-east-1",
                  _AWS_ON_DEMAND, _A100_40GB_NOTE, 1.555e12, _OD_DATE),
    InstancePrice("AWS p4de.24xlarge", "A100 SXM 80GB", 8, 80e9, 27.44705, "on-demand", "us-east-1",
                  _AWS_ON_DEMAND, "8 x A100 SXM 80GB: the compute of p4d's A100s, with twice the memory and "
                  "faster memory (2,039 against 1,555 GB/s, A100 datasheet).", as_of=_OD_DATE),
    InstancePrice("AWS p5.48xlarge", "H100 SXM 80GB", 8, 80e9, 55.04, "on-demand", "us-east-1",
                  _AWS_ON_DEMAND, "8 x H100 SXM 80GB.", as_of=_OD_DATE),
)

#: Published hourly prices of eight-GPU cloud servers (Sections 3.2.5 and 3.9.8), by ``"<instance>, <pricing>"``.
INSTANCE_PRICES: Mapping[str, InstancePrice] = MappingProxyType({row.key: row for row in _PRICE_ENTRIES})
