"""The shape every section notebook must have: checked from the stored notebooks, without running them
(nbval runs them; see `make nbval`)."""

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from scalinglib.exercises import registered_keys

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = sorted(BOOK.glob("03-*.ipynb"))
WIDGET_CALLS = ("slider_figure(", "slider_html(")


def _section(path: Path) -> str:
    major, minor = path.name.split("-")[:2]
    return f"{int(major)}.{int(minor)}"


def _load(path):
    return nbformat.read(path, as_version=4)


def _outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        else:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_every_section_notebook_is_in_the_toc_and_back():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [ch["file"] for ch in toc.get("chapters", [])]
    for path in NOTEBOOKS:
        assert f"book/{path.stem}" in files, f"{path.name} is missing from _toc.yml"
    for entry in files:
        if entry.startswith("book/reference/"):        # written from the library by every build
            continue
        assert any((ROOT / (entry + ext)).exists() for ext in (".ipynb", ".md")), entry


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_title_label_and_closing_sections(path):
    nb = _load(path)
    first = nb.cells[0].source
    section = _section(path)
    assert first.startswith(f"(sec-{section.replace('.', '-')})=\n# {section} "), first[:80]
    headings = [line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("## ")]
    assert "## What carries forward" in headings and headings[-1] == "## Exercises"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_was_executed_and_saved(path):
    for cell in _load(path).cells:
        if cell.cell_type == "code":
            assert cell.get("execution_count") is not None, f"unexecuted cell in {path.name}: {cell.source[:60]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_widget_cells_are_excluded_from_nbval(path):
    for cell in _load(path).cells:
        if cell.cell_type == "code" and any(call in cell.source for call in WIDGET_CALLS):
            assert "nbval-ignore-output" in cell.metadata.get("tags", []), cell.source[:80]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_has_alt_text_and_caption(path):
    for cell in _load(path).cells:
        if cell.cell_type != "code":
            continue
        has_png = any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
        if has_png:
            meta = cell.metadata.get("mystnb", {})
            assert meta.get("image", {}).get("alt", "").strip(), f"figure without alt text: {cell.source[:60]}"
            assert meta.get("figure", {}).get("caption", "").strip(), f"figure without caption: {cell.source[:60]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_exercises_are_numbered_and_have_gated_solutions(path):
    nb = _load(path)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    prefix = "ex-" + _section(path).replace(".", "-")
    labels = re.findall(r"```\{exercise\}[^\n]*\n:label: (ex-[\d-]+)", text)
    assert labels, f"{path.name} has no exercises"
    assert labels == [f"{prefix}-{i}" for i in range(1, len(labels) + 1)], labels
    starts = re.findall(r"```\{solution-start\} (ex-[\d-]+)\n:class: dropdown", text)
    assert starts == labels, "every exercise needs a folded gated solution, in order"
    assert text.count("```{solution-end}") == len(labels)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_check_appears_unanswered_and_solved(path):
    """Each registered part of the section shows up in the stored outputs twice: not answered yet in the
    reader's cell, and correct in the solution."""
    nb = _load(path)
    outputs = "\n".join(_outputs_text(c) for c in nb.cells if c.cell_type == "code")
    prefix = "ex-" + _section(path).replace(".", "-") + "-"
    keys = [k for k in registered_keys() if k.startswith(prefix)]
    assert keys, f"no exercise checks registered for {path.name}"
    for key in keys:
        assert f"… {key}: not answered yet" in outputs, f"{key}: no answer cell shows it"
        assert f"✔ {key}:" in outputs, f"{key}: the solution does not pass its own check"
    assert "Traceback" not in outputs and "Error" not in outputs


def _svgs(nb):
    """Every figure a notebook shows, as SVG markup: figure outputs (data URIs in their HTML) and slider
    frames (inline in the widget state), each with the text where its style classes are defined."""
    import base64

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            for match in re.finditer(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", html):
                svg = base64.b64decode(match.group(1)).decode("utf-8")
                yield svg, svg
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    values = [m.get("state", {}).get("value", "") for m in state.values()]
    values = [v for v in values if isinstance(v, str)]
    styles = "\n".join(values)                      # a panel's <style> may sit in another widget of the page
    for value in values:
        for match in re.finditer(r"<svg\b.*?</svg>", value, flags=re.S):
            yield match.group(0), styles


def _fill_of(css_class, styles):
    match = re.search(r"\." + re.escape(css_class) + r"\{([^}]*)\}", styles)
    fill = re.search(r"fill:\s*([^;]+)", match.group(1)) if match else None
    return fill.group(1).strip().lower() if fill else None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_figures_are_opaque_on_white_for_the_dark_theme(path):
    """A figure without its white background would put black axis labels on the dark theme's dark page
    (the dark theme inverts an opaque white figure instead): every figure's first shape fills its whole
    canvas in white."""
    count = 0
    for svg, styles in _svgs(_load(path)):
        box = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg)
        assert box, f"{path.name}: a figure without a viewBox"
        width, height = (float(v) for v in box.groups())
        first = re.search(r"<(path|rect)\b([^>]*)>", svg)
        assert first, f"{path.name}: a figure without shapes"
        attrs = first.group(2)
        numbers = [float(v) for v in re.findall(r"-?[0-9.]+", re.search(r'd="([^"]*)"', attrs).group(1))] \
            if 'd="' in attrs else []
        covers = numbers[:2] == [0.0, height] and width in numbers and height in map(abs, numbers)
        klass = re.search(r'class="([^"]+)"', attrs)
        inline = re.search(r'fill:\s*([^;"]+)', attrs)
        fill = inline.group(1).strip().lower() if inline else _fill_of(klass.group(1), styles) if klass else None
        assert covers and fill in ("#ffffff", "#fff", "white"), \
            f"{path.name}: a figure's first shape is not a white background over its canvas: {first.group(0)[:160]}"
        count += 1
    assert count > 0, f"{path.name}: no figure found"
