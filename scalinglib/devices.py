r"""The device model of the hardware catalog (Sections 3.2, 3.7 and 3.9).

This module holds the classes that describe hardware and the look-up by name;
:mod:`scalinglib.catalog` fills them from the data files shipped with the
library (and from a reader's own file, :func:`scalinglib.load_devices`).

Each :class:`Accelerator` records what the vendor publishes for one device,
turned into SI units so that the rest of the library can use the numbers
directly:

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
  URL, and ``dates`` to the day it was read; ``notes`` records derivations and
  any disagreement between sources.

The ridge point of the roofline model (Section 3.7) is the arithmetic
intensity at which a kernel stops being limited by memory:

.. math:: I^{*} = \frac{P}{B}\quad[\text{FLOP/byte}]

for peak rate P (FLOP/s) and memory bandwidth B (bytes/s).

A :class:`Link` is one network link of the bandwidth hierarchy of Section 3.2
(PCIe, NVLink, InfiniBand, Ethernet), again in bytes/s per direction, with its
source. An :class:`InstancePrice` is one published hourly price of a cloud
server of accelerators (Sections 3.2 and 3.9), with its source and the date it
applied: prices are dated facts, not constants.

Peaks are what the silicon can do under ideal conditions; sustained rates on
real kernels are lower (Section 3.9 calls the ratio MFU).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from ._validate import check_choice, check_positive, public, single, single_whole

__all__ = [
    "PRECISIONS",
    "KINDS",
    "NUMERIC_FIELDS",
    "LINK_SCOPES",
    "PRICINGS",
    "Accelerator",
    "Link",
    "InstancePrice",
    "get_accelerator",
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

#: How an hourly price was offered.
PRICINGS: tuple[str, ...] = ("on-demand", "capacity block")


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
    described in the module documentation of :mod:`scalinglib.devices`.

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
    dates : mapping of str to str, optional
        Field name -> the day the figure was read from its source, written
        ``YYYY-MM-DD`` (or ``YYYY-MM``, ``YYYY``).

    Raises
    ------
    ValueError
        A number out of range, an unknown precision or kind, a source or date
        for a field that does not exist, or a date not written as above.
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
    dates: Mapping[str, str] = field(default_factory=dict, hash=False, repr=False)

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
        if not isinstance(self.dates, Mapping):
            raise TypeError(f"dates must be a mapping of field name to date; got {_describe(self.dates)}")
        for key in self.dates:
            if key not in names:
                raise ValueError(f"dates keys must be field names ({', '.join(names)}); got {_describe(key)}")
        set_(self, "dates", MappingProxyType({key: check_date(f"dates[{key!r}]", value)
                                              for key, value in self.dates.items()}))

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
    date : str, optional
        The day the figure was read from its source, ``YYYY-MM-DD`` (or
        ``YYYY-MM``, ``YYYY``); empty when not given.

    Examples
    --------
    >>> from scalinglib import LINKS
    >>> LINKS["InfiniBand NDR"].bandwidth / 1e9
    50.0
    """

    name: str
    bandwidth: float
    scope: str
    source: str
    notes: str = field(default="", repr=False)
    date: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _text("name", self.name))
        object.__setattr__(self, "bandwidth", _positive_number("bandwidth", self.bandwidth))
        object.__setattr__(self, "scope", check_choice("scope", self.scope, LINK_SCOPES))
        _text("source", self.source)
        _text("notes", self.notes, allow_empty=True)
        if self.date != "":
            object.__setattr__(self, "date", check_date("date", self.date))


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
        from the catalog entry ``chip`` (the 40 GB A100); default: the
        catalog's (see :attr:`memory_bandwidth`).
    as_of : str, optional
        When the price applied, as a reader should quote it: a date written
        ``YYYY-MM-DD`` (or ``YYYY-MM``, ``YYYY``), preceded by ``"until "`` for
        a price list that stopped applying that day (``"until 2025-01-01"``).
        Prices of different dates should not be compared without saying so.

    Examples
    --------
    >>> from scalinglib.catalog import INSTANCE_PRICES
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
        if self.as_of != "":
            object.__setattr__(self, "as_of", check_date("as_of", self.as_of, until=True))
        if self.device_memory_bandwidth is not None:
            object.__setattr__(self, "device_memory_bandwidth",
                               _positive_number("device_memory_bandwidth", self.device_memory_bandwidth))

    @property
    def key(self) -> str:
        """The row's name in :data:`scalinglib.catalog.INSTANCE_PRICES`: instance and pricing."""
        return f"{self.instance}, {self.pricing}"

    @property
    def usd_per_device_hour(self) -> float:
        """Dollars per accelerator-hour: the instance's price over its accelerators."""
        return self.usd_per_hour / self.devices

    def peak(self, precision: str = "bf16") -> float:
        """Dense peak FLOP/s of one accelerator at ``precision``, from the catalog entry ``chip``."""
        return get_accelerator(self.chip).peak(precision)

    @property
    def memory_bandwidth(self) -> float:
        """Memory bandwidth of one accelerator, bytes/s: ``device_memory_bandwidth`` if the row gives it,
        else the catalog entry ``chip``'s."""
        if self.device_memory_bandwidth is not None:
            return self.device_memory_bandwidth
        return get_accelerator(self.chip).memory_bandwidth



