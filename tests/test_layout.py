"""The built pages at a phone's 390x844 and a laptop's 1280x900, in light and dark mode, in a real browser.

For every page and each of the four settings:

* the document is no wider than the window (nothing scrolls the page sideways);
* no element reaches past the window's edge unless it sits inside a box that scrolls sideways
  (code, printed output, wide tables, a figure kept at a legible size); a box that only clips
  (``overflow: hidden``) does not count, since what it hides cannot be reached;
* every figure's smallest text is at least ``MIN_TEXT_PX`` CSS pixels tall as shown: for figures
  drawn by ``scalinglib.plots.figure_html`` from the image's natural size, its shown size and the
  font size it was drawn with (``data-font-px``); for slider frames (SVG in the page) from the
  font size of each text element times the SVG's scale;
* in dark mode, the background of every figure and control panel, as painted, is close to the page's
  (a contrast ratio of at most ``MAX_DARK_CONTRAST``): no light blocks on a dark page;
* every box that scrolls sideways shows it (book/_static/book.js: a shadow on each side with more to see,
  and a keyboard tab stop), and on a phone the shadow follows a box scrolled to its end and back.

Each page is the tab that tests/test_site.py opened (``opened`` in conftest.py: a page is loaded once
for every check of it); the four settings are reached by resizing the tab and switching the theme.
For a reviewer who wants to look without a browser, ``LAYOUT_SCREENS=phone`` writes a full-page
screenshot of each page at the phone's width in light mode to ``_build/screens/`` and ``LAYOUT_SCREENS=all``
one for each of the four settings (``make screens``); the checks need none. The widest element of each
page, the text sizes and the contrasts go to ``_build/layout-report.json``.
"""

from __future__ import annotations

import io
import json
import os

import pytest
from PIL import Image
from site_pages import ROOT, book_pages

pytestmark = pytest.mark.site

SCREENS = ROOT / "_build" / "screens"
REPORT = ROOT / "_build" / "layout-report.json"
SIZES = {"phone": (390, 844), "laptop": (1280, 900)}
SCHEMES = ("light", "dark")
#: Smallest figure text, CSS px, at every width.
MIN_TEXT_PX = 10.0
#: Largest contrast ratio between a figure's or a control panel's background and a dark page.
MAX_DARK_CONTRAST = 1.6
#: Full-page screenshots for a reviewer (each costs up to two seconds on a long page): none by default, a
#: phone in light mode with ``LAYOUT_SCREENS=phone``, all four settings with ``LAYOUT_SCREENS=all``. The
#: dark-mode backgrounds are read from captures of bands of the window (``_painted_backgrounds``).
SCREENSHOTS = {"all": {(size, scheme) for size in SIZES for scheme in SCHEMES},
               "phone": {("phone", "light")}}.get(os.environ.get("LAYOUT_SCREENS", ""), set())


PAGES = book_pages()

# ------------------------------------------------------------------------------------------- in the page

# The boxes that may scroll sideways (book/_static/book.js marks those that do).
SCROLLERS = ", ".join([
    "div.cell_output .output", "div.highlight pre", ".pst-scrollable-table-container", ".sl-table-wrap",
    ".sl-figure", ".sl-stack", ".scalinglib-html-frame", "mjx-container[display='true']", "div.math",
    "span.sl-wide-math"])

