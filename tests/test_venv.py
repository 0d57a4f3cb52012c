"""The venv's start-up shim (tools/lazy_rfc3987.py, installed by tools/setup_venv.sh): importing jsonschema
no longer builds the IRI grammar, and IRIs are judged exactly as the real package judges them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "tools" / "lazy_rfc3987.py"

PROBE = textwrap.dedent("""
    import sys, time
    t0 = time.perf_counter()
    import jsonschema
    seconds = time.perf_counter() - t0
    stand_in = getattr(sys.modules.get("rfc3987_syntax"), "__lazy_stand_in__", False)
    checker = jsonschema.FormatChecker()
    values = ["http://example.com/ä", "not an iri ::", "/relative/path?q=1", "http://[::1]:80/", "%zz", ""]
    verdicts = [[checker.conforms(v, f) for v in values] for f in ("iri", "iri-reference")]
    real = not getattr(sys.modules["rfc3987_syntax"], "__lazy_stand_in__", False)
    print(repr((stand_in, real, verdicts, seconds)))
""")


def _probe(prefix: str = ""):
    out = subprocess.run([sys.executable, "-S" if prefix else "-I", "-c", prefix + PROBE],
                         capture_output=True, text=True, check=True)
    return eval(out.stdout.strip())  # noqa: S307 - our own probe's repr


@pytest.fixture(scope="module")
def installed():
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    if not (site / "_scalinglib_lazy_rfc3987.pth").exists():
        pytest.skip("this interpreter's venv was not made by tools/setup_venv.sh")
    return site


def test_the_installed_shim_is_the_repository_file(installed):
    assert (installed / "_scalinglib_lazy_rfc3987.py").read_text() == SHIM.read_text()


def test_jsonschema_imports_without_the_grammar_and_judges_iris_as_before(installed):
    stand_in, real_after_use, verdicts, _ = _probe()
    assert stand_in, "importing jsonschema built the IRI grammar"
    assert real_after_use, "checking an IRI did not hand over to the real package"
    # the reference: -S skips the .pth files (so the shim), and site-packages is put on the path by hand
    plain_stand_in, _, reference, _ = _probe(f"import sys; sys.path.append({str(installed)!r})\n")
    assert not plain_stand_in
    assert verdicts == reference
    assert verdicts[0][:2] == [True, False]
