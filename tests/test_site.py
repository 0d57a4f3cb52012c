"""The built site, opened in a real browser (headless Chromium driven by Playwright).

For every page of the book: nothing is requested from outside the site, no
script of the site logs an error, the math is typeset, every image has loaded
and carries alt text, and every control (slider, drop-down or toggle
buttons), moved as a reader would, shows a different figure; a first visit with an empty cache transfers at most
``FIRST_VISIT_LIMIT`` bytes gzipped; the footer gives the licence. Run after the book is built (``make test`` does both).
The timings and page weights (the page's HTML, each slider's saved widget state, the bytes the browser
fetched, the first visit's gzipped bytes and its heaviest files) go to ``_build/site-report.json``. Controls are sliders, drop-downs and toggle buttons
(``scalinglib.widgets``); each move must change the figure, and each control must do so within
``SLIDER_MS_LIMIT`` in the best of up to ``SLIDER_TRIES`` moves (a machine running other work can stall
one paint; the page's own cost is what the best move shows).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import statistics
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from site_pages import SITE, book_pages

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "_build" / "site-report.json"
# Every frame of a slider is saved in its page; a slider heavier than this needs a smaller grid or smaller frames.
SLIDER_BUDGET_BYTES = 400_000
# A control must show its new figure within this many milliseconds (measured to the next painted frame).
SLIDER_MS_LIMIT = 100
# A control slower than the limit is moved again, up to this many times in all, and its best move counts.
SLIDER_TRIES = 3

# A first visit to any page, with an empty cache, transfers at most this many bytes, gzip-compressed as a web
# server would send them: the page and every file of the site it loads (scripts, styles, fonts, images).
FIRST_VISIT_LIMIT = 1_000_000

PAGES = book_pages()
_report: dict = {"pages": {}}
_gzipped: dict[Path, int] = {}

# Every file the page has loaded (Resource Timing lists each one, whether or not the shared cache of the tabs
# held it already), and the page itself.
LOADED_JS = "() => [location.href, ...performance.getEntriesByType('resource').map(e => e.name)]"


def first_visit_bytes(page, site_url) -> dict[str, int]:
    """The files of the site that ``page`` loaded, each with its size gzip-compressed (level 6, as web servers
    compress by default): what a first visit with an empty cache transfers."""
    sizes = {}
    for url in page.evaluate(LOADED_JS):
        if not url.startswith(site_url):
            continue
        path = SITE / unquote(urlsplit(url).path).lstrip("/")
        if path.is_file():
            if path not in _gzipped:
                _gzipped[path] = len(gzip.compress(path.read_bytes(), 6))
            sizes[str(path.relative_to(SITE))] = _gzipped[path]
    return sizes


@pytest.fixture(scope="module", autouse=True)
def _write_report():
    """The timings and weights the checks of this module record, written when they are done."""
    yield
    if _report["pages"]:
        REPORT.write_text(json.dumps(_report, indent=1))


_WIDGET_STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', re.S)
_MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")


def slider_state_bytes(html: str) -> list[int]:
    """Bytes of saved widget state that each slider widget of a page carries (its frames, stacks, links
    and layouts), in page order: what a reader downloads for that slider."""
    found = _WIDGET_STATE.search(html)
    if not found:
        return []
    state = json.loads(found.group(1))["state"]
    children = {k: set(_MODEL_REF.findall(json.dumps(v["state"]))) for k, v in state.items()}
    referenced = set().union(*children.values())
    roots = [k for k, v in state.items() if v["model_name"] == "VBoxModel" and k not in referenced]
    roots.sort(key=lambda k: html.find(k, found.end()))
    sizes = []
    for root in roots:
        seen, todo = set(), [root]
        while todo:
            k = todo.pop()
            if k not in seen and k in state:
                seen.add(k)
                todo.extend(children[k])
        sizes.append(sum(len(json.dumps(state[k])) for k in seen))
    return sizes


# A frame is a figure (div.sl-frame holding SVG; img.scalinglib-frame in pages built before the SVG frames)
# or an HTML table (div.scalinglib-html-frame); only the frame of the current position is displayed.
FRAMES = "div.sl-frame, img.scalinglib-frame, div.scalinglib-html-frame"
VISIBLE_FRAMES_JS = """(widget) => [...widget.querySelectorAll('FRAMES_PLACEHOLDER')]
    .filter(el => el.offsetParent !== null).map(el => el.src || el.innerHTML)""".replace("FRAMES_PLACEHOLDER", FRAMES)

# The controls of a panel, in order: slider handles, drop-downs and toggle-button groups.
CONTROLS_JS = """(widget) => [...widget.querySelectorAll('.noUi-handle, .widget-dropdown select, .widget-toggle-buttons')]
    .map(el => el.matches('select') ? 'dropdown' : el.matches('.noUi-handle') ? 'slider' : 'buttons')"""

# Moves one control with a real event (a key on a slider handle, a change of a drop-down, a click on
# another toggle button) and times, inside the page, how long until the visible frame changes (polled
# once per animation frame).
MOVE_AND_TIME_JS = """async ([widget, index]) => {
  const controls = [...widget.querySelectorAll('.noUi-handle, .widget-dropdown select, .widget-toggle-buttons')];
  const control = controls[index];
  const visible = () => [...widget.querySelectorAll('FRAMES_PLACEHOLDER')]
      .filter(el => el.offsetParent !== null).map(el => el.src || el.innerHTML).join('|');
  const before = visible();
  const start = performance.now();
  if (control.matches('.noUi-handle')) {
    const atEnd = control.getAttribute('aria-valuenow') === control.getAttribute('aria-valuemax');
    const key = atEnd ? 'Home' : 'ArrowRight', code = atEnd ? 36 : 39;
    control.dispatchEvent(new KeyboardEvent('keydown', {key: key, keyCode: code, which: code, bubbles: true}));
  } else if (control.matches('select')) {
    control.selectedIndex = (control.selectedIndex + 1) % control.options.length;
    control.dispatchEvent(new Event('change', {bubbles: true}));
  } else {
    const buttons = [...control.querySelectorAll('button')];
    const active = buttons.findIndex(b => b.classList.contains('mod-active'));
    buttons[(active + 1) % buttons.length].click();
  }
  while (performance.now() - start < 3000) {
    await new Promise(r => requestAnimationFrame(r));
    if (visible() !== before) return performance.now() - start;
  }
  return -1;
}""".replace("FRAMES_PLACEHOLDER", FRAMES)


def test_index_leads_to_the_introduction(browser, site_url):
    page = browser.new_page()
    try:     # the introduction itself is checked below: here only where the browser is sent
        page.goto(f"{site_url}/index.html", wait_until="commit")
        page.wait_for_url(f"**/{PAGES[0]}", wait_until="commit", timeout=15000)
        assert page.url.endswith(PAGES[0]), page.url
    finally:
        page.close()


@pytest.mark.parametrize("name", PAGES)
def test_page_is_self_contained_and_clean(opened, site_url, name):
    page, watch = opened(name)
    html = (SITE / name).read_text(encoding="utf-8")
    loaded = first_visit_bytes(page, site_url)
    _report["pages"].setdefault(name, {}).update(html_bytes=(SITE / name).stat().st_size,
                                                 slider_state_bytes=slider_state_bytes(html),
                                                 transferred_bytes=watch.bytes,
                                                 first_visit_gzip_bytes=sum(loaded.values()),
                                                 first_visit_files=len(loaded),
                                                 first_visit_heaviest=dict(sorted(loaded.items(), key=lambda kv: -kv[1])[:6]))
    assert sum(loaded.values()) <= FIRST_VISIT_LIMIT, (
        f"a first visit transfers {sum(loaded.values()):,} bytes gzipped (limit {FIRST_VISIT_LIMIT:,}); heaviest: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(loaded.items(), key=lambda kv: -kv[1])[:5]))
    assert "creativecommons.org/licenses/by/4.0" in html, "the page's footer does not give the licence"
    heavy = [size for size in _report["pages"][name]["slider_state_bytes"] if size > SLIDER_BUDGET_BYTES]
    assert not heavy, f"sliders over the {SLIDER_BUDGET_BYTES:,}-byte budget: {heavy}"
    assert watch.outside == [], f"requests leaving the site: {watch.outside}"
    assert watch.failed == [], f"failed requests: {watch.failed}"
    assert watch.errors == [], f"errors: {watch.errors}"
    # math: every piece of TeX was typeset by MathJax
    n_math = page.locator(".math").count()
    if n_math:
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=15000)
        assert page.locator("mjx-container").count() >= n_math
        assert page.locator("mjx-merror").count() == 0, "MathJax reported a TeX error"
    # images: loaded, visible size, alt text
    images = page.evaluate("""() => [...document.querySelectorAll('main img')].map(img => ({
        src: img.src.slice(0, 80), alt: img.alt, ok: img.complete && (img.naturalWidth > 0 || img.offsetParent === null)}))""")
    for img in images:
        assert img["ok"], f"image did not load: {img['src']}"
        assert img["alt"].strip(), f"image without alt text: {img['src']}"


@pytest.mark.parametrize("name", [p for p in PAGES if "/03-0" in p and not p.endswith("00-introduction.html")])
def test_every_slider_changes_its_figure(opened, name):
    page, watch = opened(name)
    page.wait_for_selector(".noUi-handle, .widget-dropdown select, .widget-toggle-buttons", timeout=20000)
    widgets = page.locator(".widget-subarea > .widget-vbox")
    n_widgets = widgets.count()
    assert n_widgets > 0, "a section page without a slider"
    timings = []
    for w in range(n_widgets):
        widget = widgets.nth(w)
        kinds = widget.evaluate(CONTROLS_JS)
        assert kinds, f"widget {w} has no control"
        before = widget.evaluate(VISIBLE_FRAMES_JS)
        assert len(before) == 1, f"widget {w} shows {len(before)} frames"
        widget.scroll_into_view_if_needed()
        for c, kind in enumerate(kinds):
            best = float("inf")
            for _ in range(SLIDER_TRIES):
                elapsed = page.evaluate(MOVE_AND_TIME_JS, [widget.element_handle(), c])
                assert elapsed >= 0, f"{kind} {c} of widget {w} did not change the figure"
                best = min(best, elapsed)
                after = widget.evaluate(VISIBLE_FRAMES_JS)
                assert len(after) == 1
                assert hashlib.sha256(after[0].encode()).digest() != hashlib.sha256(before[0].encode()).digest()
                before = after
                if best < SLIDER_MS_LIMIT:
                    break
            timings.append(best)
    assert watch.errors == [], watch.errors
    assert max(timings) < SLIDER_MS_LIMIT, f"a control took {max(timings):.0f} ms to change its figure"
    _report["pages"].setdefault(name, {}).update(
        sliders=len(timings), slider_ms_median=round(statistics.median(timings), 1),
        slider_ms_max=round(max(timings), 1))


def test_the_search_page_finds_a_library_function_and_a_term(browser, site_url):
    """The index is loaded by the search page alone (no other page fetches it), and it holds the text and the
    library reference."""
    page = browser.new_page()
    try:
        for query, expected in (("amdahl_speedup", "scalinglib.amdahl_speedup"), ("Karp", "Karp")):
            page.goto(f"{site_url}/search.html?q={query}", wait_until="load")
            page.wait_for_selector("#search-results li", timeout=20000)
            assert expected in page.inner_text("#search-results"), query
    finally:
        page.close()
    section = (SITE / "book" / "03-09-scaling-efficiency-and-cost-awareness.html").read_text(encoding="utf-8")
    assert "searchindex.js" not in section
