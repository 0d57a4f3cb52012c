"""The PDFs of `make pdf` (tools/pdf.py): every section's heading, a plausible page count with a bookmark per part,
every figure's caption and every figure image embedded, the solutions in the instructor's appendix and nowhere in the
student's PDF. Runs on PDFs already printed (``make pdf``; ``make test`` prints them in its pdf stage)."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"
FULL = ROOT / "dist" / "scalability-by-the-numbers.pdf"
STUDENT = ROOT / "dist" / "scalability-by-the-numbers-student.pdf"
SECTIONS = sorted(SITE.glob("book/03-0[1-9]-*.html"))


def _squash(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "").replace("’", "'")
    return re.sub(r"\s+", " ", text).strip()


def _letters(text: str) -> str:
    """Letters and digits only: text extracted from a PDF splits and joins words and punctuation its own way."""
    return re.sub(r"[^a-z0-9]", "", _squash(text).lower())


class _Page(HTMLParser):
    """The h1 title, figure captions' numbers, figure images and solution text of a built page."""

    def __init__(self):
        super().__init__()
        self.title, self.captions, self.images, self.solution_text = "", [], 0, []
        self._in_h1 = False
        self._solution_depth = 0
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag not in ("img", "br", "hr", "meta", "link", "input", "source"):
            self._depth += 1
            if self._solution_depth:
                self._solution_depth += 1
            elif tag == "div" and "solution" in classes:
                self._solution_depth = 1
        if tag == "h1":
            self._in_h1 = True
        if tag == "img" and "sl-figure-img" in classes:
            self.images += 1

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False
        if tag not in ("img", "br", "hr", "meta", "link", "input", "source"):
            self._depth -= 1
            if self._solution_depth:
                self._solution_depth -= 1

    def handle_data(self, data):
        if self._in_h1 and not self.title:
            self.title = data.strip()
        if self._solution_depth:
            self.solution_text.append(data)
        self.captions += re.findall(r"\bFigure (3\.\d\.\d+)\.", data)


def _page(path: Path) -> _Page:
    parser = _Page()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def pdfs():
    if not SECTIONS:
        pytest.skip("the site is not built: run `make book` first")
    if not (FULL.exists() and STUDENT.exists()):
        pytest.skip("the PDFs are not printed: run `make pdf` first")
    from pypdf import PdfReader

    out = {}
    for name, path in (("full", FULL), ("student", STUDENT)):
        reader = PdfReader(path)
        # Chromium prints each figure (an SVG or PNG image) as an XObject of the page: a form or an image
        images = 0
        for page in reader.pages:
            resources = page.get("/Resources")
            xobjects = resources.get_object().get("/XObject") if resources is not None else None
            if xobjects:
                images += sum(v.get_object().get("/Subtype") in ("/Form", "/Image") for v in xobjects.get_object().values())
        text = _squash(" ".join(p.extract_text() or "" for p in reader.pages))
        tops = [item for item in reader.outline if not isinstance(item, list)]
        out[name] = {"pages": len(reader.pages), "text": text, "letters": _letters(text), "images": images,
                     "outline": [_squash(item.title) for item in tops],
                     # the text of the page each bookmark of a section opens on
                     "first_page": {_squash(item.title): _letters(reader.pages[reader.get_destination_page_number(item)]
                                                                  .extract_text() or "") for item in tops}}
    return out


def test_every_section_heading_is_there(pdfs):
    for edition in ("full", "student"):
        for path in SECTIONS:
            title = _squash(_page(path).title)
            assert _letters(title) in pdfs[edition]["letters"], f"{edition} PDF lacks the heading {title!r}"
            assert title in pdfs[edition]["outline"], f"{edition} PDF has no bookmark for {title!r}"
            assert _letters(title) in pdfs[edition]["first_page"][title], (
                f"{edition} PDF: the page {title!r} opens on does not print its heading")
        assert "Contents" in pdfs[edition]["text"]


def test_each_pdf_stays_small_enough_to_mail(pdfs):
    """The parts' shared fonts are stored once and the drawing streams compressed."""
    for path in (FULL, STUDENT):
        assert path.stat().st_size <= 20e6, f"{path.name} weighs {path.stat().st_size / 1e6:.1f} MB"


def test_page_counts_are_plausible(pdfs):
    for edition in ("full", "student"):
        assert 3 * len(SECTIONS) <= pdfs[edition]["pages"] <= 600, pdfs[edition]["pages"]
    assert pdfs["full"]["pages"] > pdfs["student"]["pages"], "the instructor's PDF carries the solutions too"


def test_every_figure_is_embedded(pdfs):
    images = sum(_page(path).images for path in SECTIONS)
    for edition in ("full", "student"):
        for path in SECTIONS:
            for number in _page(path).captions:
                assert _letters(f"Figure {number}.") in pdfs[edition]["letters"], f"{edition} PDF lacks Figure {number}"
        assert pdfs[edition]["images"] >= images, f"{edition} PDF embeds {pdfs[edition]['images']} of {images} images"


def test_solutions_only_in_the_instructors_appendix(pdfs):
    sentences = []
    for path in SECTIONS:
        text = _squash(" ".join(_page(path).solution_text))
        # sentences of plain words (TeX source prints as typeset math, not as written)
        sentences += [_letters(s) for s in re.split(r"(?<=[.!?])\s+", text)
                      if len(s.split()) >= 8 and not re.search(r"[\\$]", s)][:3]
    assert len(sentences) >= len(SECTIONS), "found too little solution text to look for"
    found_full = [s for s in sentences if s in pdfs["full"]["letters"]]
    assert len(found_full) >= len(sentences) // 2, "the instructor's PDF lacks the solutions' text"
    leaked = [s for s in sentences if s in pdfs["student"]["letters"]]
    assert not leaked, f"solution text in the student PDF: {leaked[:3]}"
    assert any(t.startswith("Solutions to 3.") for t in pdfs["full"]["outline"])
    assert not any(t.startswith("Solutions to") for t in pdfs["student"]["outline"])
