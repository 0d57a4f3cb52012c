"""How the chapter is cited and licensed: CITATION.cff, the introduction's "How to cite" section and its BibTeX,
LICENSE, the README's Licence section and the licence line the site's footer carries, all saying the same.

CITATION.cff is validated against the Citation File Format's schema by ``cffconvert --validate`` (run in its own
throwaway environment by uv, since cffconvert pins an older jsonschema than the book's); where uv cannot
provide it (no uv, no package index), that one check skips, saying so.
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CFF = ROOT / "CITATION.cff"
INTRO = ROOT / "book" / "03-00-introduction.md"
CFFCONVERT = "cffconvert==2.0.0"
LICENCES = ["CC-BY-4.0", "MIT"]


@pytest.fixture(scope="module")
def cff() -> dict:
    return yaml.safe_load(CFF.read_text())


@pytest.fixture(scope="module")
def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def _bibtex(text: str) -> dict[str, str]:
    block = re.search(r"```bibtex\n(@\w+\{[^,]+,\n.*?\n\})\n```", text, re.S)
    assert block, "no BibTeX block in the introduction"
    return {k: v.strip("{}") for k, v in re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", block.group(1), re.M)}


def test_citation_file_names_the_book(cff, config):
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"].strip()
    assert cff["title"] == config["title"]
    assert [a["name"] for a in cff["authors"]] == [config["author"]]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cff["version"] == version
    released = datetime.date.fromisoformat(str(cff["date-released"]))
    assert str(released.year) == str(config["copyright"])
    assert cff["license"] == LICENCES
    assert cff["preferred-citation"]["title"] == config["title"]
    assert cff["preferred-citation"]["license"] == "CC-BY-4.0"
    # the repository's address is left for a publisher to fill in, as _config.yml's repository.url is
    url = config["repository"]["url"]
    assert cff.get("repository-code", "") == url, "CITATION.cff's repository-code and _config.yml's repository.url differ"


def test_citation_file_is_valid_cff():
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(uv).exists():
        pytest.skip("uv is not available to run cffconvert")
    run = subprocess.run([uv, "tool", "run", "--quiet", "--from", CFFCONVERT, "cffconvert", "--validate", "-i", str(CFF)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    said = run.stdout + run.stderr
    if run.returncode != 0 and "ValidationError" not in said and "Traceback" not in said:
        pytest.skip(f"uv could not provide {CFFCONVERT}: {said.strip()[:300]}")
    assert run.returncode == 0, said
    assert "Citation metadata are valid" in said


def test_introduction_ends_with_how_to_cite(cff):
    text = INTRO.read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-1] == "How to cite", "the introduction's last section is how to cite the chapter"
    entry = _bibtex(text.split("## How to cite", 1)[1])
    assert entry["title"] == cff["title"]
    assert entry["author"] == "{" + cff["authors"][0]["name"] + "}" or entry["author"] == cff["authors"][0]["name"]
    assert entry["year"] == str(cff["preferred-citation"]["year"])
    assert entry["edition"] == cff["version"]
    section = text.split("## How to cite", 1)[1]
    assert "CC BY 4.0" in section and "MIT" in section


def test_licence_is_said_the_same_everywhere(config):
    licence = (ROOT / "LICENSE").read_text()
    assert "Creative Commons Attribution 4.0 International Public License" in licence
    assert "Permission is hereby granted, free of charge" in licence
    readme = (ROOT / "README.md").read_text().split("## Licence", 1)
    assert len(readme) == 2, "the README has no Licence section"
    assert "CC BY 4.0" in readme[1] and "MIT" in readme[1] and "`LICENSE`" in readme[1]
    footer = config["html"]["extra_footer"]
    assert "creativecommons.org/licenses/by/4.0" in footer and "MIT" in footer
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == {"text": "MIT"}


def test_student_edition_carries_the_licence():
    """The student edition's zip has its own top-level LICENSE, and its pages carry the licence footer
    (run by ``make student-test``, after the zip is built)."""
    import zipfile

    zip_path = ROOT / "dist" / "scalability-by-the-numbers-student.zip"
    if not zip_path.exists():
        pytest.skip("the student edition is not built: run `make student` first")
    with zipfile.ZipFile(zip_path) as zf:
        assert zf.read("LICENSE") == (ROOT / "LICENSE").read_bytes()
        assert "LICENSE" in zf.read("README.txt").decode()
        pages = [n for n in zf.namelist() if n.startswith("html/book/") and n.endswith(".html")]
        assert pages
        for name in pages:
            assert "creativecommons.org/licenses/by/4.0" in zf.read(name).decode(), f"{name} has no licence footer"
