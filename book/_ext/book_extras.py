"""Small fixes and additions to the HTML build, kept in one local Sphinx extension.

* Script de-duplication: Jupyter Book 1 registers some inline scripts twice per
  page (the thebe and togglebutton settings). A repeated ``const`` declaration
  is a script error in the browser, so identical script entries are dropped.
* ``{exercise-index}``: a directive that lists every exercise of the book, by
  section, with its difficulty and a link, filled in from sphinx-exercise's
  registry when pages are written, so a new exercise appears there by itself.
* Launch buttons appear only when ``repository.url`` is set in ``_config.yml``.
* Glossary links: the first use of each glossary term on a page becomes a link
  to its definition. Which phrases count as a use of a term is configured in
  ``glossary_autolink`` (term -> list of phrases) in ``_config.yml``.
* Exercise titles read "Exercise 3.3.1 · Which regime? (Beginner)" (sphinx-exercise
  wraps the title in a second pair of parentheses), and a solution's bar reads
  "Solution to 3.3.1", linked to its exercise, instead of repeating the title.
* Figures shown by ``scalinglib.plots.figure_html`` carry the alt text written in
  their cell's metadata (``mystnb.image.alt``), as images from notebooks do.
* Exercises answered in the page: under each exercise a field per part, checked in the browser
  by ``vendor/exercises.js`` from sealed answers with the kernel checker's verdicts; the
  exercise index shows which parts the reader has right (answers kept in the browser).
* Citations resolve in a fraction of the time: pybtex looks up its style plugins
  among the installed packages' entry points for every citation (scanning every
  installed distribution each time); the lookup is remembered for the build.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# duplicate scripts


def _script_key(script) -> tuple:
    filename = getattr(script, "filename", script) or ""  # inline scripts: None or ""
    attributes = getattr(script, "attributes", {}) or {}
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen = set()
    unique = []
    for script in scripts:
        key = _script_key(script)
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


# ---------------------------------------------------------------------------------------------
# exercise index

LEVELS = ("Beginner", "Intermediate", "Advanced")
_TITLE = re.compile(r"^\s*(?P<number>\d+(?:\.\d+)*)\s*[·:-]?\s*(?P<topic>.*?)\s*(?:\((?P<level>[A-Za-z]+)\))?\s*$")


class exercise_index_placeholder(nodes.General, nodes.Element):
    """Replaced by the list of exercises when the page is written."""


class ExerciseIndexDirective(SphinxDirective):
    has_content = False

    def run(self):
        return [exercise_index_placeholder()]


def _exercise_rows(env):
    registry = getattr(env, "sphinx_exercise_registry", {}) or {}
    rows = []
    for label, entry in registry.items():
        if entry.get("type") not in ("exercise", "exercise-start"):
            continue
        node = entry["node"]
        subtitle = next((n.astext() for n in node.findall() if type(n).__name__ == "exercise_subtitle"), label)
        match = _TITLE.match(subtitle)
        number, topic, level = (match.group("number"), match.group("topic"), match.group("level")) if match \
            else ("", subtitle, None)
        key = tuple(int(p) for p in number.split(".")) if number else (999,)
        rows.append((entry["docname"], key, label, number, topic, level or ""))
    return sorted(rows, key=lambda r: (r[1], r[0]))


def _paragraph(*children):
    para = nodes.paragraph()
    for child in children:
        para += child
    return para


def fill_exercise_index(app, doctree, fromdocname):
    placeholders = list(doctree.findall(exercise_index_placeholder))
    if not placeholders:
        return
    rows = _exercise_rows(app.env)
    for placeholder in placeholders:
        content = []
        by_doc = {}
        for row in rows:
            by_doc.setdefault(row[0], []).append(row)
        for docname in sorted(by_doc, key=lambda d: by_doc[d][0][1]):
            title = app.env.titles[docname].astext() if docname in app.env.titles else docname
            section = nodes.rubric(text=title)
            table = nodes.table(classes=["exercise-index"])
            group = nodes.tgroup(cols=3)
            table += group
            progress = _sealed_table(app) if app.builder.format == "html" else None
            headings = ("Exercise", "Topic", "Level") + (("Your answers",) if progress else ())
            group["cols"] = len(headings)
            for width in (12, 60, 18, 24)[:len(headings)]:
                group += nodes.colspec(colwidth=width)
            head = nodes.thead()
            head += nodes.row("", *[nodes.entry("", _paragraph(nodes.Text(h))) for h in headings])
            group += head
            body = nodes.tbody()
            for _, _, label, number, topic, level in by_doc[docname]:
                ref = nodes.reference("", number or label, internal=True,
                                      refuri=app.builder.get_relative_uri(fromdocname, docname) + "#" + label)
                body += nodes.row(
                    "",
                    nodes.entry("", _paragraph(ref)),
                    nodes.entry("", _paragraph(nodes.Text(topic))),
                    nodes.entry("", _paragraph(nodes.Text(level))),
                    *([_progress_cell(progress, label)] if progress else []),
                )
            group += body
            content += [section, table]
        total = nodes.paragraph(text=f"{len(rows)} exercises in {len(by_doc)} sections.")
        clear = [nodes.raw("", '<p><button type="button" class="sl-clear-all" hidden>Clear all my answers '
                               'kept in this browser</button></p>', format="html")] if app.builder.format == "html" else []
        placeholder.replace_self([total, *clear, *content])


# ---------------------------------------------------------------------------------------------
# answering exercises in the page

# Under each exercise, a field per part (``data-part``) with a Check button and a verdict
# (``data-verdict-for``, announced by screen readers). The verdicts are the kernel checker's,
# computed in the browser by ``vendor/exercises.js`` from the page's sealed data
# (``scalinglib.exercises.core.page_data``): salted hashes of the answers, never the answers.
# The parts of an exercise are read from the sealed table (every part registered under the
# exercise's label plus a letter), so a new part gets its field by itself. The table is the one the
# build writes for both editions (config ``exercise_sealed_table``; tools/build_book.py), or, if
# none is named, sealed afresh from the library.

EXERCISE_JS = "../vendor/exercises.js"
EXERCISE_CSS = "../vendor/exercises.css"
_EXERCISE_LABEL = re.compile(r"^ex-\d+-\d+-\d+$")


def _checker_core():
    """scalinglib's checker module, loaded on its own (only the standard library): the build needs its
    generic code, not the whole library. ``exercises/core.py`` and the modules it imports (units, seals,
    ...) are loaded as a package of their own, without ``exercises/__init__.py``, which registers every
    section's parts from the library."""
    import importlib
    import importlib.util
    import sys
    import types

    name = "_book_extras_checker"
    if name not in sys.modules:
        package = importlib.util.find_spec("scalinglib")
        checker = types.ModuleType(name)
        checker.__path__ = [f"{package.submodule_search_locations[0]}/exercises"]
        sys.modules[name] = checker
    return importlib.import_module(f"{name}.core")


