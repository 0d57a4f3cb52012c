"""`make publish REMOTE=...` (tools/publish.py, ghp-import): the built site lands on the gh-pages branch of the
given remote, with a .nojekyll file, each publication one commit on top of the last; tried against a local bare
repository, so no network is needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import publish  # noqa: E402


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture()
def bare(tmp_path):
    repo = tmp_path / "remote.git"
    _git("init", "--quiet", "--bare", str(repo), cwd=tmp_path)
    return repo


def _site(folder: Path, text: str) -> Path:
    (folder / "_static").mkdir(parents=True)
    (folder / "index.html").write_text(f"<!doctype html><title>{text}</title>")
    (folder / "_static" / "book.css").write_text("body{}")
    return folder


def test_publish_pushes_the_site_to_gh_pages_and_keeps_its_history(tmp_path, bare):
    first = publish.publish(str(bare), _site(tmp_path / "one", "first"))
    files = _git("ls-tree", "-r", "--name-only", "gh-pages", cwd=bare).split()
    assert sorted(files) == [".nojekyll", "_static/book.css", "index.html"]
    assert _git("show", "gh-pages:index.html", cwd=bare).endswith("<title>first</title>")

    second = publish.publish(str(bare), _site(tmp_path / "two", "second"), message="second")
    assert second != first
    assert _git("rev-parse", "gh-pages", cwd=bare).strip() == second
    assert _git("rev-parse", "gh-pages^", cwd=bare).strip() == first, "the branch's history is kept"
    assert _git("show", "gh-pages:index.html", cwd=bare).endswith("<title>second</title>")
    assert _git("log", "-1", "--format=%s", "gh-pages", cwd=bare).strip() == "second"


def test_publish_refuses_an_unbuilt_site(tmp_path, bare):
    with pytest.raises(SystemExit, match="no built site"):
        publish.publish(str(bare), tmp_path / "nothing")


def test_make_publish_needs_a_remote_and_calls_the_tool():
    run = subprocess.run(["make", "-s", "-n", "publish"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0 or "usage" in run.stdout + run.stderr
    run = subprocess.run(["make", "-n", "publish", "REMOTE=/tmp/x.git"], cwd=ROOT, capture_output=True, text=True)
    assert "tools/publish.py" in run.stdout and "/tmp/x.git" in run.stdout
