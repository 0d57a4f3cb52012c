"""Modules loaded when first used, not when the library is imported."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, executed at the first access to one of its attributes (importlib's LazyLoader).

    networkx takes about a tenth of a second to import and only Section 3.6 builds graphs: every kernel,
    test process and MPI lab that imports the library without drawing a DAG is spared it. An import of
    the module elsewhere returns the same object, so it is executed once either way.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