def _sealed_table(app) -> dict:
    table = getattr(app, "_sealed_exercises", None)
    if table is None:
        import json
        from pathlib import Path

        path = app.config.exercise_sealed_table
        if path:
            table = json.loads(Path(path).read_text())
        else:
            from scalinglib.exercises import core

            table = core.seal_all(pad=True)
        app._sealed_exercises = table
    return table


def _parts_of(table: dict, label: str) -> list[str]:
    pattern = re.compile(re.escape(label) + "[a-z]")
    return [item["part"]["key"] for item in table["parts"] if pattern.fullmatch(item["part"]["key"])]


def _answer_form(label: str, keys: list[str], data: dict) -> str:
    """The HTML of the fields of one exercise's parts."""
    esc = html.escape
    number = label.removeprefix("ex-").replace("-", ".")
    rows = []
    for key in keys:
        part = data["parts"][key]
        ident = f"sl-{key}"
        how = f'<p class="sl-how" id="{ident}-how">{esc(part["how"])}</p>'
        name = f'({key[-1]}) <code>{esc(key)}</code>'
        button = f'<button type="button" class="sl-check" data-check="{esc(key)}">Check</button>'
        verdict = f'<div class="sl-verdict" data-verdict-for="{esc(key)}" role="status" aria-live="polite"></div>'
        if part["kind"] in ("number", "numbers"):
            field = (f'<label class="sl-label" for="{ident}">{name}</label><div class="sl-row">'
                     f'<input type="text" id="{ident}" data-part="{esc(key)}" aria-describedby="{ident}-how" '
                     f'autocomplete="off" autocapitalize="off" spellcheck="false" enterkeyhint="done">'
                     f'{button}</div>')
        else:
            options = '<option value="">(choose)</option>' + "".join(
                f'<option value="{esc(o)}">{esc(o)}</option>' for o in part["options"])
            n = len(part["entries"])
            selects = []
            for i in range(n):
                item = f"{ident}-{i + 1}"
                text = "answer" if part["kind"] == "choice" else f"item {i + 1}"
                selects.append(f'<span class="sl-item"><label for="{item}">{text}</label> '
                               f'<select id="{item}" data-part="{esc(key)}" data-item="{i + 1}" '
                               f'aria-describedby="{ident}-how">{options}</select></span>')
            field = (f'<fieldset class="sl-choices"><legend class="sl-label">{name}</legend>'
                     f'<div class="sl-row">{"".join(selects)}{button}</div></fieldset>')
        rows.append(f'<div class="sl-part">{field}{how}{verdict}</div>')
    return (f'<form class="sl-answers" data-exercise="{esc(label)}" aria-label="Answers to exercise {number}">'
            f'<p class="sl-title">Check your answers here</p>{"".join(rows)}'
            f'<button type="button" class="sl-clear">Clear my answers to {number}</button></form>')


