"""The chapter as PDFs, printed from the built HTML by headless Chromium (Playwright), offline.

    python tools/pdf.py                 # both: dist/scalability-by-the-numbers.pdf (instructor) and -student.pdf
    python tools/pdf.py --edition full  # one of them

Why this route: Chromium is already installed for the browser tests and prints what the reader sees, with the
same sources and the same renderer: MathJax's equations, the sliders at their default frame (the saved widgets
drawn by the page's own scripts), tables and figures, under the print styles of site_assets/print.css. A LaTeX
route (Sphinx's latex builder) would need Debian's TeX packages (several hundred MB), cannot draw the widgets
and renders the notebooks' HTML outputs (the tables) poorly.

Each page is printed on its own (one tab, ready when ``tests/site_pages.READY_JS`` says so), then the parts are
joined with pypdf behind a title page and a table of contents whose page numbers are read from the joined
document, each page numbered at its foot, with a bookmark per section. The instructor's PDF prints each section
without its solutions and gathers them in an appendix, section by section; the student's PDF is printed from the
student edition's site (``make student``), which holds no solution.
"""

from __future__ import annotations

import argparse
import html as htmlmod
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import site_pages  # noqa: E402

DIST = ROOT / "dist"
EDITIONS = {
    "full": {"site": ROOT / "_build" / "html", "out": DIST / "scalability-by-the-numbers.pdf",
             "subtitle": "Instructor's edition, with the solutions in an appendix"},
    "student": {"site": ROOT / "_build" / "student" / "_build" / "html",
                "out": DIST / "scalability-by-the-numbers-student.pdf", "subtitle": "Student edition"},
}
#: Pages of the PDF after the sections (the table of contents lists them too).
BACK_MATTER = ["book/glossary.html", "book/bibliography.html"]
MARGINS = {"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"}

# The body of a section without its solutions (the instructor's PDF prints them in the appendix).
HIDE_SOLUTIONS_CSS = "div.solution { display: none !important; }"
# Only the section's title and its solutions, each opened, under the exercise it answers.
SOLUTIONS_ONLY_JS = """() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const title = article.querySelector('h1').textContent.replace('#', '').trim();
  const solutions = [...article.querySelectorAll('div.solution')];
  if (!solutions.length) return 0;
  const box = document.createElement('section');
  const h = document.createElement('h1');
  h.textContent = 'Solutions to ' + title;
  box.appendChild(h);
  for (const s of solutions) {
    s.classList.remove('dropdown'); s.classList.add('sl-open');
    s.querySelectorAll('.toggle-hidden, .toggle-details').forEach(el => el.classList.remove('toggle-hidden'));
    box.appendChild(s);
  }
  article.replaceChildren(box);
  return solutions.length;
}"""
SHOW_ALL_CSS = """div.solution, div.solution * { display: revert !important; visibility: visible !important; }
div.solution .toggle-button { display: none !important; } div.solution { break-inside: auto; }"""


def _sections(site: Path) -> list[str]:
    return [p for p in site_pages.book_pages() if (site / p).exists() and "/03-" in p]


def _print(page, css: str = "") -> bytes:
    if css:
        page.add_style_tag(content=css)
    page.emulate_media(media="print")
    return page.pdf(format="A4", margin=MARGINS, print_background=True, prefer_css_page_size=True)


def _html_pdf(context, markup: str, margin: dict | None = None) -> bytes:
    page = context.new_page()
    try:
        page.set_content(markup, wait_until="load")
        return page.pdf(format="A4", margin=MARGINS if margin is None else margin, print_background=True)
    finally:
        page.close()


