"""Publish the built site to the ``gh-pages`` branch of a git remote, with ghp-import.

    python tools/publish.py --remote git@github.com:you/scalability-book.git     # what `make publish REMOTE=...` runs
    python tools/publish.py --remote origin          # a remote of this clone, by name
    python tools/publish.py --remote /srv/git/book.git --site _build/html --branch gh-pages

ghp-import (pinned in requirements.txt) writes the site's files as one commit on the branch, adds a
``.nojekyll`` file (GitHub Pages would otherwise run Jekyll, which hides the ``_static`` and ``_sources``
folders the site needs), and pushes. It runs in a scratch repository, not in this clone: the clone's own
branches (and any worktree that shares them) are never touched. The branch's history on the remote is kept:
the scratch repository fetches it first, and each publication is one commit on top of the last.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"


def _git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True)


def resolve_remote(remote: str) -> str:
    """A URL or path as given; the name of a remote of this clone becomes that remote's URL."""
    if "://" in remote or "@" in remote or Path(remote).exists():
        return str(Path(remote).resolve()) if Path(remote).exists() else remote
    found = _git("remote", "get-url", remote, cwd=ROOT, check=False)
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    raise SystemExit(f"publish: {remote!r} is neither a URL, a path nor a remote of this clone")


def _identity() -> dict[str, str]:
    """Who the commit is from: this clone's git identity, else the book's."""
    env = {}
    for key, var in (("user.name", "NAME"), ("user.email", "EMAIL")):
        value = _git("config", key, cwd=ROOT, check=False).stdout.strip()
        env[f"GIT_AUTHOR_{var}"] = env[f"GIT_COMMITTER_{var}"] = value or (
            "Scalability by the numbers" if var == "NAME" else "publisher@localhost")
    return env


def _ghp_import() -> str:
    here = Path(sys.executable).with_name("ghp-import")
    return str(here) if here.exists() else "ghp-import"


def publish(remote: str, site: Path = SITE, branch: str = "gh-pages", message: str | None = None) -> str:
    """Push ``site`` as the new state of ``branch`` on ``remote``; returns the commit pushed."""
    if not (site / "index.html").exists():
        raise SystemExit(f"publish: no built site in {site} (run `make book` first)")
    url = resolve_remote(remote)
    message = message or f"Publish the book ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    env = {**os.environ, **_identity()}
    with tempfile.TemporaryDirectory(prefix="publish-") as tmp:
        work = Path(tmp)
        _git("init", "--quiet", cwd=work)
        _git("remote", "add", "origin", url, cwd=work)
        # the branch's history, when the remote has it (a first publication starts the branch)
        _git("fetch", "--quiet", "origin", f"+refs/heads/{branch}:refs/remotes/origin/{branch}", cwd=work, check=False)
        run = subprocess.run([_ghp_import(), "--no-jekyll", "--push", "--remote", "origin", "--branch", branch,
                              "--message", message, str(site.resolve())],
                             cwd=work, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"publish: ghp-import failed:\n{run.stdout}{run.stderr}")
        return _git("rev-parse", branch, cwd=work).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", required=True, help="git URL, path or remote name to push the site to")
    parser.add_argument("--site", type=Path, default=SITE, help="the built site (default: _build/html)")
    parser.add_argument("--branch", default="gh-pages")
    parser.add_argument("--message", default=None)
    args = parser.parse_args()
    commit = publish(args.remote, args.site, args.branch, args.message)
    print(f"publish: {args.site} pushed to {args.branch} of {args.remote} as {commit[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
