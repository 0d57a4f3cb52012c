"""JupyterLab is a first-class place to read and solve: a section notebook opened in `make lab` shows its
exercises as exercises (jupyterlab-myst), with math typeset and every solution folded until asked for.

The test starts JupyterLab on 127.0.0.1 (a free port, a token, no browser, settings of its own) on a copy
of one section notebook and opens it in headless Chromium through playwright. It skips, saying why, only
where no browser can be had.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab_metadata  # noqa: E402

NOTEBOOK = ROOT / "book" / "03-01-what-does-it-mean-to-scale.ipynb"
BROWSER_PATHS = ("chromium", "chromium-browser", "/usr/bin/chromium")


def _browser() -> str | None:
    for name in BROWSER_PATHS:
        found = shutil.which(name)
        if found:
            return found
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of the notebook: (url of the notebook, the notebook)."""
    chromium = _browser()
    if chromium is None:
        pytest.skip("no Chromium on this machine (make browser installs Debian's); the JupyterLab test needs one")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the playwright package is not installed (requirements.txt pins it)")
    import jupyterlab_myst  # noqa: F401  (pinned in requirements.txt: a missing install is a failure)

    tmp = tmp_path_factory.mktemp("lab")
    work, settings = tmp / "work", tmp / "settings"
    work.mkdir()
    shutil.copy2(NOTEBOOK, work / NOTEBOOK.name)
    # every cell in the page (no virtual scrolling), no autosave, no news or update checks
    _write(settings / "@jupyterlab/notebook-extension/tracker.jupyterlab-settings", '{"windowingMode": "none"}')
    _write(settings / "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings", '{"autosave": false}')
    _write(settings / "@jupyterlab/apputils-extension/notification.jupyterlab-settings",
           '{"fetchNews": "false", "checkForUpdates": false}')
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTER_DATA_DIR=str(tmp / "data"))
    env.pop("JUPYTER_PATH", None)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
           f"--LabServerApp.user_settings_dir={settings}", f"--LabServerApp.workspaces_dir={tmp / 'ws'}",
           "--LabApp.news_url=None", "--ServerApp.open_browser=False",
           # no kernel (rendering needs none) and no server extensions the test does not use: a faster start
           "--KernelSpecManager.allowed_kernelspecs=['no-kernel-for-this-test']",
           "--ServerApp.jpserver_extensions={'jupyter_lsp': False, 'jupyterlab_jupytext': False}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        started = time.monotonic()
        deadline = started + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (tmp / "lab.log").read_text()[-3000:]) from None
                time.sleep(0.25)
        print(f"JupyterLab answered after {time.monotonic() - started:.1f} s")
        yield chromium, f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK.name}?token={token}", \
            nbformat.read(work / NOTEBOOK.name, as_version=4)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def page(lab):
    from playwright.sync_api import sync_playwright

    chromium, url, nb = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        pg.goto(url)
        pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        pg.wait_for_function(f"document.querySelectorAll('.jp-Notebook .jp-Cell').length >= {len(nb.cells)}",
                             timeout=30_000)
        # jupyterlab-myst renders the markdown cells one after another (slower on a busy machine): wait for
        # every exercise box and every solution drop-down of the notebook
        exercises = sum("{exercise}" in c.source for c in nb.cells if c.cell_type == "markdown")
        solutions = sum("{solution-start}" in c.source for c in nb.cells if c.cell_type == "markdown")
        pg.wait_for_function(f"document.querySelectorAll('aside.myst-exercise').length >= {exercises} && "
                             f"document.querySelectorAll('details.myst-exercise').length >= {solutions}",
                             timeout=60_000)
        try:                                  # the server offers no kernel: dismiss the kernel chooser
            pg.wait_for_selector(".jp-Dialog", timeout=3_000)
            pg.keyboard.press("Escape")
            pg.wait_for_selector(".jp-Dialog", state="detached", timeout=5_000)
        except Exception:  # noqa: BLE001  (no dialog: nothing to dismiss)
            pass
        yield pg, nb
        browser.close()


def test_an_exercise_renders_as_an_exercise(page):
    pg, _ = page
    box = pg.locator("aside.myst-exercise#ex-3-1-1")
    assert box.count() == 1
    title = box.locator(".myst-exercise-title").inner_text()
    assert "Exercise" in title and "3.1.1" in title and "Beginner" in title
    assert box.is_visible()


def test_no_raw_directive_or_role_is_visible(page):
    pg, _ = page
    text = pg.locator(".jp-Notebook").inner_text()
    for raw in ("```{exercise}", "{exercise}", "{solution-start}", "{solution-end}", ":label:", ":class: dropdown",
                "{ref}`", "{func}`", "<scalinglib."):
        assert raw not in text, raw
    assert "Section 3.3" in text          # a {ref} role, rendered as its text


def test_math_is_typeset(page):
    pg, _ = page
    assert pg.locator(".jp-MarkdownCell .katex").count() > 20
    exercise = pg.locator("aside.myst-exercise#ex-3-1-1").inner_text()
    assert "$" not in exercise and "S(\\infty)" not in exercise


def test_no_solution_is_visible_until_it_is_opened(page):
    pg, nb = page
    cells = pg.locator(".jp-Notebook .jp-Cell")
    inside = lab_metadata.solution_cells(nb)
    assert inside, "the notebook has no solution cells to check"
    text = pg.locator(".jp-Notebook").inner_text()
    assert "✔ ex-" not in text                                    # the solutions' stored outputs
    for index in inside:
        cell = cells.nth(index)
        assert not cell.locator(".jp-InputArea").is_visible(), f"solution cell {index}: code visible"
        assert not cell.locator(".jp-OutputArea").first.is_visible(), f"solution cell {index}: output visible"
    dropdowns = pg.locator("details.myst-exercise")
    assert dropdowns.count() == sum("{solution-start}" in c.source for c in nb.cells)
    first_words = "E(16) = 0.5714"
    assert first_words not in text
    for i in range(dropdowns.count()):
        assert dropdowns.nth(i).get_attribute("open") is None
    # asked for, the first solution opens: its text, then its code
    dropdowns.first.locator("summary svg").click()         # the chevron (the title is a link to the exercise)
    assert dropdowns.first.locator(".details-body").is_visible()
    cells.nth(inside[0]).locator(".jp-Collapser").first.click()
    assert cells.nth(inside[0]).locator(".jp-InputArea").is_visible()
