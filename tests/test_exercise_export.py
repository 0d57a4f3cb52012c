"""The checker exported for the HTML book (``core.page_data``), without a browser: it covers every registered part,
holds no expected value, lists choices in an order that says nothing about the answer, and the page's script
(``site_assets/exercises.js``), run by Node.js on that data, gives the kernel's verdict on numbers drawn around
every entry's answer (the browser tests, tests/test_site_exercises.py, do the same in the built pages). One sealed
table serves both editions (``tools/build_book.py``, ``sealed_table``)."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scalinglib.exercises import check, core, expected_answer, registered_keys
from scalinglib.exercises.core import _REGISTRY, MESSAGES, page_data

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "site_assets" / "exercises.js"
KEYS = registered_keys()


@pytest.fixture(scope="module")
def table():
    return core.seal_all(pad=True)


@pytest.fixture(scope="module")
def data(table):
    return page_data(table, KEYS)


def test_every_part_is_exported_with_its_programs(data, table):
    assert list(data["parts"]) == KEYS
    for key, part in data["parts"].items():
        registered = _REGISTRY[key]
        assert part["kind"] == registered.kind and part["hint"] == registered.hint
        if part["kind"] in ("number", "numbers"):
            for i, entry in enumerate(part["entries"]):
                steps = data["programs"][entry[5]]
                assert [s[0] for s in steps] == [s[0] for s in core._program(registered, i)]
                rendered = ["".join("<x>" if p < 0 else data["strings"][p] for p in s[2]) for s in steps]
                assert rendered == [core._render(s[2], "<x>") for s in core._program(registered, i)]
    assert data["messages"] == MESSAGES


def test_the_export_holds_no_expected_value(data):
    text = json.dumps(data)
    numbers = set(re.findall(r"(?<![\w.+/])[0-9][0-9.]*(?:e[+-]?[0-9]+)?(?![\w+/])", text))
    for key in KEYS:
        part = _REGISTRY[key]
        if part.kind not in ("number", "numbers"):
            continue
        values = [expected_answer(key)] if part.kind == "number" else list(expected_answer(key))
        for v in map(float, values):
            if v == round(v) and (abs(v) < 1000 or math.log2(abs(v)).is_integer()):
                continue          # small counts and powers of two are in every statement and hint
            forms = {repr(v), f"{v:.6g}", f"{v:.4g}"} | ({str(int(v))} if v == round(v) else set())
            forms = {f for f in forms if len(re.sub(r"\D", "", f.split("e")[0]).strip("0")) >= 4}
            assert not numbers & forms, (key, numbers & forms)
    for key in KEYS:
        part = data["parts"][key]
        if part["kind"] in ("choice", "choices"):
            hidden = json.dumps({k: v for k, v in part.items() if k not in ("options", "words", "how")})
            answers = expected_answer(key)
            for word in [answers] if isinstance(answers, str) else answers:
                assert f'"{word}"' not in hidden, key


def test_choices_are_listed_alphabetically_everywhere(data):
    for key in KEYS:
        part = _REGISTRY[key]
        if part.kind not in ("choice", "choices"):
            continue
        listed = part.listed_choices()
        assert listed == sorted(listed, key=lambda c: (c.lower(), c))
        assert data["parts"][key]["options"] == listed
        assert list(part.metadata()["choices"]) == listed
        message = check(key, "no such word").message
        assert ", ".join(repr(c) for c in listed[:-1]) in message


def _node_verdicts(data, cases):
    """Verdicts of site_assets/exercises.js, run by Node.js on ``data``, for ``cases`` [[key, typed], ...]."""
    runner = (
        "const fs = require('fs');\n"
        "const [data, cases] = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "global.window = {};\n"
        "global.document = {readyState: 'complete', querySelectorAll: () => [], querySelector: () => null,\n"
        "  getElementById: (id) => id === 'sl-exercise-data' ? {textContent: JSON.stringify(data)} : null};\n"
        f"require({json.dumps(str(SCRIPT))});\n"
        "console.log(JSON.stringify(cases.map(([k, a]) => window.scalinglibExercises.check(k, a).text)));\n")
    out = subprocess.run(["node", "-e", runner], input=json.dumps([data, cases]), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (npm, which fetches the site's "
                                                         "scripts, brings it)")
def test_the_pages_script_agrees_with_the_kernel_on_drawn_numbers(data):
    """Numbers drawn log-uniformly within a factor of 30 of every entry's answer, rounded to 2 to 7 significant
    figures (and whole where the entry is), typed as a reader types them: the script's verdict is the kernel's."""
    rng = random.Random()
    cases, values = [], []
    for key in KEYS:
        part = _REGISTRY[key]
        if part.kind not in ("number", "numbers"):
            continue
        expected = [expected_answer(key)] if part.kind == "number" else list(expected_answer(key))
        for _ in range(12):
            drawn = []
            for i, e in enumerate(expected):
                x = float(e) * math.exp(rng.uniform(-3.4, 3.4) * rng.random() ** 2) * rng.choice((1, 1, 1, -1))
                x = float(f"{x:.{rng.randint(2, 7)}g}")
                drawn.append(int(round(x)) if part.whole_of(i) and rng.random() < 0.7 else x)
            typed = [str(x) if isinstance(x, int) else repr(x) for x in drawn]
            cases.append([key, typed[0] if part.kind == "number" else "[" + ", ".join(typed) + "]"])
            values.append(drawn[0] if part.kind == "number" else drawn)
    got = _node_verdicts(data, cases)
    wrong = [(c, g, check(c[0], v).text()) for c, v, g in zip(cases, values, got) if g != check(c[0], v).text()]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, first: {wrong[0]}"


def test_one_sealed_table_per_library(tmp_path, monkeypatch):
    """Both editions read the same table; it is sealed again only when the library changes."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book

    calls = []
    monkeypatch.setattr(build_book, "BUILD", tmp_path)
    monkeypatch.setattr(build_book, "SEALED", tmp_path / "sealed-exercises.json")
    monkeypatch.setattr(core, "seal_all", lambda pad=True: calls.append(pad) or {"version": 1, "parts": []})
    library = ["one"]
    monkeypatch.setattr(build_book, "fingerprint", lambda: library[0])
    first = build_book.sealed_table().read_text()
    assert build_book.sealed_table().read_text() == first and calls == [True]
    library[0] = "two"
    build_book.sealed_table()
    assert calls == [True, True]
    assert json.loads(build_book.SEALED.read_text())["library"] == "two"