# Everything measured in one call per setting. Elements inside a box that scrolls sideways (or clips)
# are allowed past the edge; the box itself is not.
MEASURE_JS = """(minPx) => {
  window.scrollTo(0, 0);
  const vw = document.documentElement.clientWidth;
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  // Inside a box that scrolls sideways and itself fits the window: allowed past the edge. A box that
  // merely clips (overflow hidden) does not count: what it hides is cut off, not reachable.
  const boxed = new Map();   // element -> it, or an ancestor, is such a box (each element's style read once)
  const inBox = (p) => {
    if (!p || p === document.documentElement) return false;
    if (boxed.has(p)) return boxed.get(p);
    const ox = getComputedStyle(p).overflowX;
    let fits = false;
    if (ox === 'auto' || ox === 'scroll') {
      const b = p.getBoundingClientRect();
      fits = b.right <= vw + 1 && b.left >= -1;
    }
    const answer = fits || inBox(p.parentElement);
    boxed.set(p, answer);
    return answer;
  };
  const contained = (el) => inBox(el.parentElement);
  const describe = (el) => {
    const cls = (typeof el.className === 'string' ? el.className : (el.className.baseVal || '')).trim();
    return el.tagName.toLowerCase() + (cls ? '.' + cls.split(/\\s+/).slice(0, 3).join('.') : '');
  };
  const root = document.querySelector('.bd-article') || document.querySelector('main') || document.body;
  let widest = null, outside = [];
  // MathJax's own elements are measured through their container (a display equation's scrolls sideways)
  for (const el of root.querySelectorAll('*:not(mjx-container *)')) {
    if (!visible(el)) continue;
    const r = el.getBoundingClientRect();
    const free = !contained(el);
    if (free && (!widest || r.right > widest.right)) widest = {what: describe(el), right: Math.round(r.right),
                                                                  width: Math.round(r.width)};
    if (free && (r.right > vw + 1 || r.left < -1)) outside.push({what: describe(el), left: Math.round(r.left),
                                                                  right: Math.round(r.right)});
  }
  // figure text
  const texts = [];
  for (const img of root.querySelectorAll('img.sl-figure-img')) {
    if (!visible(img) || !img.naturalWidth) continue;
    const narrow = img.currentSrc && img.currentSrc !== img.src;
    const natural = parseFloat(narrow ? img.dataset.fontPxNarrow : img.dataset.fontPx);
    texts.push({what: 'figure "' + img.alt.slice(0, 50) + '"', px: natural * img.clientWidth / img.naturalWidth,
                narrow: !!narrow});
  }
  for (const frame of root.querySelectorAll('.sl-frame')) {
    for (const svg of frame.querySelectorAll('svg')) {
      if (!visible(svg)) continue;
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      let least = Infinity;
      for (const t of svg.querySelectorAll('text')) least = Math.min(least, parseFloat(getComputedStyle(t).fontSize));
      if (least < Infinity) texts.push({what: 'slider frame "' + frame.getAttribute('aria-label').slice(0, 50) + '"',
                                        px: least * scale,
                                        narrow: svg.classList.contains('sl-narrow')});
    }
  }
  // boxes that scroll sideways: book.js marks the side with more to see and makes the box reachable by keyboard
  const unmarked = [];
  for (const box of root.querySelectorAll(SCROLLERS)) {
    const hidden = box.scrollWidth - box.clientWidth;
    if (!visible(box) || hidden <= 1) continue;
    const right = box.scrollLeft < hidden - 1, left = box.scrollLeft > 1;
    if (box.classList.contains('sl-more-right') !== right || box.classList.contains('sl-more-left') !== left
        || box.getAttribute('tabindex') !== '0') unmarked.push(describe(box));
  }
  const unmeasured = [...root.querySelectorAll('div.cell_output img')].filter(
      img => visible(img) && !img.classList.contains('sl-figure-img')).map(img => img.src.slice(-60));
  // where figures and control panels are, for the dark-mode check (document coordinates)
  const blocks = [];
  const place = (el, what) => { const r = el.getBoundingClientRect();
    blocks.push({what, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}); };
  root.querySelectorAll('img.sl-figure-img').forEach(el => visible(el) && place(el, 'figure'));
  root.querySelectorAll('.sl-frame svg').forEach(el => visible(el) && place(el, 'slider frame'));
  root.querySelectorAll('.sl-panel .sl-controls').forEach(el => visible(el) && place(el, 'control panel'));
  root.querySelectorAll('.widget-subarea').forEach(el => visible(el) && place(el, 'widget area'));
  const bg = getComputedStyle(document.body).backgroundColor;
  return {vw, doc: document.documentElement.scrollWidth, widest, outside: outside.slice(0, 8),
          texts, unmeasured, unmarked: unmarked.slice(0, 8), blocks, bg, theme: document.documentElement.dataset.theme};
}""".replace("SCROLLERS", json.dumps(SCROLLERS))

