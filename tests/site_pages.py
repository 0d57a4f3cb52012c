"""The built site in one headless Chromium, shared by the browser checks (tests/test_site.py, tests/test_layout.py).

The fixtures in ``conftest.py`` serve ``_build/html`` on 127.0.0.1, start the browser once per session
and open each page once, all in one browser context (so with one cache, as for a reader going from page
to page): loading a page (its widget manager, its saved widget state, MathJax) is
most of what a check of it costs, so every check of a page reads the same open tab.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
# Messages that libraries print on the console but that are not errors of the site.
BENIGN_CONSOLE = ("allowUnionTypes",)


def book_pages() -> list[str]:
    """The book's pages in reading order, as paths below the site's root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [toc["root"] + ".html"] + [ch["file"] + ".html" for ch in toc.get("chapters", [])]


#: Pages of the library reference checked in a browser besides its index (which book_pages lists): the module
#: pages are all written by one generator (book/_ext/library_reference.py), so two stand for the others: the
#: hardware catalog's (functions, tables, a TOML example) and the device model's (classes with their members).
REFERENCE_SAMPLE = ["book/reference/scalinglib.catalog.html", "book/reference/scalinglib.devices.html"]


def chromium() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # a tab closed (or sent on) while a file was still streaming: the browser's choice, not a fault
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve_site():
    """Serve the built site on a free port of 127.0.0.1; returns (url, server)."""
    server = _Server(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


class PageWatch:
    """Everything a page does that the checks look at: requests, failures, console messages."""

    def __init__(self, page, origin):
        self.outside, self.failed, self.errors, self.bytes = [], [], [], 0
        page.on("request", self._request(origin))
        page.on("requestfailed", lambda r: self.failed.append(f"failed: {r.url}"))
        page.on("response", self._response)
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def _request(self, origin):
        def handler(request):
            url = request.url
            if not url.startswith((origin, "data:", "blob:", "about:")):
                self.outside.append(url)
        return handler

    def _response(self, response):
        if response.status >= 400:
            self.failed.append(f"{response.status}: {response.url}")
        try:   # the length the server declared (the body itself is not copied out of the browser)
            self.bytes += int(response.headers.get("content-length") or 0)
        except ValueError:
            pass

    def _console(self, message):
        if message.type == "error" and not any(b in message.text for b in BENIGN_CONSOLE):
            self.errors.append(f"console: {message.text}")


# Ready to read: MathJax has typeset the page (its startup promise), the fonts are in, every saved widget
# view is drawn and every image has arrived. Awaited inside the page, so no fixed pause is spent.
READY_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await document.fonts.ready;
  const views = () => document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const drawn = () => [...document.querySelectorAll('.widget-subarea')].filter(el => el.children.length).length;
  const start = performance.now();
  while (performance.now() - start < 20000) {
    if (drawn() >= views() && [...document.images].every(img => img.complete)) return true;
    await new Promise(r => requestAnimationFrame(r));
  }
  return false;
}"""

#: The window every page is opened in: a laptop's.
LAPTOP = {"width": 1280, "height": 900}


def open_page(context, site_url, name):
    """A new tab of ``context`` (a browser context opened with ``viewport=LAPTOP``) with ``name`` loaded and
    ready to read (``READY_JS``); returns (page, watch). The tabs of one context share its cache, as the
    pages a reader goes through do: the scripts every page loads are fetched and compiled once."""
    page = context.new_page()
    watch = PageWatch(page, site_url)
    page.goto(f"{site_url}/{name}", wait_until="load")
    page.evaluate(READY_JS)
    return page, watch
