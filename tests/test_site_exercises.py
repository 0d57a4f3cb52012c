"""Exercises answered in the HTML book, in headless Chromium: the page's checker (``site_assets/exercises.js``,
reading the sealed data that ``book/_ext/book_extras.py`` puts in each page) gives the kernel checker's verdict,
word for word, in both editions.

For every part of every page (one page load each): the right answer, every band on both sides, every unit slip
the part's program names, zero, the wrong sign, a fraction where a whole number is asked, a blank, text where a
number is wanted, a number too large for a float, a percentage typed with its sign, and for lists a wrong
count, a blank entry and lists typed in the ways a reader types them; words are tried as every option, blank,
and (through the checker alone) as synonyms and spellings. Each is answered in the page as the Check button
does (its verdict read back from ``[data-verdict-for]``) and compared with ``check(key, value).text()`` for the
Python value the typed text stands for (:func:`python_value`, the reading documented in exercises.js).

Then: what a reader does by keyboard alone, a page opened from ``file://`` with the network cut, answers kept
across visits and shown in the exercise index, the fields on a 390-pixel phone in dark mode (a screenshot is
written to ``_build/screens/exercise-verdict-phone-dark.png``), and no expected value or word answer in any
page's data or in the script. The student edition's tests (``-k student``) run once ``make student`` built it.
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
from pathlib import Path

import pytest
from site_pages import SITE, _QuietHandler, _Server

from scalinglib.exercises import check, expected_answer, registered_keys
from scalinglib.exercises.core import _REGISTRY, _program

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
STUDENT_SITE = ROOT / "_build" / "student" / "_build" / "html"
EDITIONS = {"full": SITE, "student": STUDENT_SITE}
SCREEN = ROOT / "_build" / "screens" / "exercise-verdict-phone-dark.png"
REPORT = ROOT / "_build" / "exercise-report.json"
DATA = re.compile(r'<script type="application/json" id="sl-exercise-data">(.*?)</script>', re.S)


def exercise_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in (site / "book").glob("03-0*.html")
                  if 'id="sl-exercise-data"' in p.read_text(encoding="utf-8"))


def page_data(site: Path, name: str) -> dict:
    return json.loads(DATA.search((site / name).read_text(encoding="utf-8")).group(1))


# --- what a typed answer means in Python (as exercises.js documents it) ------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _item(text: str, percent_asked: bool):
    if text == "...":
        return ...
    percent = text.endswith("%")
    body = text[:-1].strip() if percent else text
    if not _NUMBER.fullmatch(body):
        return text
    if re.fullmatch(r"[+-]?\d+", body) and (not percent or percent_asked):
        return int(body)
    return float(body) / 100 if percent and not percent_asked else float(body)


def _split(text: str) -> list[str]:
    t = text.strip()
    if re.fullmatch(r"\[.*\]|\(.*\)", t):
        t = t[1:-1]
    return [s for s in re.split(r"\s*[,;]\s*|\s+", t) if s]


def python_value(key: str, typed):
    """The Python value a reader's typed answer stands for: what the page judges ``typed`` as."""
    part = _REGISTRY[key]
    if part.kind == "choices" and isinstance(typed, list):
        return ... if all(t == "" for t in typed) else [... if t == "" else t for t in typed]
    if typed.strip() == "":
        return ...
    if part.kind == "number":
        return _item(typed.strip(), part.unit_of(0).key == "%")
    if part.kind == "numbers":
        units = part.unit if isinstance(part.unit, tuple) else (part.unit,) * 1000
        return [_item(t, i < len(units) and units[i] == "%") for i, t in enumerate(_split(typed))]
    if part.kind == "choices":
        return [... if t == "..." else t for t in _split(typed)]
    return typed.strip()


# --- the answers tried -----------------------------------------------------------------------------------

FACTORS = (1.03, 0.97, 1.004, 1.15, 0.85, 1.6, 0.6, 4.0, 0.3, 30.0, 0.02, 1e5)


def _typed(x) -> str:
    return str(x) if isinstance(x, int) else repr(float(x))


def _wrong_numbers(part, i: int, e) -> list:
    """Answers to entry ``i`` (expected ``e``) that reach every step of its program: bands, slips, the rest."""
    e = float(e)
    values = [e * f for f in FACTORS] + [-e, 0, e + 1, e - 1]
    for test, argument, _ in _program(part, i):
        if test == "/":
            values.append(e * argument)
        elif test == "*":
            values.append(e / argument)
        elif test == "1-":
            values.append(1 - e)
        elif test == "inv":
            values += [1 / e, 1.02 / e]
        elif test == "frac":
            values.append(e + 0.5)
    if part.whole_of(i):
        values = [round(v) if v == round(v) else v for v in values] + [round(e * f) for f in FACTORS]
    return values