def _title(config: dict, subtitle: str) -> str:
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font-family: sans-serif; margin-top: 35%; text-align: center; }} h1 {{ font-size: 30pt; }}
p {{ font-size: 13pt; color: #333; }}</style></head><body><h1>{htmlmod.escape(config['title'])}</h1>
<p>Chapter 3 of a book on scale-out AI</p><p>{htmlmod.escape(subtitle)}</p>
<p>{htmlmod.escape(config['author'])}, {config['copyright']}</p>
<p style="margin-top:30%;font-size:10pt">Text and figures: CC BY 4.0. Code: MIT. See LICENSE.</p></body></html>"""


def _contents(entries: list[tuple[str, int, int]]) -> str:
    rows = "".join(f'<tr class="l{level}"><td>{htmlmod.escape(title)}</td><td class="n">{number}</td></tr>'
                   for title, level, number in entries)
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font-family: sans-serif; font-size: 10.5pt; }} table {{ width: 100%; border-collapse: collapse; }}
td {{ padding: 2px 0; }} td.n {{ text-align: right; width: 3em; }} tr.l0 td {{ font-weight: bold; padding-top: 8px; }}
tr.l1 td:first-child {{ padding-left: 1.5em; }}</style></head><body><h1>Contents</h1><table>{rows}</table></body></html>"""


def _numbers(count: int, skip: int) -> str:
    pages = "".join(f'<div class="p"><span>{i - skip + 1 if i >= skip else ""}</span></div>' for i in range(count))
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>@page {{ size: A4; margin: 0; }}
body {{ margin: 0; font-family: sans-serif; font-size: 9pt; color: #444; }}
.p {{ height: 297mm; position: relative; break-after: page; }}
.p span {{ position: absolute; bottom: 8mm; width: 100%; text-align: center; }}</style></head><body>{pages}</body></html>"""


def _subsections(reader, headings: list[str]) -> list[tuple[str, int]]:
    """The numbered subsection headings of a part ("3.4.2 Title (Beginner)"), each with the page (0-based, in the
    part) where a line starts with its number."""
    import re

    texts = [page.extract_text() or "" for page in reader.pages]
    found = []
    for heading in headings:
        number = re.match(r"(3\.[1-9]\.\d+) ", heading)
        if not number:
            continue
        line = re.compile(rf"(?m)^{re.escape(number.group(1))} ")
        page = next((i for i, text in enumerate(texts) if line.search(text)), None)
        if page is not None:
            found.append((heading, page))
    return found


def build(edition: str) -> Path:
    import yaml
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    spec = EDITIONS[edition]
    site = spec["site"]
    if not (site / "index.html").exists():
        raise SystemExit(f"pdf: no built site in {site} (run `make {'book' if edition == 'full' else 'student'}`)")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    site_pages.SITE = site
    url, server = site_pages.serve_site()
    parts: list[tuple[str, bytes]] = []        # (bookmark title, pdf)
    appendix: list[tuple[str, bytes]] = []
    headings: dict[str, list[str]] = {}
    start = time.perf_counter()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=site_pages.chromium(), args=site_pages.CHROMIUM_FLAGS)
            context = browser.new_context(viewport=site_pages.LAPTOP)
            context.set_default_timeout(180_000)       # a busy machine: a page may take a while to draw
            for name in _sections(site) + [p for p in BACK_MATTER if (site / p).exists()]:
                page, _ = site_pages.open_page(context, url, name)
                page.evaluate("() => { document.documentElement.dataset.theme = 'light'; "
                              "document.documentElement.dataset.mode = 'light'; }")
                title = page.evaluate("() => document.querySelector('article h1, main h1').textContent"
                                      ".replace('#', '').trim()")
                headings[title] = page.evaluate("() => [...document.querySelectorAll('article h2, main h2')]"
                                                ".map(h => h.textContent.replace('#', '').trim())")
                parts.append((title, _print(page, HIDE_SOLUTIONS_CSS if edition == "full" else "")))
                if edition == "full" and page.evaluate(SOLUTIONS_ONLY_JS):
                    page.evaluate(site_pages.READY_JS)
                    appendix.append((f"Solutions to {title}", _print(page, SHOW_ALL_CSS)))
                page.close()
                print(f"pdf: {edition}: printed {name}", flush=True)
            title_pdf = _html_pdf(context, _title(config, spec["subtitle"]))
            # the table of contents: its length first (its page numbers do not change its length), then for real
            readers = [(t, PdfReader(io.BytesIO(b)), level) for t, b, level in
                       [(t, b, 0) for t, b in parts] + [(t, b, 0) for t, b in appendix]]
            entries_of = []
            for title, reader, _level in readers:
                subs = _subsections(reader, headings.get(title, []))
                entries_of.append((title, len(reader.pages), subs))

            def numbered(first: int) -> list[tuple[str, int, int]]:
                out, at = [], first
                for title, length, subs in entries_of:
                    out.append((title, 0, at))
                    out += [(sub, 1, at + offset) for sub, offset in subs]
                    at += length
                return out

            draft = _html_pdf(context, _contents(numbered(1)))
            toc_pages = len(PdfReader(io.BytesIO(draft)).pages)
            front = 1 + toc_pages
            contents = _html_pdf(context, _contents(numbered(1)))
            writer = PdfWriter()
            for blob in (title_pdf, contents):
                writer.append(PdfReader(io.BytesIO(blob)))
            at = front
            for (title, reader, _level), (_t, length, subs) in zip(readers, entries_of):
                writer.append(reader)
                parent = writer.add_outline_item(title=title, page_number=at)
                for sub, offset in subs:
                    writer.add_outline_item(title=sub, page_number=at + offset, parent=parent)
                at += length
            total = len(writer.pages)
            numbers = PdfReader(io.BytesIO(_html_pdf(context, _numbers(total, front), margin={})))
            for i in range(front, total):
                writer.pages[i].merge_page(numbers.pages[i])
            context.close()
            browser.close()
    finally:
        server.shutdown()
    # the page numbers printed count from the first page after the table of contents; so do the contents' numbers
    writer.add_metadata({"/Title": config["title"] + (" (student edition)" if edition == "student" else ""),
                         "/Author": config["author"], "/Subject": "Text and figures CC BY 4.0; code MIT"})
    # Each section was printed on its own, so the parts repeat the same fonts and glyphs: share them, and
    # compress the pages' drawing streams (a third of the size, nothing dropped)
    for page in writer.pages:
        page.compress_content_streams(level=9)
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    DIST.mkdir(exist_ok=True)
    with open(spec["out"], "wb") as handle:
        writer.write(handle)
    print(f"pdf: wrote {spec['out'].relative_to(ROOT)}: {total} pages, {spec['out'].stat().st_size / 1e6:.1f} MB, "
          f"in {time.perf_counter() - start:.0f} s")
    return spec["out"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", choices=["full", "student", "both"], default="both")
    args = parser.parse_args()
    for edition in (["full", "student"] if args.edition == "both" else [args.edition]):
        build(edition)
    return 0


if __name__ == "__main__":
    sys.exit(main())
