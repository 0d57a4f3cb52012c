"""Fetch the browser-side assets the static site serves itself.

The published book must load nothing from a CDN, so the three JavaScript
packages it needs in the browser are taken from the npm registry with
``npm pack`` (a tarball, no dependency tree), checked against the integrity
hashes pinned in ``tools/vendor-lock.json`` and unpacked under
``_vendor/site/vendor``: only the files listed under ``keep``, with the text
replacements listed under ``replace`` applied to its scripts (each says why).  Sphinx copies ``_vendor/site`` into the root of the
built site (``html_extra_path`` in ``_config.yml``).

Two more steps trim what a page downloads. ``amd_modules`` keeps, from a webpack bundle of several AMD
modules, only the named ones, in a file of its own (the widget manager's bundle also carries an HTML manager
that renders notebook outputs, a JSON-schema validator and a second copy of the widget styles: 1.1 MB of its
1.13 MB gzipped that the book's sliders never use; ``site_assets/widgets-embed.js`` draws the sliders with the
two modules kept). ``concat`` joins a package's stylesheets, without their ``@import`` lines, into one file.

A package marked ``"ship": false`` (axe-core, the accessibility engine the browser tests inject into each
page) is checked the same way but unpacked under ``_vendor/test`` instead, which the site never serves.

Run ``python tools/vendor.py`` (``make vendor`` does).  A second run with the
same lock file does nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "tools" / "vendor-lock.json"
OUT = ROOT / "_vendor" / "site" / "vendor"
TEST_OUT = ROOT / "_vendor" / "test"        # packages the tests use and the site never serves
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


def destination(entry: dict) -> Path:
    """Where a package is unpacked: the served folder, or the tests' own for ``"ship": false``."""
    return (OUT if entry.get("ship", True) else TEST_OUT) / entry["folder"]


def unpack(tarball: Path, entry: dict) -> int:
    dest = destination(entry)
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
    if "amd_modules" in entry:
        count += keep_amd_modules(dest, entry["amd_modules"])
    if "concat" in entry:
        count += concat_styles(dest, entry["concat"])
    return count


_AMD_START = re.compile(r'^define\("([^"]+)"', re.M)


def keep_amd_modules(dest: Path, spec: dict) -> int:
    """Write ``spec["to"]``: the modules of the bundle ``spec["from"]`` named in ``spec["keep"]``, each with its
    licence comment; the bundle itself is removed. Every name must be found, so a new version of the package
    cannot silently drop one."""
    bundle = dest / spec["from"]
    text = bundle.read_text(encoding="utf-8")
    starts = [(m.start(), m.group(1)) for m in _AMD_START.finditer(text)]
    kept, found = [], set()
    for i, (start, name) in enumerate(starts):
        if name not in spec["keep"]:
            continue
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        block = text[start:end]
        # the licence comment that webpack puts on the line before, and no source-map comment or next header
        head = text.rfind("/*!", 0, start)
        if head != -1 and text.count("\n", head, start) == 1:
            block = text[head:start] + block
        block = re.sub(r"\n//# sourceMappingURL=[^\n]*", "", block)
        block = re.sub(r"\n/\*! For license information please see [^\n]*\*/\s*$", "", block)
        kept.append(block.rstrip() + "\n")
        found.add(name)
    missing = set(spec["keep"]) - found
    if missing:
        raise SystemExit(f"vendor: {bundle.name} has no module {sorted(missing)}")
    (dest / spec["to"]).write_text("".join(kept), encoding="utf-8")
    bundle.unlink()
    return 1


def concat_styles(dest: Path, spec: dict) -> int:
    """Join the stylesheets ``spec["files"]`` (in that order, their ``@import`` lines dropped) into ``spec["to"]``;
    the parts are removed."""
    parts = []
    for name in spec["files"]:
        path = dest / name
        parts.append(f"/* {name} */\n" + re.sub(r"(?m)^@import [^;]+;\s*$", "", path.read_text(encoding="utf-8")))
        path.unlink()
    (dest / spec["to"]).write_text("\n".join(parts), encoding="utf-8")
    return 1


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
    if STAMP.exists() and json.loads(STAMP.read_text()) == fingerprint and OUT.is_dir() and TEST_OUT.is_dir():
        print(f"vendor: up to date in {OUT.relative_to(ROOT)}")
        return 0
    if shutil.which("npm") is None:
        print("vendor: npm is needed to fetch the site's JavaScript (MathJax, widgets)", file=sys.stderr)
        return 1
    for folder in (OUT, TEST_OUT):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        for entry in lock["packages"]:
            tarball = fetch(entry, Path(tmp))
            n = unpack(tarball, entry)
            where = destination(entry).relative_to(ROOT)
            print(f"vendor: {entry['name']}@{entry['version']} -> {where}/ ({n} files)")
    for name in own:
        shutil.copy2(OWN_ASSETS / name, OUT / name)
    STAMP.write_text(json.dumps(fingerprint, indent=1))
    print(f"vendor: site assets ready in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
