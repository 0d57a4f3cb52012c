"""Grading a class (tools/grade.py): a folder of synthetic submissions of Section 3.1 (all right, all blank,
half right, one that raises, one that loops forever, one with a tampered check call, one with a deleted
answer cell) is graded into a CSV gradebook and feedback files, from the answers themselves, without the
batch ever stopping.

A hostile class (beside two honest submissions) attacks the grader from inside its sandbox
(tools/sandbox.py): it reads, deletes and rewrites the other submissions and the grades, writes outside its
folder, opens network connections, forks until refused, allocates 20 GB, kills its parent, floods its output,
exits its kernel and leaves processes running. Each is contained: the submissions and the grades stay byte
for byte what the grader meant them to be, no file appears outside the sandbox, nothing outlives it, and
the honest submissions get their full marks. Without a sandbox the grader refuses, unless told
UNSAFE_NO_SANDBOX=1, and the gradebook says so."""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

import nbformat
import pytest

from scalinglib.exercises import expected_answer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import grade  # noqa: E402
import sandbox  # noqa: E402
import student  # noqa: E402

SECTION = ROOT / "book" / "03-01-what-does-it-mean-to-scale.ipynb"


def _given_notebook():
    """The notebook as students get it, cut to its first code cell (the imports) and its exercises, so the
    test runs quickly: a submission that deletes cells is graded on what it keeps."""
    nb = student.strip_solutions(nbformat.read(SECTION, as_version=4))
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    start = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
    nb.cells = [nb.cells[first_code], *nb.cells[start:]]
    return nb


def _wrong(value):
    if isinstance(value, str):
        return "noise" if value != "noise" else "memory"
    if isinstance(value, (list, tuple)):
        return [_wrong(v) for v in value]
    return value * 2 + 1


@functools.lru_cache(maxsize=1)
def _templates() -> dict:
    return grade.book_templates()


def _fill(nb, answers: dict[str, object]):
    """Write answers into the answer cells, in place of the ``...`` the template assigns."""
    templates = _templates()
    cells = grade._answer_cells(nb)
    for label, index in cells.items():
        cell = nb.cells[index]
        for key, expr in templates[label].items():
            if key in answers:
                cell.source = re.sub(rf"(?m)^(\s*){re.escape(expr)}\s*=\s*\.\.\.", rf"\g<1>{expr} = {answers[key]!r}",
                                     cell.source)
    return nb


def _prepend(nb, label: str, code: str):
    index = grade._answer_cells(nb)[label]
    nb.cells[index].source = code + "\n" + nb.cells[index].source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    keys = [k for label in ("ex-3-1-1", "ex-3-1-2", "ex-3-1-3") for k in _templates()[label]]
    right = {k: expected_answer(k) for k in keys}
    half = {k: (v if i % 2 == 0 else _wrong(v)) for i, (k, v) in enumerate(right.items())}
    wrong = {k: _wrong(v) for k, v in right.items()}
    folder = tmp_path_factory.mktemp("submissions")
    given = _given_notebook
    subs = {
        "all_right": _fill(given(), right),
        "all_blank": given(),
        "half_right": _fill(given(), half),
        "raises": _prepend(_fill(given(), right), "ex-3-1-2", 'raise RuntimeError("my code broke")'),
        "loops_forever": _prepend(_fill(given(), right), "ex-3-1-3",   # waits rather than spins: the same
                                  "import time\nwhile True:\n    time.sleep(0.01)"),   # interrupt, no CPU burnt
        "tampered_check": _prepend(_fill(given(), wrong), "ex-3-1-1",
                                   'check = lambda key, answer: f"✔ {key}: {answer} is right"'),
    }
    deleted = _fill(given(), right)
    del deleted.cells[grade._answer_cells(deleted)["ex-3-1-2"]]
    subs["deleted_cell"] = deleted
    for name, nb in subs.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "not_a_notebook.ipynb").write_text("{ this is not json")
    out = tmp_path_factory.mktemp("grades")
    t0 = time.monotonic()
    try:
        sandbox.find()
    except sandbox.Unavailable:        # our own trusted notebooks: graded unconfined where no sandbox can be had
        os.environ[grade.UNSAFE] = "1"
    try:
        # 15 s: ample for a cell here even on a crowded machine (at load 16 on two cores the first cell,
        # which imports the library, once took more than 8 s); loops_forever waits it out asleep
        csv_path = grade.grade(folder, out, budget=90, cell_timeout=15, jobs=2)
    finally:
        os.environ.pop(grade.UNSAFE, None)
    seconds = time.monotonic() - t0
    with csv_path.open() as f:
        rows = {Path(r["submission"]).stem: r for r in csv.DictReader(f)}
    print(f"\ngraded {len(rows)} submissions in {seconds:.1f} s\n" + csv_path.read_text())
    return rows, out, keys, seconds