# --- dates ---------------------------------------------------------------------------------------

_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def check_date(name: str, value: Any, *, until: bool = False) -> str:
    """A date written ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY`` (a TOML date too), returned as that string.

    ``until=True`` also accepts ``"until YYYY-MM-DD"``: a price list that stopped applying that day.
    """
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value.isoformat()
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a date written YYYY-MM-DD (or YYYY-MM, YYYY); got {_describe(value)}")
    text = value[len("until "):] if until and value.startswith("until ") else value
    match = _DATE.fullmatch(text)
    ok = match is not None
    if ok:
        year, month, day = (int(g) if g else 1 for g in match.groups())
        try:
            datetime.date(year, month, day)
        except ValueError:
            ok = False
    if not ok or not 1900 <= year <= 2100:
        allowed = "YYYY-MM-DD (or YYYY-MM, YYYY" + (', each may follow "until "' if until else "") + ")"
        raise ValueError(f"{name} must be a date between 1900 and 2100 written {allowed}; got {_describe(value)}")
    return value


# --- look-ups -----------------------------------------------------------------------------------


def _key(text: str) -> str:
    """Lower case with everything but letters and digits removed: 'H100-SXM 80GB' -> 'h100sxm80gb'."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


#: Every device :func:`get_accelerator` knows, by name: the built-in catalog first, then the devices
#: a reader loaded (:func:`scalinglib.load_devices`). Filled by :mod:`scalinglib.catalog`.
_REGISTRY: dict[str, Accelerator] = {}
#: Spelling key (:func:`_key`) of every name and alias -> the device's name.
_LOOKUP: dict[str, str] = {}
#: Names of the built-in devices, which a reader's file may not replace.
_BUILT_IN: set[str] = set()


def _register(devices, aliases: Mapping[str, tuple[str, ...]], *, built_in: bool) -> None:
    """Add devices (and their extra spellings) to the look-up; a reader's device may replace one they loaded.

    Raises ValueError, before anything is added, when a reader's device would shadow a built-in one.
    """
    keys = {}
    for device in devices:
        for spelling in (device.name, *aliases.get(device.name, ())):
            key = _key(spelling)
            owner = _LOOKUP.get(key)
            if not built_in and owner in _BUILT_IN:
                raise ValueError(f"name {spelling!r} is taken by the built-in catalog's {owner!r}; "
                                 f"give the device another name")
            if key in keys and keys[key] != device.name:
                raise ValueError(f"name {spelling!r} is given to two devices, {keys[key]!r} and {device.name!r}")
            keys[key] = device.name
    for device in devices:
        _REGISTRY.pop(device.name, None)      # a device loaded again moves to the end, with its new figures
        _REGISTRY[device.name] = device
        if built_in:
            _BUILT_IN.add(device.name)
    _LOOKUP.update(keys)


@public
def get_accelerator(name: str | Accelerator) -> Accelerator:
    """Look up an accelerator by name: one of :data:`scalinglib.CATALOG` or one loaded from a file.

    Matching ignores case, spaces, hyphens and other punctuation, so
    ``"h100-sxm-80gb"`` finds ``"H100 SXM 80GB"``. A few short aliases are
    accepted too: ``"A100"``, ``"H100"`` and ``"H200"`` mean the SXM variants
    of the catalog, ``"v4"``, ``"v5e"`` and ``"v5p"`` the TPUs. Devices read
    with :func:`scalinglib.load_devices` are found the same way. An
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
        Unknown name; the message lists the names known.
    TypeError
        ``name`` is neither a string nor an Accelerator.

    Examples
    --------
    >>> get_accelerator("h100 sxm 80gb").name
    'H100 SXM 80GB'
    >>> get_accelerator("TPU-v5e").memory_bandwidth / 1e9
    819.0
    >>> get_accelerator("B200")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: name must be one of 'A100 SXM 80GB', 'H100 SXM 80GB', 'H200 SXM 141GB', 'MI300X', 'TPU v4', 'TPU v5e', 'TPU v5p'...; got 'B200'
    """
    if isinstance(name, Accelerator):
        return name
    if not isinstance(name, str):
        raise TypeError(f"name must be a string naming an accelerator or an Accelerator; got {_describe(name)}")
    found = _LOOKUP.get(_key(name))
    if found is None:
        raise ValueError(f"name must be one of {', '.join(map(repr, _REGISTRY))}; got {_describe(name)}")
    return _REGISTRY[found]