def add_answer_fields(app, doctree, docname):
    """Under every exercise, a field per part; the page's sealed data once, at its end."""
    if app.builder.format != "html":
        return
    exercises = [node for node in doctree.findall(nodes.Admonition)
                 if "exercise" in node.get("classes", []) and _EXERCISE_LABEL.match(str(node.get("label", "")))]
    if not exercises:
        return
    table = _sealed_table(app)
    found = [(node, node["label"], _parts_of(table, node["label"])) for node in exercises]
    keys = [key for _, _, parts in found for key in parts]
    if not keys:
        return
    import json

    data = _checker_core().page_data(table, keys)
    for node, label, parts in found:
        if parts:
            form = _answer_form(label, parts, data)
            node += nodes.raw("", form, format="html")
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    doctree += nodes.raw("", f'<script type="application/json" id="sl-exercise-data">{text}</script>', format="html")


def _progress_cell(table: dict, label: str):
    """The exercise index's cell saying which parts of ``label`` the reader has right (filled in by the script)."""
    keys = _parts_of(table, label)
    if not keys:
        return nodes.entry("", _paragraph(nodes.Text("")))
    cell = f'<span class="sl-progress" data-progress-parts="{html.escape(" ".join(keys))}">not answered here</span>'
    return nodes.entry("", nodes.raw("", cell, format="html"))


def exercise_assets(app, pagename, templatename, context, doctree):
    """The checker's script and style, on the pages that have answer fields or the exercise index."""
    body = context.get("body") or ""
    if 'class="sl-answers"' in body or "data-progress-parts" in body:
        app.add_css_file(EXERCISE_CSS)
        app.add_js_file(EXERCISE_JS, loading_method="defer")


# ---------------------------------------------------------------------------------------------
# glossary links at first use

SKIP_PARENTS = (
    nodes.title, nodes.subtitle, nodes.rubric, nodes.literal, nodes.literal_block, nodes.math, nodes.math_block,
    nodes.reference, nodes.raw, nodes.caption, nodes.term, nodes.field_name, nodes.image, nodes.citation_reference,
)


