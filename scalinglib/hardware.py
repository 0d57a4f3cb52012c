"""The hardware catalog of Sections 3.2, 3.7 and 3.9, under one name.

The catalog lives in two modules, by concept:

* :mod:`scalinglib.devices`, the device model: :class:`Accelerator`,
  :class:`Link` and :class:`InstancePrice`, their units and checks, and the
  look-up :func:`get_accelerator`;
* :mod:`scalinglib.catalog`, the catalog as data: the TOML files shipped in
  ``scalinglib/data/`` read into :data:`CATALOG`, :data:`LINKS` and
  :data:`INSTANCE_PRICES`, the table :func:`accelerator_table`, and
  :func:`load_devices` for a reader's own devices.

This module gathers both, so ``scalinglib.hardware.INSTANCE_PRICES`` and
``from scalinglib.hardware import Accelerator`` keep working.
"""

from .catalog import CATALOG, INSTANCE_PRICES, LINKS, SOURCES, accelerator_table, load_devices
from .devices import (
    KINDS,
    LINK_SCOPES,
    NUMERIC_FIELDS,
    PRECISIONS,
    PRICINGS,
    Accelerator,
    InstancePrice,
    Link,
    get_accelerator,
)

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
    "LINK_SCOPES",
    "NUMERIC_FIELDS",
    "SOURCES",
    "load_devices",
]