def test_one_row_per_file_one_column_per_part_and_a_total(graded):
    rows, out, keys, _ = graded
    assert set(rows) == {"all_right", "all_blank", "half_right", "raises", "loops_forever", "tampered_check",
                         "deleted_cell", "not_a_notebook"}
    header = list(next(iter(rows.values())))
    assert header == ["submission", "sha256", *keys, "total", "max", "problems", "sandbox"]
    for name, row in rows.items():
        assert int(row["total"]) == sum(int(row[k]) for k in keys)
        assert int(row["max"]) == len(keys) == 12
        assert (out / "feedback" / f"{name}.txt").exists()


def test_scores(graded):
    rows, _, keys, _ = graded
    total = {name: int(row["total"]) for name, row in rows.items()}
    assert total["all_right"] == 12 and rows["all_right"]["problems"] == ""
    assert total["all_blank"] == 0 and total["not_a_notebook"] == 0
    assert total["half_right"] == 6                                   # parts 1, 3, 5, ... of 12
    assert total["tampered_check"] == 0                               # its check said right; the answers are not
    # the cell that raises, the cell that loops and the deleted cell lose their own exercise's parts only
    for name, label, lost in (("raises", "ex-3-1-2", 3), ("loops_forever", "ex-3-1-3", 4), ("deleted_cell", "ex-3-1-2", 3)):
        assert total[name] == 12 - lost, name
        assert all(rows[name][k] == "0" for k in keys if k.startswith(label)), name


def test_problems_are_recorded(graded):
    rows, out, _, seconds = graded
    assert "RuntimeError: my code broke" in rows["raises"]["problems"]
    assert "ran longer than 15 s and was interrupted" in rows["loops_forever"]["problems"]
    assert "could not read" in rows["not_a_notebook"]["problems"]
    feedback = (out / "feedback" / "loops_forever.txt").read_text()
    assert "8 of 12 parts right" in feedback
    assert "interrupted" in feedback and "Hint:" in feedback
    assert seconds < 240


def test_feedback_gives_bands_and_hints_not_answers(graded):
    _, out, keys, _ = graded
    text = (out / "feedback" / "half_right.txt").read_text()
    assert text.startswith("Feedback on half_right.ipynb: 6 of 12 parts right.")
    wrong = [line for line in text.splitlines() if line.startswith("✘")]
    assert len(wrong) == 6 and all("Answer" in line for line in wrong)
    assert not re.search(r"\d%\s+too|\d+(\.\d+)? too (high|low)", text)   # no distance from the answer


# --- a hostile class, in the sandbox -------------------------------------------------------------------------

# Each hostile cell ends by raising its report, which the gradebook's feedback records as the cell's error.
_OUTCOME = '''
import errno as _errno, json as _json
def _try(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return _errno.errorcode.get(exc.errno, type(exc).__name__)
    except Exception as exc:
        return type(exc).__name__
def _report(case, found):
    raise RuntimeError("report-" + case + " " + _json.dumps(found, separators=(",", ":")))
'''

