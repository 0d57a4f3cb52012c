"""The hardware catalog as data: its files, their checks, and a reader's own devices (Sections 3.2, 3.7, 3.9).

The figures of the catalog live in TOML files shipped inside the package, in
``scalinglib/data/``, one table per row, each figure with its source and date:

* ``accelerators.toml``: the accelerators of Sections 3.2, 3.7 and 3.9
  (:data:`CATALOG`), with extra spellings for :func:`get_accelerator`;
* ``links.toml``: the links of the bandwidth hierarchy of Section 3.2
  (:data:`LINKS`);
* ``instance_prices.toml``: dated hourly prices of eight-GPU cloud servers of
  Sections 3.2 and 3.9 (:data:`INSTANCE_PRICES`);
* ``sources.toml``: the documents those rows cite, by key.

This module reads them when the library is imported and refuses a file that
breaks a rule with a ValueError (or TypeError) naming the file, the row, the
field and what it allows. The classes the rows become, and their units, are
those of :mod:`scalinglib.devices`.

A reader adds their own devices from a file of the same form with
:func:`load_devices`; :func:`get_accelerator` then finds them beside the
built-in ones.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from contextlib import contextmanager
from importlib.resources import files
from types import MappingProxyType
from typing import Any

import numpy as np

from ._validate import check_choice, public, renamed
from .devices import (
    NUMERIC_FIELDS,
    PRECISIONS,
    Accelerator,
    InstancePrice,
    Link,
    _describe,
    _key,
    _register,
    check_date,
    get_accelerator,
)

__all__ = ["SOURCES", "CATALOG", "LINKS", "INSTANCE_PRICES", "accelerator_table", "load_devices"]

#: The folder of the data files inside the installed package.
DATA = files("scalinglib") / "data"

#: Keys an ``[[accelerator]]`` table may hold: the fields of :class:`~scalinglib.devices.Accelerator`
#: (``sources`` and ``dates`` per field), plus ``aliases`` and a row-wide ``source`` and ``date``.
ACCELERATOR_KEYS: tuple[str, ...] = (
    "name", "vendor", "kind", "aliases", "peak_flops", "memory_bytes", "memory_bandwidth", "link_bandwidth",
    "link_name", "devices_per_node", "link_domain", "notes", "source", "date", "sources", "dates",
)
LINK_KEYS: tuple[str, ...] = ("name", "bandwidth", "scope", "source", "date", "notes")
PRICE_KEYS: tuple[str, ...] = (
    "instance", "chip", "devices", "device_memory_bytes", "device_memory_bandwidth", "usd_per_hour", "pricing",
    "region", "source", "as_of", "notes",
)


# --- reading and checking ------------------------------------------------------------------------


def _read(path, label: str = "") -> dict:
    """The TOML document at ``path``; an unreadable or malformed file is a ValueError naming it."""
    shown = f"{label}{str(path)!r}"
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ValueError(f"{shown}: no such file") from None
    except OSError as err:
        raise ValueError(f"{shown}: cannot be read ({err.strerror or err})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{shown}: not a valid TOML file ({err})") from None


@contextmanager
def _row(where: str):
    """Prefix any refusal raised inside with the file and row it concerns."""
    try:
        yield
    except (ValueError, TypeError) as err:
        raise type(err)(f"{where}: {err}") from None


def _rows(document: dict, table: str, where: str) -> list:
    rows = document.get(table)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{where}: must hold one or more [[{table}]] tables; got {_describe(rows)}")
    return rows


def _known_keys(row: dict, allowed: tuple[str, ...]) -> None:
    for key in row:
        if key not in allowed:
            raise ValueError(f"{key!r} is not a field of this table; allowed: {', '.join(allowed)}")


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string; got {_describe(value)}")
    if not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    return value


def _cite(name: str, value: Any, sources: Mapping[str, str], strict: bool) -> str:
    """The citation text of a source: a key of :data:`SOURCES` (or ``{ref, detail}``), a list of them,
    or, outside the built-in files (``strict=False``), a citation written out in full."""
    parts = value if isinstance(value, list) and value else [value]
    texts = []
    for part in parts:
        if isinstance(part, dict):
            _known_keys(part, ("ref", "detail"))
            ref, detail = _text(f"{name}.ref", part.get("ref")), _text(f"{name}.detail", part.get("detail"))
        else:
            ref, detail = _text(name, part), None
        if ref in sources:
            text = sources[ref]
        elif strict or detail is not None:
            raise ValueError(f"{name} must be a key of sources.toml ({', '.join(sources)}); got {ref!r}")
        else:
            text = ref
        texts.append(text if detail is None else f"{text} ({detail})")
    return "; ".join(texts)


def _load_sources(path) -> dict[str, str]:
    document = _read(path)
    out = {}
    for key, entry in document.items():
        with _row(f"{path}, [{key}]"):
            if not isinstance(entry, dict):
                raise TypeError(f"must be a table with a text; got {_describe(entry)}")
            _known_keys(entry, ("text", "bib"))
            text = _text("text", entry.get("text"))
            if "http" not in text and "bib" not in entry:
                raise ValueError(f"text must give a URL (or the table a bib key of book/references.bib); got {text!r}")
            if "bib" in entry:
                _text("bib", entry["bib"])
            out[key] = text
    return out


def _accelerator(row: dict, sources: Mapping[str, str], strict: bool) -> tuple[Accelerator, tuple[str, ...]]:
    """One ``[[accelerator]]`` table as an Accelerator and its extra spellings."""
    _known_keys(row, ACCELERATOR_KEYS)
    for required in ("name", "vendor", "kind", "peak_flops", "memory_bytes", "memory_bandwidth"):
        if required not in row:
            raise ValueError(f"{required} is missing; an accelerator needs name, vendor, kind, peak_flops, "
                             "memory_bytes and memory_bandwidth")
    per_field = {"sources": row.get("sources", {}), "dates": row.get("dates", {})}
    for table, given in per_field.items():
        if not isinstance(given, dict):
            raise TypeError(f"{table} must be a table of field name -> value; got {_describe(given)}")
        for key in given:
            if key not in NUMERIC_FIELDS:
                raise ValueError(f"{table} keys must be among {', '.join(NUMERIC_FIELDS)}; got {key!r}")
    cited, dated = {}, {}
    for name in NUMERIC_FIELDS:
        present = name in row
        if name in per_field["sources"]:
            cited[name] = _cite(f"sources.{name}", per_field["sources"][name], sources, strict)
        elif present and "source" in row:
            cited[name] = _cite("source", row["source"], sources, strict)
        elif present or strict:
            raise ValueError(f"{name} has no source: give sources.{name} or a source for the whole row")
        if name in per_field["dates"]:
            dated[name] = check_date(f"dates.{name}", per_field["dates"][name])
        elif name in cited and "date" in row:
            dated[name] = check_date("date", row["date"])
        elif name in cited:
            raise ValueError(f"{name} has no date: give dates.{name} or a date for the whole row (YYYY-MM-DD)")
    aliases = row.get("aliases", [])
    if not isinstance(aliases, list):
        raise TypeError(f"aliases must be a list of strings; got {_describe(aliases)}")
    aliases = tuple(_text(f"aliases[{i}]", a) for i, a in enumerate(aliases))
    fields = {k: v for k, v in row.items() if k not in ("aliases", "source", "date", "sources", "dates")}
    return Accelerator(**fields, sources=cited, dates=dated), aliases


def _accelerators(path, sources: Mapping[str, str], *, strict: bool, label: str = ""):
    where = f"{label}{str(path)!r}" if label else str(path)
    document = _read(path, label)
    extra = [key for key in document if key != "accelerator"]
    if extra:
        raise ValueError(f"{where}: holds [[accelerator]] tables only; got {', '.join(map(repr, extra))}")
    devices, aliases, seen = [], {}, set()
    for i, row in enumerate(_rows(document, "accelerator", where), start=1):
        name = row.get("name")
        with _row(f"{where}, [[accelerator]] {i}" + (f" ({name!r})" if isinstance(name, str) else "")):
            device, spellings = _accelerator(row, sources, strict)
            if _key(device.name) in seen:
                raise ValueError(f"name {device.name!r} is given to an earlier row too")
            seen.add(_key(device.name))
        devices.append(device)
        aliases[device.name] = spellings
    return devices, aliases


def _links(path, sources: Mapping[str, str]) -> list[Link]:
    out = []
    for i, row in enumerate(_rows(_read(path), "link", str(path)), start=1):
        with _row(f"{path}, [[link]] {i}" + (f" ({row['name']!r})" if isinstance(row.get("name"), str) else "")):
            _known_keys(row, LINK_KEYS)
            for required in ("source", "date"):
                if required not in row:
                    raise ValueError(f"{required} is missing; every link gives its source and the date it was read")
            out.append(Link(**{**row, "source": _cite("source", row["source"], sources, True),
                               "date": check_date("date", row["date"])}))
    return out


def _prices(path, sources: Mapping[str, str]) -> list[InstancePrice]:
    out = []
    for i, row in enumerate(_rows(_read(path), "price", str(path)), start=1):
        label = f" ({row['instance']!r})" if isinstance(row.get("instance"), str) else ""
        with _row(f"{path}, [[price]] {i}{label}"):
            _known_keys(row, PRICE_KEYS)
            for required in ("source", "as_of"):
                if required not in row:
                    raise ValueError(f"{required} is missing; every price gives its source and when it applied")
            out.append(InstancePrice(**{**row, "source": _cite("source", row["source"], sources, True)}))
    return out


# --- the built-in catalog -----------------------------------------------------------------------

#: The documents the catalog cites: key of ``sources.toml`` -> citation (title, part and URL).
SOURCES: Mapping[str, str] = MappingProxyType(_load_sources(DATA / "sources.toml"))

_DEVICES, _ALIASES = _accelerators(DATA / "accelerators.toml", SOURCES, strict=True)
#: The accelerators of Sections 3.2, 3.7 and 3.9, by name (``accelerators.toml``).
CATALOG: Mapping[str, Accelerator] = MappingProxyType({a.name: a for a in _DEVICES})
_register(_DEVICES, _ALIASES, built_in=True)

#: Links of the bandwidth hierarchy (Section 3.2), fastest first, in bytes/s per direction (``links.toml``).
LINKS: Mapping[str, Link] = MappingProxyType({link.name: link for link in _links(DATA / "links.toml", SOURCES)})

#: Published hourly prices of eight-GPU cloud servers (Sections 3.2.5 and 3.9.8), by ``"<instance>, <pricing>"``
#: (``instance_prices.toml``).
INSTANCE_PRICES: Mapping[str, InstancePrice] = MappingProxyType(
    {row.key: row for row in _prices(DATA / "instance_prices.toml", SOURCES)})


# --- a reader's own devices ---------------------------------------------------------------------


@public(checked=False)
def load_devices(path) -> Mapping[str, Accelerator]:
    """Read accelerators from a TOML file of your own and add them beside the catalog's.

    The file holds one ``[[accelerator]]`` table per device, with the fields of
    :class:`~scalinglib.devices.Accelerator` in SI units (FLOP/s, bytes,
    bytes/s), a ``source`` (a URL or a document title) and the ``date`` the
    figures were read. After the call, :func:`get_accelerator` and every
    function that takes a device name find the new devices by name. Loading
    a file again replaces the devices it defined before, so a notebook cell
    can be run twice.

    Parameters
    ----------
    path : str or os.PathLike
        The TOML file.

    Returns
    -------
    mapping of str to Accelerator
        The devices read, by name, in the order of the file.

    Raises
    ------
    ValueError
        The file is missing or is not TOML; or a row lacks a required field,
        has a field the table does not know, a number out of range, a field
        without a source or date, or a name the built-in catalog holds. The
        message names the file, the row and the field.
    TypeError
        ``path`` is not a path, or a field has the wrong type.

    Notes
    -----
    A file with one device (an NVIDIA GeForce RTX 4090, from NVIDIA's Ada
    Lovelace architecture whitepaper: dense bf16 tensor rate with FP32
    accumulation, GDDR6X memory):

    .. code-block:: toml

        [[accelerator]]
        name = "RTX 4090"
        vendor = "NVIDIA"
        kind = "GPU"
        peak_flops = { fp32 = 82.6e12, bf16 = 165.2e12 }
        memory_bytes = 24e9
        memory_bandwidth = 1.008e12
        source = "NVIDIA Ada GPU architecture whitepaper, https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
        date = 2026-11-28

    ``sources`` and ``dates`` tables may instead give each field its own
    source and date, as ``scalinglib/data/accelerators.toml`` does; ``aliases``
    lists other spellings of the name.

    Examples
    --------
    The library ships the file above as ``data/example_devices.toml``:

    >>> example = DATA / "example_devices.toml"
    >>> mine = load_devices(example)
    >>> list(mine)
    ['RTX 4090']
    >>> get_accelerator("rtx-4090").ridge_point("bf16")
    163.88888888888889
    >>> load_devices("no_such_file.toml")
    Traceback (most recent call last):
        ...
    ValueError: path 'no_such_file.toml': no such file
    """
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (a str or pathlib.Path); got {_describe(path)}")
    if isinstance(path, str) and not path.strip():
        raise ValueError("path must name a TOML file; got ''")
    devices, aliases = _accelerators(path, SOURCES, strict=False, label="path ")
    try:
        _register(devices, aliases, built_in=False)
    except ValueError as err:
        raise ValueError(f"path {str(path)!r}: {err}") from None
    return MappingProxyType({device.name: device for device in devices})


# --- tables -------------------------------------------------------------------------------------


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