def cases(key: str) -> list[tuple[str, object]]:
    """(how, typed answer) for a part: "dom" answers go through the page's fields, "pure" through its checker."""
    part = _REGISTRY[key]
    expected = expected_answer(key)
    out: list[tuple[str, object]] = []
    if part.kind == "number":
        out.append(("dom", _typed(expected)))
        out += [("dom", _typed(v)) for v in _wrong_numbers(part, 0, expected)]
        percent = _typed(float(expected) * (1 if part.unit_of(0).key == "%" else 100)) + "%"
        out += [("dom", t) for t in ("", "   ", "...", "abc", "12 GB", "1e999", "9" * 400, percent, f" {_typed(expected)} ")]
    elif part.kind == "numbers":
        right = [_typed(v) for v in expected]
        n = len(right)
        out += [("dom", "[" + ", ".join(right) + "]"), ("dom", ", ".join(right)), ("dom", " ".join(right)),
                ("dom", "(" + ",".join(right) + ")"), ("dom", ""), ("dom", ", ".join(right[:-1])),
                ("dom", ", ".join(right + ["1"])), ("dom", ", ".join(["..."] * n))]
        for i, e in enumerate(expected):
            for v in _wrong_numbers(part, i, e) + ["abc", "...", "1e999"]:
                entry = v if isinstance(v, str) else _typed(v)
                out.append(("dom", "[" + ", ".join(right[:i] + [entry] + right[i + 1:]) + "]"))
    else:
        options = part.listed_choices()
        answers = [expected] if part.kind == "choice" else list(expected)
        spellings = ["nonsense", "  " + answers[0].upper() + "-bound ", answers[0].replace(" ", "_"), "RING", ""]
        spellings += [s for synonyms in part.choice_map() for s in [synonyms]][:6]
        if part.kind == "choice":
            out += [("dom", o) for o in options + [""]]
            out += [("pure", s) for s in spellings]
        else:
            out.append(("dom", answers))
            out.append(("dom", [""] * len(answers)))
            for i in range(len(answers)):
                for o in options + [""]:
                    out.append(("dom", answers[:i] + [o] + answers[i + 1:]))
            out += [("pure", ", ".join(answers)), ("pure", ", ".join(answers[:-1])), ("pure", ", ".join(spellings[:2]))]
            out += [("pure", ", ".join([s] * len(answers))) for s in spellings if s]
    return out


ANSWER_ALL_JS = """(cases) => cases.map(([key, how, typed]) => {
  const api = window.scalinglibExercises;
  if (how === 'pure') return api.check(key, typed).text;
  api.answer(key, typed);
  return document.querySelector(`[data-verdict-for="${key}"]`).textContent;
})"""