_FILES = '''
import os, pathlib
token, subs, grades, repo, home = {token!r}, {subs!r}, {grades!r}, {repo!r}, {home!r}
seen = []
for top in ("/", subs, grades):
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/usr", "/proc", "/sys", "/dev")
                   and d != "site-packages" and not d.startswith("python3")]
        seen += [f for f in files if f.endswith((".ipynb", ".csv"))]
w = lambda path: lambda: pathlib.Path(path).write_text("overwritten by " + token)
_report("files", {{
    "seen": len(seen),
    "read_sub": _try(lambda: open(subs + "/honest_1.ipynb").read()),
    "del_sub": _try(lambda: os.remove(subs + "/honest_1.ipynb")),
    "rewrite_sub": _try(w(subs + "/honest_2.ipynb")),
    "new_sub": _try(w(subs + "/" + token + ".ipynb")),
    "read_grades": _try(lambda: open(grades + "/gradebook.csv").read()),
    "del_grades": _try(lambda: os.remove(grades + "/gradebook.csv")),
    "new_feedback": _try(w(grades + "/feedback/" + token + ".txt")),
    "repo": _try(w(repo + "/" + token)),
    "library": _try(w(repo + "/scalinglib/" + token + ".py")),
    "venv": _try(w(repo + "/.venv/" + token)),
    "real_home": _try(w(home + "/" + token)),
    "tmp": _try(w("/tmp/" + token)),
    "home": _try(w(os.path.expanduser("~/" + token))),
    "cwd": _try(w(token)),
}})
'''

_NETWORK = '''
import socket
def _connect(address):
    def go():
        socket.create_connection(address, timeout=2).close()
    return go
_report("network", {{
    "loopback_port": _try(_connect(("127.0.0.1", {port}))),
    "internet": _try(_connect(("1.1.1.1", 53))),
    "dns": _try(lambda: socket.getaddrinfo("example.org", 80)),
    "interfaces": [name for _, name in socket.if_nameindex()],
}})
'''

_MEMORY = '''
import numpy as np
def _big():
    global hoard
    hoard = bytearray(20 * 10**9)
_report("memory", {"bytearray_20GB": _try(_big), "numpy_20GB": _try(lambda: np.ones(2_500_000_000))})
'''

_MEMORY_TOGETHER = '''
import os, signal, time
ready_r, ready_w = os.pipe()
pids = []
for _ in range(3):                  # 3 x 400 MB, each under the per-process limit, together past the cgroup's
    pid = os.fork()                 # (which the test lowers to 1 GB, to write less memory)
    if pid == 0:
        try:
            hoard = b"x" * 400_000_000
            os.write(ready_w, b".")
            time.sleep(120)
        finally:
            os._exit(0)
    pids.append(pid)
os.close(ready_w)
os.set_blocking(ready_r, False)
ready, ended, deadline = 0, {}, time.monotonic() + 60
while ready + len(ended) < 3 and time.monotonic() < deadline:     # each holds its 400 MB, or was ended
    try:
        ready += len(os.read(ready_r, 3))
    except BlockingIOError:
        pass
    for pid in pids:
        if pid not in ended and os.waitpid(pid, os.WNOHANG)[0]:
            ended[pid] = True
    time.sleep(0.05)
for pid in pids:
    if pid not in ended:
        os.kill(pid, signal.SIGTERM)
statuses = [os.waitpid(pid, 0)[1] for pid in pids if pid not in ended]
_report("memory_together", {"children": 3, "killed": len(ended), "held": ready})
'''

_LEFT_RUNNING = '''
import os, subprocess, sys, time
token = {token!r}
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", token], start_new_session=True)
if os.fork() == 0:                  # a daemon: fork, new session, fork again, then sleep
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", token])
    os._exit(0)
time.sleep(0.5)
_report("left_running", {{"started": 2}})
'''

_FORK_BOMB = '''
import os, time
children, error = 0, None
while children < 100_000:
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc
        break
    if pid == 0:                    # each child sleeps on (the sandbox's end must end it) and never returns
        try:
            time.sleep(600)
        finally:
            os._exit(0)
    children += 1
_report("fork_bomb", {"children": children, "stopped_by": _errno.errorcode.get(getattr(error, "errno", 0), "")})
'''

_KILL_PARENT = '''
import os, signal
os.kill(os.getppid(), signal.SIGKILL)       # the runner
os.kill(-1, signal.SIGKILL)                 # everything it may signal
os.kill({grader}, signal.SIGKILL)           # the grader, by its pid outside
'''


def _tree_hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _reports(feedback: str) -> dict[str, dict]:
    return {m.group(1): json.loads(m.group(2)) for m in re.finditer(r"RuntimeError: report-(\w+) (\{.*\})", feedback)}