# A box wider than the column that scrolls, scrolled to its end and back: the marks follow (book.js, on scroll).
SCROLL_JS = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const box = [...document.querySelectorAll(SCROLLERS)].find(b => b.offsetParent !== null && b.scrollWidth - b.clientWidth > 1);
  if (!box) return null;
  const marks = () => ['sl-more-left', 'sl-more-right'].filter(c => box.classList.contains(c)).join(' ');
  box.scrollLeft = box.scrollWidth; await frame(); await frame();
  const atEnd = marks();
  box.scrollLeft = 0; await frame(); await frame();
  return {atEnd, atStart: marks()};
}""".replace("SCROLLERS", json.dumps(SCROLLERS))

# The theme fades colours and slides its sidebars; what is measured is where they come to rest, so the
# transitions are switched off while a page is measured, and a resize or a theme switch has settled after
# two painted frames, once the images it chose afresh (<picture> sources) have arrived.
STILL_CSS = "*, *::before, *::after { transition: none !important; animation: none !important; }"
SETTLE_JS = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  await frame(); await frame();
  const start = performance.now();
  while (![...document.images].every(img => img.complete) && performance.now() - start < 5000) await frame();
}"""

SET_THEME_JS = """(scheme) => { document.documentElement.dataset.theme = scheme;
                               document.documentElement.dataset.mode = scheme; }"""


# ------------------------------------------------------------------------------------------- colours


def _luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG contrast ratio of two RGB colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _css_rgb(text: str) -> tuple:
    parts = text[text.index("(") + 1:text.index(")")].split(",")
    return tuple(int(float(p)) for p in parts[:3])


