"""The library reference appendix, written from ``scalinglib`` itself at the start of every build.

When Sphinx reads its configuration, this extension imports ``scalinglib``, finds the module that
defines each name of ``scalinglib.__all__``, and writes ``book/reference/``:

* ``index.md``: what the reference holds and an autosummary table per module;
* ``scalinglib.<module>.md``: one page per module that defines a public name, opening with the
  module's docstring, then each of its public names documented by autodoc from its numpy-style
  docstring (napoleon).

Each public name is documented under its public path, ``scalinglib.NAME`` (``.. currentmodule::
scalinglib``), so its anchor (``#scalinglib.strong_time``) and the links to it stay the same whichever
module holds it.
The notebooks' text links a name as the reader calls it, ``{func}`sl.strong_time```: ``sl.`` is read
as ``scalinglib.``, so the link shows ``sl.strong_time()`` in the book and plain ``sl.strong_time`` in
JupyterLab. The pages follow the modules that exist: split a module and the next build has a page per part.
They are build output (listed in ``.gitignore``); ``_toc.yml`` takes them with a glob. A page is
rewritten only when its text changes, so Sphinx re-reads only what changed.

Docstrings refer to library objects by the module that holds them (``:func:`scalinglib.roofline.
ridge_point```) or by their short name (``:data:`CATALOG```); a reference Sphinx cannot resolve is
looked up again among the objects of this reference by its last name (``scalinglib.ridge_point``,
or a member of the class it appears in) and linked there when exactly one matches.

Run as a script (``python book/_ext/library_reference.py``) it writes the pages and prints the
module map: each module, its lines and its public names.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "book" / "reference"
#: Modules that only gather names defined elsewhere (kept for old import paths): no page of their own.
GATHERING = {"scalinglib", "scalinglib.hardware"}


def _modules():
    import scalinglib

    found = {}
    for info in pkgutil.walk_packages(scalinglib.__path__, "scalinglib."):
        try:
            found[info.name] = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001  (a module that needs something absent here is left out)
            continue
    return found


def _assigned_in(module, name: str) -> bool:
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return False
    return re.search(rf"^{re.escape(name)}\s*(:[^=\n]*)?=", source, re.M) is not None


def public_map() -> dict[str, list[tuple[str, str]]]:
    """{module name: [(public name, kind), ...]} in the order of ``scalinglib.__all__``; kind is an autodoc
    directive (``function``, ``class``) or ``data`` for a table or constant."""
    import scalinglib

    modules = _modules()
    out: dict[str, list[tuple[str, str]]] = {}
    for name in scalinglib.__all__:
        obj = getattr(scalinglib, name)
        if inspect.ismodule(obj):          # a subpackage (sl.labs, sl.figures): its names have their own pages
            continue
        if inspect.isclass(obj):
            home, kind = obj.__module__, "class"
        elif callable(obj) and getattr(obj, "__module__", None):
            home, kind = obj.__module__, "function"
        else:
            kind = "data"
            homes = [m for m, mod in modules.items() if m not in GATHERING and vars(mod).get(name) is obj]
            defining = [m for m in homes if _assigned_in(modules[m], name)]
            home = (defining or homes or ["scalinglib"])[0]
        out.setdefault(home, []).append((name, kind))
    return out


def _data_doc(module_name: str, name: str) -> str:
    """The ``#:`` comment above a table or constant in the module that defines it."""
    from sphinx.pycode import ModuleAnalyzer

    try:
        docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
    except Exception:  # noqa: BLE001
        return ""
    return "\n".join(line for line in docs.get(("", name), []) if line.strip())


def _title(module) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.splitlines()[0].rstrip(".") if doc else ""


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if inspect.isfunction(obj) or (callable(obj) and hasattr(obj, "__wrapped__")):
        return "function"
    return "data"


def module_extras(module_name: str, public: set[str]) -> list[tuple[str, str]]:
    """Names a module exports (its ``__all__``) and defines itself that are not top-level public names:
    documented under the module's own path (``scalinglib.devices.PRECISIONS``)."""
    module = importlib.import_module(module_name)
    out = []
    for name in getattr(module, "__all__", ()):
        if name in public or not hasattr(module, name):
            continue
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        kind = _kind(obj)
        if kind != "data" and getattr(obj, "__module__", module_name) != module_name:
            continue                      # defined elsewhere, re-exported here
        if kind == "data" and not _assigned_in(module, name):
            continue
        out.append((name, kind))
    return out


def _entries(module_name: str, names, current: str) -> list[str]:
    lines = [f".. currentmodule:: {current}", ""]
    for name, kind in names:
        if kind == "data":
            doc = _data_doc(module_name, name) or f"A table or constant of :mod:`{module_name}`."
            lines += [f".. py:data:: {name}", "", *("   " + line for line in doc.splitlines()), ""]
        elif kind == "class":
            lines += [f".. autoclass:: {name}", "   :members:", ""]
        else:
            lines += [f".. autofunction:: {name}", ""]
    return lines