def _with_cells(nb, *sources):
    nb.cells += [nbformat.v4.new_code_cell(src) for src in sources]
    return nb


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    try:
        sandbox.find()
    except sandbox.Unavailable as exc:
        pytest.skip(f"no sandbox here, so the hostile class is not run: {exc}")
    token = f"hostile{os.getpid()}x{time.monotonic_ns()}"
    subs = tmp_path_factory.mktemp("hostile_submissions")
    out = tmp_path_factory.mktemp("hostile_grades")
    (out / "feedback").mkdir()
    (out / "gradebook.csv").write_text("submission,total\nlast_year.ipynb,12\n")     # grades of an earlier run
    (out / "feedback" / "last_year.txt").write_text("Feedback on last_year.ipynb\n")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    keys = [k for label in ("ex-3-1-1", "ex-3-1-2", "ex-3-1-3") for k in _templates()[label]]
    right = {k: expected_answer(k) for k in keys}
    given = _given_notebook
    fill = dict(token=token, subs=str(subs), grades=str(out), repo=str(ROOT), home=os.path.expanduser("~"),
                port=listener.getsockname()[1], grader=os.getpid())
    subs_nbs = {
        "a_vandal": _with_cells(_fill(given(), right), _OUTCOME, _FILES.format(**fill), _NETWORK.format(**fill),
                                _MEMORY, _MEMORY_TOGETHER, _LEFT_RUNNING.format(**fill), 'print("x" * 12_000_000)',
                                _FORK_BOMB, "import os\nos._exit(3)"),    # floods, forks, exits its kernel
        "b_kills_parent": _prepend(_fill(given(), right), "ex-3-1-2", _KILL_PARENT.format(**fill)),
        "honest_1": _fill(given(), right),
        "honest_2": _fill(given(), right),
    }
    for name, nb in subs_nbs.items():
        nbformat.write(nb, subs / f"{name}.ipynb")
    before = {"subs": _tree_hashes(subs), "grades": _tree_hashes(out)}
    at_write = {}
    real_write = grade._write_results

    def write_results(*args):      # the grades folder just before the grader writes it
        at_write.update(_tree_hashes(out))
        return real_write(*args)

    grade._write_results = write_results
    memory = sandbox.CGROUP_LIMITS["memory"]
    sandbox.CGROUP_LIMITS["memory"] = 1024 * sandbox.MiB
    t0 = time.monotonic()
    try:   # no cell should come near its 60 s, even on a crowded machine
        csv_path = grade.grade(subs, out, budget=120, cell_timeout=60, jobs=2)
    finally:
        grade._write_results = real_write
        sandbox.CGROUP_LIMITS["memory"] = memory
        seconds = time.monotonic() - t0
    try:
        connection = listener.accept()
    except BlockingIOError:
        connection = None
    listener.close()
    with csv_path.open() as f:
        rows = {Path(r["submission"]).stem: r for r in csv.DictReader(f)}
    print(f"\nhostile class graded in {seconds:.1f} s\n" + csv_path.read_text())
    return {"rows": rows, "out": out, "subs": subs, "token": token, "before": before, "at_write": at_write,
            "after": {"subs": _tree_hashes(subs)}, "connection": connection, "seconds": seconds,
            "reports": _reports((out / "feedback" / "a_vandal.txt").read_text())}


def test_hostile_submissions_and_grades_are_untouched(hostile):
    assert hostile["after"]["subs"] == hostile["before"]["subs"]       # nothing read, deleted or rewritten
    assert hostile["at_write"] == hostile["before"]["grades"]         # until the grader writes them itself
    rows = hostile["rows"]
    for name, digest in hostile["before"]["subs"].items():
        assert rows[Path(name).stem]["sha256"] == digest              # each graded as read before any ran
    assert set(_tree_hashes(hostile["out"])) == {"gradebook.csv", *(f"feedback/{n}.txt" for n in rows)}


def test_hostile_files_stay_inside_the_sandbox(hostile):
    files = hostile["reports"]["files"]
    assert files["seen"] == 0
    for attempt in ("read_sub", "del_sub", "rewrite_sub", "new_sub", "read_grades", "del_grades", "new_feedback"):
        assert files[attempt] == "ENOENT", attempt            # those folders do not exist in the sandbox
    assert files["repo"] in ("ENOENT", "EACCES") and files["real_home"] in ("ENOENT", "EACCES")   # empty, not its own
    assert files["library"] == files["venv"] == "EROFS"       # read-only
    assert files["tmp"] == files["home"] == files["cwd"] == "ok"   # its private /tmp and HOME, gone afterwards
    token = hostile["token"]
    for folder in (Path("/tmp"), Path.home(), ROOT, ROOT / "scalinglib", hostile["subs"], hostile["out"]):
        assert not any(token in p.name for p in folder.iterdir()), folder