def _eligible(text_node) -> bool:
    parent = text_node.parent
    while parent is not None:
        if isinstance(parent, SKIP_PARENTS):
            return False
        classes = parent.get("classes", []) if isinstance(parent, nodes.Element) else []
        if any(c in ("cell_input", "cell_output", "glossary", "toctree-wrapper", "exercise-index") for c in classes):
            return False
        if type(parent).__name__ in ("exercise_title", "exercise_subtitle", "pending_xref", "desc"):
            return False
        parent = parent.parent
    return True


def link_glossary_terms(app, doctree, fromdocname):
    phrases = app.config.glossary_autolink or {}
    if not phrases or fromdocname.startswith("book/reference/"):
        return  # the library reference is looked up, not read through: its terms stay plain text
    std = app.env.get_domain("std")
    targets = {}
    for term, patterns in phrases.items():
        location = std.objects.get(("term", term)) or std.objects.get(("term", term.lower()))
        if location is None:
            logger.warning(f"glossary_autolink names {term!r}, which is not a glossary term", type="book_extras")
            continue
        docname, labelid = location
        if docname == fromdocname:
            continue  # the glossary page itself
        # smartquotes turns "Amdahl's" into "Amdahl’s" in the doctree: let a straight apostrophe match both
        alternatives = "|".join(re.escape(p).replace("'", "['’]") for p in patterns)
        regex = re.compile(r"(?<![\w-])(" + alternatives + r")(?![\w-])", re.IGNORECASE)
        targets[term] = (docname, labelid, regex)
    if not targets:
        return
    for text_node in list(doctree.findall(nodes.Text)):
        if not targets:
            break
        if _eligible(text_node):
            _link_first_uses(text_node, targets, app.builder.get_relative_uri, fromdocname)


def _link_first_uses(text_node, targets, relative_uri, fromdocname):
    """Turn the earliest use of each remaining term in this text into a link, and drop that term."""
    current = text_node
    while targets:
        text = str(current)
        best = None
        for term, (_docname, _labelid, regex) in targets.items():
            match = regex.search(text)
            if match and (best is None or match.start() < best[1].start()):
                best = (term, match)
        if best is None:
            return
        term, match = best
        docname, labelid, _ = targets.pop(term)
        ref = nodes.reference("", match.group(1), internal=True, classes=["glossary-autolink"],
                              refuri=relative_uri(fromdocname, docname) + "#" + labelid,
                              reftitle=f"Glossary: {term}")
        before, after = nodes.Text(text[: match.start()]), nodes.Text(text[match.end():])
        current.parent.replace(current, [n for n in (before, ref, after) if n is ref or str(n)])
        if not str(after):
            return
        current = after


# ---------------------------------------------------------------------------------------------
# exercise and solution titles

_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)+)")


class ShortExerciseTitles(SphinxPostTransform):
    """Run after sphinx-exercise has built its titles (its transforms have priorities 20 and 21).

    sphinx-exercise writes "Exercise (<title>)"; our titles already end in "(Beginner)", so the
    outer parentheses go. A solution's title repeats "Exercise (<title>)" as a link; it becomes the
    exercise's number alone ("Solution to 3.3.1"), still linked.
    """

    default_priority = 25

    def run(self, **kwargs):
        for node in self.document.findall(nodes.Admonition):
            classes = node.get("classes", [])
            if not node.children or not isinstance(node.children[0], nodes.title):
                continue
            title = node.children[0]
            if "exercise" in classes:
                self._unwrap(title)
            elif "solution" in classes:
                self._shorten(node, title)

    @staticmethod
    def _unwrap(title):
        kids = title.children
        if (len(kids) >= 3 and isinstance(kids[1], nodes.Text) and str(kids[1]) == " ("
                and isinstance(kids[-1], nodes.Text) and str(kids[-1]) == ")"):
            title.replace(kids[1], nodes.Text(" "))
            title.remove(title.children[-1])

    @staticmethod
    def _shorten(node, title):
        refs = [child for child in title.children if isinstance(child, nodes.reference)]
        if not refs:
            return
        ref = refs[0]
        match = _NUMBER.match(ref.astext().replace("Exercise", "", 1).lstrip(" ("))
        if not match:
            return
        number = match.group(1)
        ref.children = []
        ref += nodes.Text(number)
        ref["reftitle"] = f"Exercise {number}"
        # the text before the link ("Solution to") keeps a space before the number
        for child in title.children:
            if isinstance(child, nodes.Text) and str(child).endswith("to"):
                title.replace(child, nodes.Text(str(child) + " "))
        node["title"] = f"Solution to {number}"


