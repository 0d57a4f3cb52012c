"""Fetch the browser-side assets the static site serves itself.

The published book must load nothing from a CDN, so the three JavaScript
packages it needs in the browser are taken from the npm registry with
``npm pack`` (a tarball, no dependency tree), checked against the integrity
hashes pinned in ``tools/vendor-lock.json`` and unpacked under
``_vendor/site/vendor``: only the files listed under ``keep``, with the text
replacements listed under ``replace`` applied to its scripts (each says why).  Sphinx copies ``_vendor/site`` into the root of the
built site (``html_extra_path`` in ``_config.yml``).

Run ``python tools/vendor.py`` (``make vendor`` does).  A second run with the
same lock file does nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "tools" / "vendor-lock.json"
OUT = ROOT / "_vendor" / "site" / "vendor"
STAMP = ROOT / "_vendor" / "stamp.json"
OWN_ASSETS = ROOT / "site_assets"


def sri_sha512(path: Path) -> str:
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode()


def wanted(member: str, keep: list[str]) -> str | None:
    """Return the path under the package's folder to copy, or None to skip."""
    if not member.startswith("package/"):
        return None
    rel = member[len("package/"):]
    if rel.endswith(".map"):
        return None
    for prefix in keep:
        if rel == prefix or rel.startswith(prefix.rstrip("/") + "/"):
            return rel
    return None


def fetch(entry: dict, workdir: Path) -> Path:
    spec = f"{entry['name']}@{entry['version']}"
    result = subprocess.run(
        ["npm", "pack", "--silent", "--pack-destination", str(workdir), spec],
        check=True,
        capture_output=True,
        text=True,
    )
    tarball = workdir / result.stdout.strip().splitlines()[-1]
    got = sri_sha512(tarball)
    if got != entry["integrity"]:
        raise SystemExit(f"vendor: integrity mismatch for {spec}: got {got}")
    return tarball


def unpack(tarball: Path, entry: dict) -> int:
    dest = OUT / entry["folder"]
    count = 0
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            rel = wanted(member.name, entry["keep"])
            if rel is None:
                continue
            strip = entry.get("strip", "")
            if strip and rel.startswith(strip):
                rel = rel[len(strip):]
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as src:  # type: ignore[union-attr]
                data = src.read()
            if rel.endswith(".js"):
                data = patch(data, entry.get("replace", []), f"{entry['name']}/{rel}")
            target.write_bytes(data)
            count += 1
    return count


def patch(data: bytes, replacements: list[dict], name: str) -> bytes:
    """Apply the lock file's text replacements to a script; each must match exactly ``count`` times,
    so a new version of the package cannot pass through an edit that no longer fits it."""
    for rep in replacements:
        old, new = rep["old"].encode(), rep["new"].encode()
        found = data.count(old)
        if found != rep["count"]:
            raise SystemExit(f"vendor: {name}: expected {rep['count']} x {rep['old']!r}, found {found}")
        data = data.replace(old, new)
    return data


def main() -> int:
    lock = json.loads(LOCK.read_text())
    own = sorted(p.name for p in OWN_ASSETS.iterdir() if p.is_file())
    fingerprint = {"lock": lock, "own": {n: sri_sha512(OWN_ASSETS / n) for n in own}}
    if STAMP.exists() and json.loads(STAMP.read_text()) == fingerprint and OUT.is_dir():
        print(f"vendor: up to date in {OUT.relative_to(ROOT)}")
        return 0
    if shutil.which("npm") is None:
        print("vendor: npm is needed to fetch the site's JavaScript (MathJax, widgets)", file=sys.stderr)
        return 1
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        for entry in lock["packages"]:
            tarball = fetch(entry, Path(tmp))
            n = unpack(tarball, entry)
            print(f"vendor: {entry['name']}@{entry['version']} -> {entry['folder']}/ ({n} files)")
    for name in own:
        shutil.copy2(OWN_ASSETS / name, OUT / name)
    STAMP.write_text(json.dumps(fingerprint, indent=1))
    print(f"vendor: site assets ready in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