def test_hostile_network_is_cut_off(hostile):
    network = hostile["reports"]["network"]
    assert network["loopback_port"] == "ECONNREFUSED"          # its own loopback, not the machine's
    assert network["internet"] == "ENETUNREACH"
    assert network["dns"] != "ok" and network["interfaces"] == ["lo"]
    assert hostile["connection"] is None


def test_hostile_memory_processes_and_leftovers_are_bounded(hostile):
    reports = hostile["reports"]
    assert reports["memory"] == {"bytearray_20GB": "MemoryError", "numpy_20GB": "MemoryError"}
    vandal = hostile["rows"]["a_vandal"]
    if "a cgroup" in vandal["sandbox"]:                         # all its processes together: 1 GB in this test
        assert reports["memory_together"]["killed"] >= 1, reports["memory_together"]
        assert "went past 1024 MB together" in (hostile["out"] / "feedback" / "a_vandal.txt").read_text()
    else:
        assert reports["memory_together"] == {"children": 3, "killed": 0, "held": 3}
    assert reports["fork_bomb"]["stopped_by"] == "EAGAIN"
    assert 0 < reports["fork_bomb"]["children"] < sandbox.LIMITS["processes"]
    assert reports["left_running"] == {"started": 2}
    token, low, high = hostile["token"], *sandbox._UID_RANGE
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                assert token.encode() not in (proc / "cmdline").read_bytes(), proc
                assert not low <= proc.stat().st_uid < high, proc   # no process of a sandbox's uid
            except (FileNotFoundError, ProcessLookupError):
                pass
    assert hostile["rows"]["a_vandal"]["total"] == "12"         # its answers were right


def test_hostile_kill_flood_and_exit_cost_only_themselves(hostile):
    rows = hostile["rows"]
    assert rows["honest_1"]["total"] == rows["honest_2"]["total"] == "12"
    assert rows["honest_1"]["problems"] == rows["honest_2"]["problems"] == ""
    killer = rows["b_kills_parent"]
    assert killer["total"] == "5" and "the run ended before the notebook did" in killer["problems"]
    vandal = (hostile["out"] / "feedback" / "a_vandal.txt").read_text()   # its last two cells flood and exit
    assert "output passed 4 MB; the rest was dropped" in vandal and "the kernel died" in vandal
    assert rows["a_vandal"]["total"] == "12"
    assert all(r["sandbox"].startswith("bubblewrap") for r in rows.values())
    print("sandbox:", rows["honest_1"]["sandbox"])
    assert hostile["seconds"] < 240


# --- without a sandbox ----------------------------------------------------------------------------------------


def test_refuses_without_a_sandbox(tmp_path, monkeypatch):
    monkeypatch.delenv(grade.UNSAFE, raising=False)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), tmp_path / "a.ipynb")
    with pytest.raises(SystemExit) as refused:
        grade.grade(tmp_path, tmp_path / "grades", bwrap=str(tmp_path / "no-bwrap"))
    message = str(refused.value)
    assert "refusing" in message and "bubblewrap" in message and "UNSAFE_NO_SANDBOX=1" in message
    assert not (tmp_path / "grades").exists()


def test_unsafe_run_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv(grade.UNSAFE, "1")
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), subs / "a.ipynb")
    csv_path = grade.grade(subs, tmp_path / "grades", budget=30, cell_timeout=10, bwrap=str(tmp_path / "no-bwrap"))
    row = next(csv.DictReader(csv_path.open()))
    assert row["sandbox"].startswith("none: UNSAFE_NO_SANDBOX=1") and row["problems"] == ""


def test_folders_the_sandbox_shows_are_refused():
    python = Path(sys.executable)
    assert sandbox.protected_overlap([ROOT / "scalinglib" / "x"], python)
    assert sandbox.protected_overlap([Path("/usr/local/grades")], python)
    assert sandbox.protected_overlap([ROOT / "grades", Path("/tmp/submissions")], python) is None