# ---------------------------------------------------------------------------------------------
# alt text of figures shown as HTML by scalinglib

_ALT = re.compile(r'(<img class="sl-figure-img"[^>]*? alt=")([^"]*)(")')


def figure_alt_from_metadata(app, doctree):
    """Give ``figure_html`` images the alt text of their cell's metadata (``mystnb.image.alt``)."""
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        metadata = cell.get("cell_metadata") or {}
        alt = ((metadata.get("mystnb") or {}).get("image") or {}).get("alt")
        if not alt:
            continue
        escaped = html.escape(str(alt), quote=True)
        for raw in list(cell.findall(nodes.raw)):
            text = raw.astext()
            if "sl-figure-img" not in text:
                continue
            new = _ALT.sub(lambda m, alt_text=escaped: m.group(1) + alt_text + m.group(3), text, count=1)
            raw.replace_self(nodes.raw(new, new, format=raw.get("format", "html"), classes=raw.get("classes", [])))


# ---------------------------------------------------------------------------------------------
# launch buttons only when a repository is named


def launch_buttons_need_a_repository(app, config):
    """Launch buttons point into the book's repository, so they are offered only once
    ``repository.url`` is set in _config.yml; without it the theme would fail to build them."""
    options = config.html_theme_options
    if not options.get("repository_url"):
        options.pop("launch_buttons", None)
        options["use_repository_button"] = False


def remember_pybtex_plugins() -> None:
    """Make pybtex's plugin lookup remember its answers (the same group and name give the same class).

    ``pybtex.plugin._load_entry_point`` reads ``importlib.metadata.entry_points`` on every call, and
    sphinxcontrib-bibtex calls it for every citation: about a second of each build. A plugin found
    once is the same for the whole process; a name not found still raises, and is looked up again.
    """
    import functools

    import pybtex.plugin

    if not hasattr(pybtex.plugin._load_entry_point, "cache_info"):
        pybtex.plugin._load_entry_point = functools.lru_cache(maxsize=None)(pybtex.plugin._load_entry_point)


def use_book_templates(app, config):
    """book/_templates (the layout without the search index on every page) ahead of the theme's own."""
    here = str(Path(__file__).resolve().parent.parent / "_templates")
    if here not in config.templates_path:
        config.templates_path.insert(0, here)


def setup(app):
    remember_pybtex_plugins()
    app.connect("config-inited", launch_buttons_need_a_repository)
    app.connect("config-inited", use_book_templates)
    app.add_config_value("glossary_autolink", {}, "env")
    app.add_config_value("exercise_sealed_table", "", "env")
    app.add_node(exercise_index_placeholder)
    app.add_directive("exercise-index", ExerciseIndexDirective)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("doctree-resolved", fill_exercise_index)
    app.connect("doctree-resolved", add_answer_fields)
    app.connect("html-page-context", exercise_assets)
    app.connect("doctree-resolved", link_glossary_terms)
    app.connect("doctree-read", figure_alt_from_metadata)
    app.add_post_transform(ShortExerciseTitles)
    return {"version": "1.1", "parallel_read_safe": True, "parallel_write_safe": True}