def pages() -> dict[str, str]:
    """{file name: text} of every page of the reference."""
    import scalinglib

    grouped = public_map()
    public = set(scalinglib.__all__)
    # pages also for the modules that gather names (hardware) and the public subpackages (sl.labs, sl.figures):
    # their docstrings say where things are
    subpackages = [f"scalinglib.{n}" for n in scalinglib.__all__ if inspect.ismodule(getattr(scalinglib, n))]
    modules = sorted(set(grouped) | (GATHERING - {"scalinglib"}) | set(subpackages))
    out = {}
    index = [
        "# Library reference",
        "",
        "Every public name of `scalinglib`, the library the notebooks call as `sl`, grouped by the module "
        "that defines it. Each entry is written from the function's own documentation: what it computes, "
        "its parameters and units, what it refuses, and an example that runs. Call any of them as "
        "`sl.NAME` after `import scalinglib as sl`; `help(sl.NAME)` shows the same text in a notebook.",
        "",
    ]
    for module_name in modules:
        module = importlib.import_module(module_name)
        names = grouped.get(module_name, [])
        index += [f"## [`{module_name}`]({module_name}.md)", "", _title(module) + ".", ""]
        callables = [n for n, kind in names if kind != "data"]
        if callables:
            index += ["```{eval-rst}", ".. currentmodule:: scalinglib", "", ".. autosummary::", ""]
            index += [f"   {n}" for n in callables]
            index += ["```", ""]
        # tables and constants: autosummary would show the docstring of their type (dict's), so their own
        # comment's first sentence is listed instead
        tables = [n for n, kind in names if kind == "data"]
        if tables:              # in reStructuredText, as the comments are written
            index += ["```{eval-rst}"]
            for name in tables:
                summary = _data_doc(module_name, name).replace("\n", " ").split(". ")[0].rstrip(".")
                index += [f"* :py:data:`{name} <scalinglib.{name}>`: {summary}."]
            index += ["```", ""]
        body = [f"# `{module_name}`", "", "```{eval-rst}", f".. automodule:: {module_name}", "   :no-members:", ""]
        if names:
            body += _entries(module_name, names, "scalinglib")
        gathered = module_name in GATHERING or module_name in subpackages and not names
        extras = [] if gathered else module_extras(module_name, public)
        if extras:
            body += [".. rubric:: Also in this module", "", *_entries(module_name, extras, module_name)]
        body += ["```", ""]
        out[f"{module_name}.md"] = "\n".join(body)
    out["index.md"] = "\n".join(index)
    return out


def write_pages(out: Path = OUT) -> list[str]:
    """Write the pages that changed and remove those of modules that no longer exist; return the names written."""
    out.mkdir(parents=True, exist_ok=True)
    wanted = pages()
    written = []
    for name, text in wanted.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(name)
    for path in out.glob("*.md"):
        if path.name not in wanted:
            path.unlink()
    return written


# ---------------------------------------------------------------------------------------------
# Sphinx


def _on_config(app, config) -> None:
    write_pages(Path(app.srcdir) / "book" / "reference")


def _resolve_by_last_name(app, env, node, contnode):
    """Link a library reference Sphinx could not resolve to the one documented object of the same last name."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    if target.startswith("sl."):          # the notebooks' name for the library: import scalinglib as sl
        target = "scalinglib." + target[3:]
    if not target or not (target.startswith("scalinglib.") or "." not in target or node.get("py:module", "")
                          .startswith("scalinglib")):
        return None
    domain = env.get_domain("py")
    objects = domain.objects
    last = target.split(".")[-1]
    tail = target.removeprefix("scalinglib.").split(".")
    candidates = []
    owner = node.get("py:class")
    if owner:
        candidates.append(f"scalinglib.{owner}.{last}")
    if len(tail) >= 2:
        candidates.append("scalinglib." + ".".join(tail[-2:]))
    candidates.append(f"scalinglib.{last}")
    for full in candidates:
        if full in objects:
            entry = objects[full]
            return _refnode(app, node, contnode, entry.docname, full)
    suffix = [full for full in objects if full.endswith("." + last) and full.startswith("scalinglib.")]
    if len(suffix) == 1:
        return _refnode(app, node, contnode, objects[suffix[0]].docname, suffix[0])
    return None


def _refnode(app, node, contnode, docname, target):
    from sphinx.util.nodes import make_refnode

    return make_refnode(app.builder, node["refdoc"], docname, target, contnode, target)


_KEPT: dict[int, list[str]] = {}


def _keep_attribute_docstring(app, what, name, obj, options, lines) -> None:
    """Keep an attribute's or property's docstring away from napoleon (priority 400, before napoleon's 500).

    Napoleon reads ``first words: the rest`` on the first line of an attribute docstring as
    ``type: description``; this library writes such lines as prose ("Bytes per GPU: weights, ..."),
    so each would become a type made of links to nowhere. These docstrings hold no numpy sections,
    so the text is put back as written after napoleon (:func:`_restore_attribute_docstring`)."""
    if what in ("attribute", "property"):
        _KEPT[id(lines)] = list(lines)


def _restore_attribute_docstring(app, what, name, obj, options, lines) -> None:
    kept = _KEPT.pop(id(lines), None)
    if kept is not None:
        lines[:] = kept


def setup(app):
    app.connect("config-inited", _on_config, priority=400)
    app.connect("autodoc-process-docstring", _keep_attribute_docstring, priority=400)
    app.connect("autodoc-process-docstring", _restore_attribute_docstring, priority=600)
    app.connect("missing-reference", _resolve_by_last_name)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    print("written:", ", ".join(write_pages()) or "nothing changed")
    for module_name, names in sorted(public_map().items()):
        module = sys.modules[module_name]
        lines = len(Path(module.__file__).read_text().splitlines())
        print(f"{module_name:34s} {lines:5d} lines  {len(names):3d} public: {', '.join(n for n, _ in names)}")
