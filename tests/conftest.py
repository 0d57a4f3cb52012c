"""Shared test settings.

Hypothesis profiles (pick one with HYPOTHESIS_PROFILE; HYPOTHESIS_MAX_EXAMPLES overrides the count):

- ``ci`` (the default, and what ``make test`` and CI use): 50 examples a property, each test's
  examples chosen afresh every run, so successive runs cover different inputs;
- ``thorough``: 200 examples a property, for a change to a model or to validation
  (``make unit HYPOTHESIS_PROFILE=thorough``);
- ``book``: the old name of ``thorough``.
"""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
_OVERRIDE = os.environ.get("HYPOTHESIS_MAX_EXAMPLES")

settings.register_profile("ci", max_examples=int(_OVERRIDE or 50), **_COMMON)
settings.register_profile("thorough", max_examples=int(_OVERRIDE or 200), **_COMMON)
settings.register_profile("book", max_examples=int(_OVERRIDE or 200), **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_finish(session):
    """Once every test module is imported, what exists so far (numpy, matplotlib, hypothesis, the collected
    tests) is set aside from garbage collection (``gc.freeze``): the collector's full passes, triggered all
    along by the figures and graphs the tests build, then skip those long-lived objects. In the library's
    second test stage this saves about a seventh of its CPU time; no test sees a difference."""
    import gc

    gc.collect()
    gc.freeze()


# --- the built site in a browser (tests/site_pages.py): one server, one Chromium, each page opened once ----

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def site_url():
    import site_pages

    if not (site_pages.SITE / "index.html").exists():
        pytest.skip("the site is not built: run `make book` first")
    url, server = site_pages.serve_site()
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    import site_pages

    executable = site_pages.chromium()
    if not executable:
        pytest.skip("no Chromium on this machine (tools/ensure_browser.sh could not install one); "
                    "site checks need a real browser")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=executable, args=site_pages.CHROMIUM_FLAGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def opened(browser, site_url):
    """``opened(name)`` gives ``(page, watch)`` for a page of the site, loading it the first time only; the
    checks that move its sliders or resize it run after those that read it as loaded, and
    ``opened.close(name)`` closes it after its last check."""
    import site_pages

    pages = {}
    context = browser.new_context(viewport=site_pages.LAPTOP)

    def get(name):
        if name not in pages:
            pages[name] = site_pages.open_page(context, site_url, name)
        pages[name][0].bring_to_front()        # tabs behind others have their animation frames throttled
        return pages[name]

    def close(name):
        """Close a page's tab when no later check reads it (an open tab keeps costing a little CPU)."""
        if name in pages:
            pages.pop(name)[0].close()

    get.close = close
    yield get
    context.close()