def _painted_backgrounds(page, blocks, viewport):
    """The colour just inside each block's top-left corner as the browser paints it (filters included):
    its background, the most common colour of an 8 x 8 patch there (antialiasing does not matter), or
    None for a block too small to tell or out of reach (inside a box scrolled sideways).

    The page is scrolled so that a block's corner sits a third of the way down the window (clear of the
    sticky header); the blocks whose corners then lie in the window below it (a slider's panel, controls
    and frame) are read from one capture, of the smallest rectangle that holds their patches (a capture
    costs a fixed part and a part that grows with its area).
    """
    colours = [None] * len(blocks)
    group, top, bottom, scrolled = [], 0, -1, 0    # the patches readable at the page's present scroll position
    for i in sorted(range(len(blocks)), key=lambda j: blocks[j]["y"]):
        block = blocks[i]
        if block["w"] < 16 or block["h"] < 16 or block["x"] + 11 > viewport["width"]:
            continue
        x, y = int(block["x"]) + 3, int(block["y"]) + 3
        if not top <= y <= bottom - 8:
            _capture_patches(page, group, colours)
            scrolled = page.evaluate("(y) => { window.scrollTo(0, y); return window.scrollY; }",
                                     max(0, int(block["y"]) - viewport["height"] // 3))
            group, top, bottom = [], y, scrolled + viewport["height"]
            if not 0 <= y - scrolled <= viewport["height"] - 8:
                top, bottom = 0, -1
                continue
        group.append((i, x, y - scrolled))
    _capture_patches(page, group, colours)
    return colours


def _capture_patches(page, group, colours):
    """Capture the rectangle around the 8 x 8 patches of ``group`` (block index, x and y in the window, as the
    page is scrolled now) and write each patch's most common colour into ``colours``."""
    if not group:
        return
    left, upper = min(x for _, x, _ in group), min(y for _, _, y in group)
    right, lower = max(x for _, x, _ in group) + 8, max(y for _, _, y in group) + 8
    shot = page.screenshot(clip={"x": left, "y": upper, "width": right - left, "height": lower - upper})
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    for i, x, y in group:
        patch = image.crop((x - left, y - upper, x - left + 8, y - upper + 8))
        colours[i] = max(patch.getcolors(64), key=lambda c: c[0])[1]


# ------------------------------------------------------------------------------------------- the run

#: The order the settings are measured in: the tab is opened as a laptop in light mode, so the first
#: setting costs nothing, and one resize and two theme switches reach the other three.
ORDER = (("laptop", "light"), ("laptop", "dark"), ("phone", "dark"), ("phone", "light"))


def _measure(page, name):
    """The four settings of one open page, with its screenshots; returns {(size, scheme): measurements}."""
    out = {}
    page.add_style_tag(content=STILL_CSS)
    for size, scheme in ORDER:
        w, h = SIZES[size]
        if page.viewport_size != {"width": w, "height": h}:
            page.set_viewport_size({"width": w, "height": h})
        page.evaluate(SET_THEME_JS, scheme)
        page.evaluate(SETTLE_JS)                 # reflow, <picture> sources, image decoding
        result = page.evaluate(MEASURE_JS, MIN_TEXT_PX)
        if (size, scheme) == ("phone", "light"):
            result["scrolled"] = page.evaluate(SCROLL_JS)
        if (size, scheme) in SCREENSHOTS:
            shot = page.screenshot(full_page=True, type="jpeg", quality=75)
            stem = name.rsplit("/", 1)[-1].removesuffix(".html")
            (SCREENS / f"{stem}-{w}-{scheme}.jpg").write_bytes(shot)
        if scheme == "dark":
            page_bg = _css_rgb(result["bg"])
            result["contrasts"] = [
                {"what": block["what"], "rgb": colour, "ratio": round(contrast(colour, page_bg), 3)}
                for block, colour in zip(result["blocks"], _painted_backgrounds(page, result["blocks"], {"width": w, "height": h}))
                if colour is not None]
        result.pop("blocks")
        out[(size, scheme)] = result
    return out


@pytest.fixture(scope="module")
def layout(opened):
    if SCREENSHOTS:
        SCREENS.mkdir(parents=True, exist_ok=True)
    results = {}
    for name in PAGES:       # the last check of each page: measured (resized, themed, scrolled), then closed
        results[name] = _measure(opened(name)[0], name)
        opened.close(name)
    report = {name: {f"{size}-{scheme}": res for (size, scheme), res in per.items()} for name, per in results.items()}
    REPORT.write_text(json.dumps(report, indent=1))
    return results


SETTINGS = [(size, scheme) for size in SIZES for scheme in SCHEMES]


@pytest.mark.parametrize("name", PAGES)
def test_nothing_is_wider_than_the_window(layout, name):
    problems = []
    for setting in SETTINGS:
        res = layout[name][setting]
        if res["doc"] > res["vw"] + 1:
            problems.append(f"{setting}: the page is {res['doc']} px wide in a {res['vw']} px window; "
                            f"widest: {res['widest']}")
        if res["outside"]:
            problems.append(f"{setting}: past the edge, outside any scroll box: {res['outside']}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES)
def test_figure_text_is_legible(layout, name):
    problems = []
    for setting in SETTINGS:
        res = layout[name][setting]
        small = [t for t in res["texts"] if t["px"] < MIN_TEXT_PX - 0.05]
        if small:
            problems.append(f"{setting}: figure text under {MIN_TEXT_PX} px: "
                            + ", ".join(f"{t['what']} {t['px']:.1f} px" for t in small))
        if res["unmeasured"]:
            problems.append(f"{setting}: figures not drawn by scalinglib's figure helper (re-execute the notebook): "
                            f"{res['unmeasured']}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES)
def test_dark_mode_has_no_light_blocks(layout, name):
    problems = []
    for size in SIZES:
        res = layout[name][(size, "dark")]
        assert res["theme"] == "dark"
        for c in res.get("contrasts", []):
            if c["ratio"] > MAX_DARK_CONTRAST:
                problems.append(f"{size}: {c['what']} background rgb{tuple(c['rgb'])} is {c['ratio']}:1 "
                                f"against the page (at most {MAX_DARK_CONTRAST})")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES)
def test_boxes_that_scroll_sideways_say_so(layout, name):
    """Every box wider than the window that scrolls sideways carries a shadow on each side with more to see
    (sl-more-left, sl-more-right) and takes the keyboard's focus; scrolled to its end, the shadow moves."""
    problems = [f"{setting}: not marked as scrolling: {layout[name][setting]['unmarked']}"
                for setting in SETTINGS if layout[name][setting]["unmarked"]]
    scrolled = layout[name][("phone", "light")]["scrolled"]
    if scrolled is not None and scrolled != {"atEnd": "sl-more-left", "atStart": "sl-more-right"}:
        problems.append(f"phone, light: a box scrolled to its end and back is marked {scrolled}")
    assert not problems, "\n".join(problems)
