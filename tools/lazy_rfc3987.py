"""Defer the one second that ``import jsonschema`` spends building an IRI grammar until an IRI is checked.

``tools/setup_venv.sh`` copies this file into the venv's site-packages with a ``.pth`` line that
imports it at interpreter start.

Why: jsonschema imports ``rfc3987_syntax`` (when installed, as jupyter-events' dependencies install it)
to check the "iri" string format. That module compiles a Lark grammar when imported, about a second
of CPU. Every process that reads a notebook pays it: each pytest process (nbval's plugin imports
nbformat), each Sphinx build, each grading runner, the Jupyter server. None of them checks an IRI.

What it does: a finder answers the first ``import rfc3987_syntax`` with a small stand-in whose
``is_valid_syntax`` (the one name jsonschema takes from it) imports the real package on its first
call and hands over. Any other attribute loads the real package too, so code that uses the package
directly gets it. Nothing else is touched; with the package absent, the import fails as before.
"""

from __future__ import annotations

import importlib
import sys

# Only ``sys`` and ``importlib`` (already loaded at start) are imported here: this file runs in every
# Python process of the venv, and ``importlib.abc`` alone (with ``importlib.resources``) costs 25 ms
# there. The finder and the loader are plain classes; ``importlib.util`` is imported when needed.

NAME = "rfc3987_syntax"


def _real():
    """The real package, imported now (once) and put where the stand-in was."""
    module = sys.modules.get(NAME)
    if module is not None and not getattr(module, "__lazy_stand_in__", False):
        return module
    _Finder.active = False
    sys.modules.pop(NAME, None)
    try:
        return importlib.import_module(NAME)
    finally:
        _Finder.active = True


def is_valid_syntax(term, value):
    return _real().is_valid_syntax(term, value)


class _Finder:
    """A meta path finder and the loader of the stand-in (the import protocol's methods, no base class)."""

    active = True

    def find_spec(self, fullname, path=None, target=None):
        if fullname != NAME or not _Finder.active:
            return None
        import importlib.util
        _Finder.active = False                  # is the real package there at all?
        try:
            found = importlib.util.find_spec(NAME)
        finally:
            _Finder.active = True
        return importlib.util.spec_from_loader(NAME, self) if found is not None else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__lazy_stand_in__ = True
        module.is_valid_syntax = is_valid_syntax
        module.__getattr__ = _attribute


def _attribute(attr):
    # The import machinery probes names such as __path__ (is it a package?): those are not a use.
    if attr.startswith("__") and attr.endswith("__"):
        raise AttributeError(attr)
    return getattr(_real(), attr)


if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