@pytest.fixture(scope="module")
def servers():
    """One server per built edition, on 127.0.0.1."""
    running = {}

    def url(edition: str) -> str:
        site = EDITIONS[edition]
        if not (site / "index.html").exists():
            pytest.skip(f"the {edition} edition is not built (`make book`, `make student`)")
        if edition not in running:
            server = _Server(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            running[edition] = server
        return f"http://127.0.0.1:{running[edition].server_address[1]}"

    yield url
    for server in running.values():
        server.shutdown()


@pytest.fixture(scope="module")
def report():
    out: dict = {}
    yield out
    if out:
        old = json.loads(REPORT.read_text()) if REPORT.exists() else {}
        REPORT.write_text(json.dumps({**old, **out}, indent=1))


def _only_the_checker(route):
    """Let a page load its HTML and the checker's files and nothing else (figures, widgets, MathJax, the theme's
    scripts): the verdicts need none of them, and a heavy page then loads in a fraction of the time."""
    url = route.request.url.split("?")[0]
    if route.request.resource_type == "document" or url.endswith(("/vendor/exercises.js", "/vendor/exercises.css")):
        route.continue_()
    else:
        route.abort()


def _theme_and_checker(route):
    """The page with its styles and the theme's scripts (light or dark), without the heavy rest (MathJax, the
    widget manager, figures, fonts)."""
    request = route.request
    if request.resource_type in ("document", "stylesheet") or (
            request.resource_type == "script" and not re.search(r"mathjax|html-manager|requirejs|widgets", request.url)):
        route.continue_()
    else:
        route.abort()


def _open(context, url: str, only_the_checker: bool = False):
    """A page of ``context`` with the checker ready; the errors its scripts raise (only those of the checker's
    script when the page loads nothing else, ``_only_the_checker``)."""
    page = context.new_page()
    errors = []

    def error(e):
        text = f"{e}\n{getattr(e, 'stack', '')}"
        if not only_the_checker or "exercises.js" in text:
            errors.append(text)

    page.on("pageerror", error)
    if not only_the_checker:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function("() => window.scalinglibExercises !== undefined", timeout=15000)
    return page, errors


@pytest.mark.parametrize("edition", ["full", "student"])
def test_every_part_gets_the_kernels_verdicts(browser, servers, report, edition):
    url = servers(edition)
    site = EDITIONS[edition]
    pages = exercise_pages(site)
    seen, tried, disagree = [], 0, []
    context = browser.new_context()
    context.route("**/*", _only_the_checker)
    try:
        for name in pages:
            keys = list(page_data(site, name)["parts"])
            seen += keys
            todo = [[key, how, typed] for key in keys for how, typed in cases(key)]
            page, errors = _open(context, f"{url}/{name}", only_the_checker=True)
            got = page.evaluate(ANSWER_ALL_JS, todo)
            page.close()
            assert not errors, errors
            for (key, _how, typed), text in zip(todo, got):
                want = check(key, python_value(key, typed)).text()
                if text != want:
                    disagree.append(f"{key} {typed!r}:\n  page:   {text!r}\n  kernel: {want!r}")
            tried += len(todo)
    finally:
        context.close()
    assert sorted(seen) == sorted(registered_keys()), "every registered part has its field, once"
    assert not disagree, f"{len(disagree)} of {tried} verdicts differ:\n" + "\n".join(disagree[:10])
    report[f"agreement_{edition}"] = {"parts": len(seen), "answers": tried}


@pytest.mark.parametrize("edition", ["full", "student"])
def test_the_pages_hold_no_expected_value_and_list_choices_in_a_neutral_order(edition):
    """The pages' data and the script hold only seals: no expected number in any printed form of four or more
    significant figures, no word answer outside the public options; options are listed alphabetically."""
    site = EDITIONS[edition]
    if not (site / "index.html").exists():
        pytest.skip(f"the {edition} edition is not built")
    forms = {}
    for key in registered_keys():
        part = _REGISTRY[key]
        if part.kind in ("number", "numbers"):
            values = [expected_answer(key)] if part.kind == "number" else list(expected_answer(key))
            for v in map(float, values):
                for form in {repr(v), f"{v:.6g}", f"{v:.5g}", f"{v:.4g}", f"{v:.3e}"} | ({str(int(v))} if v == round(v) else set()):
                    if v == round(v) and v >= 1 and math.log2(v).is_integer():
                        continue    # a power of two (8,192 GPUs) is every cluster's and batch's size: not distinctive
                    if len(re.sub(r"\D", "", form.split("e")[0]).strip("0")) >= 4:
                        forms[form] = key
    script = (site / "vendor" / "exercises.js").read_text()
    words = set()
    for key in registered_keys():
        if _REGISTRY[key].kind in ("choice", "choices"):
            answer = expected_answer(key)
            words.update([answer] if isinstance(answer, str) else answer)
    for name in exercise_pages(site):
        data = page_data(site, name)
        text = json.dumps(data)
        numbers = set(re.findall(r"(?<![\w.+/])[0-9][0-9.]*(?:e[+-]?[0-9]+)?(?![\w+/])", text + script))
        leaks = sorted(f"{form} ({forms[form]})" for form in numbers & set(forms))
        assert not leaks, f"{name}: {leaks}"
        for key, part in data["parts"].items():
            if part["kind"] in ("choice", "choices"):
                assert part["options"] == sorted(part["options"], key=lambda c: (c.lower(), c))
                hidden = {k: v for k, v in part.items() if k not in ("options", "words", "how")}
                assert not any(f'"{w}"' in json.dumps(hidden) for w in words), key
        page = (site / name).read_text(encoding="utf-8")
        for select in re.findall(r"<select [^>]*>(.*?)</select>", page):
            listed = re.findall(r'<option value="([^"]+)">', select)
            assert listed == sorted(listed, key=lambda c: (c.lower(), c))


def test_the_script_holds_no_rule_and_no_message_of_its_own():
    """Every word of a verdict comes from the page's data (exported by the kernel's checker), none from the script."""
    from scalinglib.exercises.core import BANDS, MESSAGES

    script = (ROOT / "site_assets" / "exercises.js").read_text()
    code = "\n".join(line.split(" // ")[0] for line in script.splitlines() if not line.lstrip().startswith("//"))
    literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"', code)
    phrases = [piece.strip() for phrase in [*MESSAGES.values(), *(b[2] for b in BANDS)]
               for piece in re.split(r"\{\w+\}", phrase) if " " in piece.strip()]
    words = {"within", "hint", "complement", "accepted", "whole", "reciprocal", "scaling", "bound", "limited",
             "answered", "factor"}
    for literal in (lit for lit in literals if lit not in MESSAGES):      # a message's name is not its words
        assert not any(p in literal for p in phrases), f"exercises.js spells out a message: {literal!r}"
        assert not words & set(re.findall(r"[a-z]+", literal.lower())), f"exercises.js spells out {literal!r}"


def test_a_reader_answers_by_keyboard_alone(browser, servers):
    url = servers("full")
    site = EDITIONS["full"]
    name = exercise_pages(site)[0]
    data = page_data(site, name)
    number = next(k for k, p in data["parts"].items() if p["kind"] == "number")
    context = browser.new_context()
    context.route("**/*", _only_the_checker)
    try:
        page, errors = _open(context, f"{url}/{name}", only_the_checker=True)
        field = page.locator(f'input[data-part="{number}"]')
        label = page.locator(f'label[for="{field.get_attribute("id")}"]')
        assert number in label.inner_text() and label.is_visible()
        verdict = page.locator(f'[data-verdict-for="{number}"]')
        assert verdict.get_attribute("aria-live") == "polite" and verdict.get_attribute("role") == "status"
        field.focus()
        page.keyboard.type(_typed(expected_answer(number)))
        page.keyboard.press("Enter")
        assert verdict.text_content() == check(number, expected_answer(number)).text()
        page.keyboard.press("Tab")           # the Check button
        assert page.evaluate("document.activeElement.getAttribute('data-check')") == number
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Control+A")
        page.keyboard.type("abc")
        page.keyboard.press("Tab")
        page.keyboard.press("Space")         # Check, pressed from the keyboard
        assert verdict.text_content() == check(number, "abc").text()
        assert not errors, errors
        page.close()
        # a word part: its options chosen with the arrow keys
        chooser = next(n for n in exercise_pages(site) if any(p["kind"] == "choice" for p in page_data(site, n)["parts"].values()))
        key = next(k for k, p in page_data(site, chooser)["parts"].items() if p["kind"] == "choice")
        page, errors = _open(context, f"{url}/{chooser}", only_the_checker=True)
        select = page.locator(f'select[data-part="{key}"]')
        select.focus()
        page.keyboard.press("ArrowDown")
        chosen = select.input_value()
        assert chosen
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert page.locator(f'[data-verdict-for="{key}"]').text_content() == check(key, chosen).text()
        assert not errors, errors
    finally:
        context.close()


def test_answers_are_kept_shown_in_the_index_and_cleared(browser, servers):
    url = servers("full")
    site = EDITIONS["full"]
    name = exercise_pages(site)[0]
    keys = list(page_data(site, name)["parts"])
    first = keys[0]
    exercise = first[:-1]
    mine = [k for k in keys if k[:-1] == exercise]
    context = browser.new_context()
    context.route("**/*", _only_the_checker)
    try:
        page, _ = _open(context, f"{url}/{name}")
        right = expected_answer(first)
        typed = _typed(right) if not isinstance(right, (list, tuple)) else ", ".join(map(_typed, right))
        page.evaluate("([k, a]) => window.scalinglibExercises.answer(k, a)", [first, typed])
        page.reload(wait_until="domcontentloaded")
        page.wait_for_function("() => window.scalinglibExercises !== undefined")
        assert page.locator(f'[data-part="{first}"]').first.input_value() == typed
        assert page.locator(f'[data-verdict-for="{first}"]').get_attribute("data-status") == "correct"
        index, _ = _open(context, f"{url}/book/exercise-index.html")
        cell = index.locator(f'[data-progress-parts="{" ".join(mine)}"]')
        assert cell.text_content().startswith(f"1 of {len(mine)} right"), cell.text_content()
        index.locator("button.sl-clear-all").click()
        assert cell.text_content().startswith(f"0 of {len(mine)} right")
        page.reload(wait_until="domcontentloaded")
        page.wait_for_function("() => window.scalinglibExercises !== undefined")
        assert page.locator(f'[data-part="{first}"]').first.input_value() == ""
        page.evaluate("([k, a]) => window.scalinglibExercises.answer(k, a)", [first, typed])
        page.locator(f'form[data-exercise="{exercise}"] button.sl-clear').click()
        assert page.locator(f'[data-verdict-for="{first}"]').text_content() == ""
        assert page.evaluate("localStorage.getItem('scalinglib.answers')") == "{}"
    finally:
        context.close()


def test_a_page_from_file_checks_answers_with_the_network_cut(browser):
    site = EDITIONS["full"]
    if not (site / "index.html").exists():
        pytest.skip("the site is not built")
    name = exercise_pages(site)[-1]
    key = next(iter(page_data(site, name)["parts"]))
    context = browser.new_context(offline=True)
    asked = []

    def network(route):
        if route.request.url.startswith("file:"):
            _only_the_checker(route)
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", network)
    try:
        page, errors = _open(context, (site / name).as_uri(), only_the_checker=True)
        right = expected_answer(key)
        typed = right if isinstance(right, str) else _typed(right) if not isinstance(right, (list, tuple)) else \
            ", ".join(map(_typed, right))
        text = page.evaluate("([k, a]) => window.scalinglibExercises.answer(k, a).text", [key, typed])
        assert text == check(key, python_value(key, typed)).text() and text.startswith("✔")
        assert asked == [], asked
        assert not errors, errors
    finally:
        context.close()


def test_a_verdict_on_a_phone_in_dark_mode(browser, servers, report):
    url = servers("full")
    site = EDITIONS["full"]
    name = exercise_pages(site)[0]
    key = next(k for k, p in page_data(site, name)["parts"].items() if p["kind"] == "number")
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark", device_scale_factor=2)
    context.route("**/*", _theme_and_checker)
    try:
        page, errors = _open(context, f"{url}/{name}", only_the_checker=True)
        page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
        wrong = f"{float(expected_answer(key)) * 1.1:.4g}"
        page.evaluate("([k, a]) => window.scalinglibExercises.answer(k, a)", [key, wrong])
        form = page.locator(f'form[data-exercise="{key[:-1]}"]')
        form.scroll_into_view_if_needed()
        box = form.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for selector in (f'[data-part="{key}"]', f'button[data-check="{key}"]'):
            b = page.locator(selector).bounding_box()
            assert b["height"] >= 36 and b["x"] + b["width"] <= 390, (selector, b)
        colours = page.locator(f'[data-verdict-for="{key}"]').evaluate(
            "el => [getComputedStyle(el).color, getComputedStyle(document.body).backgroundColor]")
        SCREEN.parent.mkdir(parents=True, exist_ok=True)
        shown = page.locator(f'[data-verdict-for="{key}"]').locator("xpath=..")      # the part: label, field, verdict
        shown.scroll_into_view_if_needed()
        shown.screenshot(path=str(SCREEN))
        assert not errors, errors
        report["phone_dark"] = {"page": name, "part": key, "answer": wrong, "colours": colours,
                                "screenshot": str(SCREEN.relative_to(ROOT))}
        light = [int(c) for c in re.findall(r"\d+", colours[0])[:3]]
        assert sum(light) > 3 * 150, f"verdict text is not light on the dark page: {colours}"
    finally:
        context.close()


def test_bytes_each_exercise_ships(report):
    """The weight the in-page checker adds to each page (its data), per part: recorded, and kept small."""
    site = EDITIONS["full"]
    if not (site / "index.html").exists():
        pytest.skip("the site is not built")
    sizes = {}
    for name in exercise_pages(site):
        page = (site / name).read_text(encoding="utf-8")
        data = len(DATA.search(page).group(0).encode())
        forms = sum(len(f.encode()) for f in re.findall(r'<form class="sl-answers".*?</form>', page, re.S))
        parts = len(page_data(site, name)["parts"])
        sizes[name] = {"parts": parts, "data_bytes": data, "form_bytes": forms,
                       "bytes_per_part": math.ceil((data + forms) / parts)}
    script = (site / "vendor" / "exercises.js").stat().st_size + (site / "vendor" / "exercises.css").stat().st_size
    report["weight"] = {"pages": sizes, "shared_script_and_style_bytes": script}
    for name, size in sizes.items():
        assert size["bytes_per_part"] < 5000, (name, size)
