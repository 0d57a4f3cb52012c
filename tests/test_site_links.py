"""Every internal link of the built site leads somewhere: the file exists and, for a link to an anchor,
the anchor exists in that file. Every figure image has alt text. Runs on the built site (`make book`)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"
SKIP_DIRS = {"_static", "vendor", "_sources", "_images", "reports", "_sphinx_design_static"}


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.images: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag == "img":
            self.images.append(attributes)


def _pages() -> list[Path]:
    if not SITE.exists():
        return []
    return sorted(p for p in SITE.rglob("*.html") if not (set(p.relative_to(SITE).parts) & SKIP_DIRS))


_cache: dict[Path, _Collector] = {}


def _parse(path: Path) -> _Collector:
    if path not in _cache:
        collector = _Collector()
        collector.feed(path.read_text(encoding="utf-8"))
        _cache[path] = collector
    return _cache[path]


@pytest.fixture(scope="module", autouse=True)
def _site_built():
    if not (SITE / "index.html").exists():
        pytest.skip("the site is not built: run `make book` first")


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_internal_links_resolve(page):
    broken = []
    for href in _parse(page).links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
            continue  # external links are not this test's business (the site loads none of them)
        target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(f"{href} (no file)")
            continue
        if parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
            broken.append(f"{href} (no anchor)")
    assert not broken, f"broken links in {page.relative_to(SITE)}: {broken}"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_images_have_alt_text(page):
    missing = [img.get("src", "")[:60] for img in _parse(page).images
               if not (img.get("alt") or "").strip() and "logo" not in img.get("class", "")]
    assert not missing, f"images without alt text in {page.relative_to(SITE)}: {missing}"


def test_the_book_lists_its_pages():
    names = {p.name for p in _pages()}
    for required in ("exercise-index.html", "glossary.html", "bibliography.html", "execution-status.html"):
        assert required in names


def test_captions_are_numbered_once():
    """A caption reads "Figure 3.4.1. ...", not "Fig. 7 Figure 3.4.1. ..." (see numfig_format in _config.yml)."""
    import re

    captions = 0
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for number in re.findall(r'<span class="caption-number">([^<]*)</span>', text):
            assert number.strip() == "", f"{page.name}: a running figure number {number!r} before the caption"
        for caption in re.findall(r'<span class="caption-text">([^<]{0,40})', text):
            if page.name.startswith("03-0"):
                captions += 1
                assert re.match(r"Figure 3\.\d\.\d+\. ", caption), f"{page.name}: caption without its number: {caption!r}"
    assert captions >= 9, "expected captioned figures in every section"


def test_exercise_index_lists_every_exercise_with_its_level():
    """Every {exercise} of every section notebook has a row: its number linking to it, a topic, a level."""
    import json
    import re

    index = SITE / "book" / "exercise-index.html"
    if not index.exists():
        pytest.skip("the site is not built: run `make book` first")
    text = index.read_text(encoding="utf-8")
    rows = {m[1]: (m[0], m[2], m[3]) for m in re.findall(
        r'<a class="reference internal" href="([^"#]+)#(ex-3-\d-\d+)">[^<]+</a></p></td>\s*'
        r'<td><p>([^<]+)</p></td>\s*<td><p>(Beginner|Intermediate|Advanced)</p></td>', text)}
    labels = {}
    for path in sorted((ROOT / "book").glob("03-0*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            source = "".join(cell["source"])
            for label in re.findall(r"```\{exercise\}[^\n]*\n(?::[^\n]*\n)*?:label: (ex-3-\d-\d+)", source):
                labels[label] = path.stem
    assert len(labels) >= 3 * 9, f"found only {len(labels)} exercises in the notebooks"
    assert set(rows) == set(labels), f"index and notebooks differ: {set(rows) ^ set(labels)}"
    for label, (href, topic, _level) in rows.items():
        assert href == f"{labels[label]}.html" and topic.strip(), label


@pytest.mark.parametrize("page", [p for p in _pages() if p.name.startswith("03-0")], ids=lambda p: p.name)
def test_printed_output_shows_as_one_block_per_cell(page):
    """A table printed in several writes (one print per row) must render as one block, not several
    boxes (myst-nb's nb_merge_streams)."""
    html = page.read_text(encoding="utf-8")
    split = [chunk for chunk in html.split('<div class="cell_output docutils container">')[1:]
             if chunk.split('<div class="cell')[0].count('class="output stream') > 1]
    assert not split, f"{len(split)} cell outputs of {page.name} show printed text in several blocks"
