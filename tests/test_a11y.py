"""Every page of the built site passes axe-core's WCAG 2.0 and 2.1 level A and AA rules, in light and dark mode.

axe-core (the engine behind the browsers' own accessibility audits) is fetched by tools/vendor.py, checked against
the hash pinned in tools/vendor-lock.json, into ``_vendor/test`` (never into the site), and injected into the tab
that tests/test_site.py already opened for each page (``opened`` in conftest.py: no page is loaded twice).

In light mode every rule tagged wcag2a, wcag2aa, wcag21a or wcag21aa runs; switching to dark mode changes colours
only, so there the colour rules (text contrast, links told apart from the text around them) run again. MathJax's
rendered formulas (``mjx-container``) are left out: assistive technology reads the MathML copy MathJax keeps beside
each one, their glyphs take their colour from the surrounding text that is checked, and their thousands of
elements would cost most of the run. The violations found, per page and mode, go to ``_build/a11y-report.json``.
"""

from __future__ import annotations

import json

import pytest
from site_pages import REFERENCE_SAMPLE, ROOT, book_pages

pytestmark = pytest.mark.site

AXE = ROOT / "_vendor" / "test" / "axe-core" / "axe.min.js"
REPORT = ROOT / "_build" / "a11y-report.json"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
CONTEXT = {"exclude": [["mjx-container"]]}
OPTIONS = {
    "light": {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    "dark": {"runOnly": {"type": "rule", "values": COLOUR_RULES}, "resultTypes": ["violations"]},
}
# The theme fades colours when the mode changes: contrast is measured once they have settled.
STILL_CSS = "*, *::before, *::after { transition: none !important; animation: none !important; }"
SET_THEME_JS = """async (scheme) => { document.documentElement.dataset.theme = scheme;
  document.documentElement.dataset.mode = scheme;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); }"""
RUN_JS = """async ([context, options]) => {
  const result = await axe.run(context, options);
  return result.violations.map(v => ({rule: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
    nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                          why: (n.failureSummary || '').slice(0, 240)}))}));
}"""

PAGES = book_pages() + REFERENCE_SAMPLE
_report: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _write_report():
    yield
    if _report:
        REPORT.write_text(json.dumps(_report, indent=1))


@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_wcag_violations(opened, name):
    if not AXE.exists():
        pytest.skip("axe-core is not fetched: run `make vendor`")
    page, _ = opened(name)
    page.add_style_tag(content=STILL_CSS)
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = {}
    try:
        for scheme, options in OPTIONS.items():
            page.evaluate(SET_THEME_JS, scheme)
            found[scheme] = page.evaluate(RUN_JS, [CONTEXT, options])
    finally:
        page.evaluate(SET_THEME_JS, "light")
    _report[name] = {scheme: {v["rule"]: v["count"] for v in found[scheme]} for scheme in found}
    problems = [f"{scheme}: {v['rule']} ({v['impact']}, {v['count']} elements): {v['help']}; "
                + "; ".join(f"{n['target']} {n['html']} -- {n['why']}" for n in v["nodes"])
                for scheme, violations in found.items() for v in violations]
    assert not problems, "\n".join(problems)
