"""Numbers the prose of Section 3.1 quotes, recomputed from the library.

The notebook prints them above the sentences that quote them; this file pins the sentences, so a
change to the library that would make the text wrong fails here. (The table of 3.1.5 is pinned digit
for digit in test_seed_tables.py.)
"""

import re
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np
import pytest

import scalinglib as sl
from scalinglib import check
from scalinglib.exercises import s3_1 as ex1

NOTEBOOK = Path(__file__).resolve().parent.parent / "book" / "03-01-what-does-it-mean-to-scale.ipynb"


def _notebook():
    return nbformat.read(NOTEBOOK, as_version=4)


def _printed():
    """Everything the code cells show as text: printed lines and the plain-text form of their tables."""
    return "".join(o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", "")
                   for c in _notebook().cells if c.cell_type == "code" for o in c.get("outputs", []))


def _prose():
    return "\n".join(c.source for c in _notebook().cells if c.cell_type == "markdown")


def test_3_1_5_hand_written_model_is_the_library():
    """3.1.5 builds T, S, E by hand, then prints the library's S column; the two agree at every K."""
    f, ks = 0.05, 2 ** np.arange(10)
    t = f + (1 - f) / ks
    np.testing.assert_allclose(t, sl.amdahl_time(f, ks), rtol=1e-15)
    np.testing.assert_allclose(1 / t, sl.amdahl_speedup(f, ks), rtol=1e-15)
    np.testing.assert_allclose(1 / t / ks, sl.amdahl_efficiency(f, ks), rtol=1e-15)
    assert "S(K): [ 1.      1.9048  3.4783" in _printed()


@pytest.mark.parametrize("f", [0.01, 0.05, 0.2, 0.5])
def test_3_1_5_share_of_the_ceiling_is_fk_over_fk_plus_one_minus_f(f):
    ks = np.array([1, 2, 8, 64, 512, 4096])
    np.testing.assert_allclose(sl.amdahl_speedup(f, ks) / sl.amdahl_ceiling(f), f * ks / (f * ks + 1 - f), rtol=1e-12)


def test_3_1_5_a_large_serial_fraction_reaches_its_ceiling_at_once():
    """At f = 0.5 two workers reach two thirds of the ceiling and 64 reach 98.5% (not 'approached slowly');
    at f = 0.05, 64 workers reach 77%."""
    def share(f, k):
        return float(f * sl.amdahl_speedup(f, k))
    assert sl.amdahl_ceiling(0.5) == 2
    assert share(0.5, 2) == pytest.approx(2 / 3) and round(100 * share(0.5, 64), 1) == 98.5
    assert round(100 * share(0.05, 64)) == 77
    assert share(0.5, 64) > 0.98 > share(0.05, 512)
    text = _printed()
    assert "0.05   9.5%  29.6%   77.1%    96.4%" in text and " 0.5  66.7%  88.9%   98.5%    99.8%" in text
    prose = _prose()
    assert "approached slowly" not in prose and "98.5%" in prose and "two thirds" in prose


@pytest.mark.parametrize("f", [0.01, 0.05, 0.1, 0.2, 0.5])
def test_3_1_5_efficiency_is_one_half_at_one_plus_one_over_f(f):
    assert sl.amdahl_efficiency(f, round(1 + 1 / f)) == pytest.approx(0.5)


def test_3_1_6_strong_and_weak_with_the_chapter_notation():
    src = "\n".join(c.source for c in _notebook().cells if c.cell_type == "code")
    assert "f, c = 0.05, 0.01" in src and "s, c =" not in src
    assert [round(sl.strong_model_efficiency(k, 0.05, 0.01), 2) for k in (8, 64, 512)] == [0.63, 0.13, 0.01]
    assert [round(sl.weak_model_efficiency(k, 0.05, 0.01), 2) for k in (8, 64, 512)] == [0.97, 0.94, 0.92]


@pytest.mark.parametrize("f", [0.0, 0.05, 0.2, 0.9])
def test_3_1_6_formulas_written_out_are_the_library_and_f_cancels_in_weak_scaling(f):
    """3.1.6 writes T_strong and T_weak in numpy before calling the library; the weak-scaling efficiency is
    1/(1 + c log2 K) whatever f is, because the lone worker of T(1) also spent f on the serial part."""
    c, ks = 0.01, np.array([1, 2, 8, 64, 512])
    t_strong = f + (1 - f) / ks + c * np.log2(ks)
    t_weak = f + (1 - f) + c * np.log2(ks)
    np.testing.assert_allclose(1 / (ks * t_strong), sl.strong_model_efficiency(ks, f, c), rtol=1e-12)
    np.testing.assert_allclose(1 / t_weak, sl.weak_model_efficiency(ks, f, c), rtol=1e-12)
    np.testing.assert_allclose(sl.weak_model_efficiency(ks, f, c), 1 / (1 + c * np.log2(ks)), rtol=1e-12)


def test_3_1_6_printed_by_hand_and_by_the_library():
    """The notebook shows the hand-written efficiencies; that the library gives the same two columns is asserted
    here (and in test_3_1_6_formulas_written_out_are_the_library...), not printed to the reader."""
    text = _printed()
    assert "512              0.01            0.92" in text and "library, strong" not in text
    ks = np.array([8, 64, 512])
    np.testing.assert_allclose(sl.strong_model_efficiency(ks, 0.05, 0.01),
                               1 / (ks * (0.05 + 0.95 / ks + 0.01 * np.log2(ks))), rtol=1e-12)
    np.testing.assert_allclose(sl.weak_model_efficiency(ks, 0.05, 0.01), 1 / (1 + 0.01 * np.log2(ks)), rtol=1e-12)
    prose = _prose()
    assert r"E_\text{weak}(K) = \frac{T(1)}{T_\text{weak}(K)}" in prose
    assert "T(1)/T(K)$, with $T(K)$ measured" not in prose       # T(K) keeps one meaning: the fixed job


def test_3_1_6_case_study_table():
    """The vendor's step times give S(256) of about 180 and E(256) = 0.70; E stays above 0.9 up to 64 GPUs and
    falls below 0.8 past 128; the weak-scaling rerun keeps 0.97 at 256."""
    ks = np.array([1, 8, 32, 64, 128, 256])
    t = np.array([90.0, 11.38, 2.958, 1.554, 0.852, 0.501])
    rerun = np.array([90.0, 91.1, 91.8, 92.2, 92.5, 92.9])
    s = t[0] / t
    e = s / ks
    assert round(s[-1]) == 180 and round(e[-1], 2) == 0.70
    assert np.all(e[ks <= 64] > 0.9) and e[ks == 128][0] > 0.8 > e[ks == 256][0]
    assert round(rerun[0] / rerun[-1], 2) == 0.97
    np.testing.assert_allclose(t, 90 * sl.amdahl_time(1 / 600, ks), rtol=3e-3)   # an Amdahl curve, f = 1/600
    text = _printed()
    assert "256  179.6  0.70       0.97" in text and "128  105.6  0.83       0.97" in text


# --- 3.1.3: the timing cell --------------------------------------------------------------------------------

def _timing_cell():
    cells = [c for c in _notebook().cells if c.cell_type == "code" and "timeit.repeat(step" in c.source]
    assert len(cells) == 1
    return cells[0]


def test_3_1_3_timing_cell_is_a_tagged_measurement_without_blas():
    """The timed kernel is numpy's own loop (no BLAS, so no library threads competing for the cores), the
    cell is tagged as a measurement, and the unit is written µs."""
    cell = _timing_cell()
    assert "nbval-ignore-output" in cell.metadata.get("tags", [])
    code = "\n".join(line.split("#")[0] for line in cell.source.splitlines())
    for blas in ("@", ".dot(", "matmul", "optimize", "tensordot"):
        assert blas not in code, blas
    assert "np.einsum(" in code and "µs" in code and " us" not in code
    assert "np.percentile(times, [10, 50, 90])" in code


def test_3_1_3_timing_logic_on_synthetic_times(monkeypatch, capsys):
    """Warm-up runs are dropped; the minimum, the percentiles and median/minimum are those of the timed runs."""
    import timeit

    rng = np.random.default_rng(1)
    timed = rng.permutation(np.linspace(1e-3, 3e-3, 50))
    fake = [0.5] * 5 + list(timed)                       # five slow warm-up runs, then the timed ones
    monkeypatch.setattr(timeit, "repeat", lambda *args, **kwargs: list(fake))
    exec(_timing_cell().source, {"np": np})
    out = capsys.readouterr().out
    p10, p50, p90 = np.percentile(timed, [10, 50, 90])
    assert f"50 timed runs, in µs: minimum {1000:,.0f}, 10th percentile {p10 * 1e6:,.0f}," in out
    assert f" median {p50 * 1e6:,.0f}, 90th percentile {p90 * 1e6:,.0f}" in out
    assert f"median / minimum = {p50 / 1e-3:.2f}" in out


def test_3_1_3_kernel_is_the_matrix_product():
    ns = {"np": np}
    src = _timing_cell().source
    exec(src[: src.index("times =")], ns)
    np.testing.assert_allclose(ns["step"](), ns["a"] @ ns["a"], rtol=1e-12)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="per-thread CPU times need Linux /proc")
def test_3_1_3_kernel_runs_on_one_thread():
    """In a fresh interpreter (numpy's BLAS threads started, whatever the core count), running the timed kernel
    uses CPU time on the calling thread only: no other thread of the process competes for the cores."""
    import subprocess
    import sys

    src = _timing_cell().source
    setup = src[: src.index("times =")].replace("import timeit", "")
    code = (
        "import os\nimport numpy as np\n" + setup + "\n"
        "def ticks():\n"
        "    out = {}\n"
        "    for tid in os.listdir('/proc/self/task'):\n"
        "        with open(f'/proc/self/task/{tid}/stat') as fh:\n"
        "            fields = fh.read().rsplit(')', 1)[1].split()\n"
        "        out[tid] = int(fields[11]) + int(fields[12])\n"
        "    return out\n"
        "import time\n"
        "time.sleep(0.3)\n"            # BLAS threads started with numpy may still be spinning: let them settle
        "before = ticks()\n"
        "for _ in range(1500):\n"
        "    step()\n"
        "after = ticks()\n"
        "main = str(os.getpid())\n"
        "others = sum(after[t] - before.get(t, 0) for t in after if t != main)\n"
        "print(after[main] - before[main], others)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    main, others = map(int, run.stdout.split())
    assert main > 0 and others <= max(2, main // 20), (main, others)


def test_3_1_7_superlinear_scenario_against_two_named_baselines():
    """One run, two one-machine times: a worker of the cluster (spills, 2.47 units) and a machine whose memory
    holds everything (1 unit). The columns differ by 2.47 at every K; against the big machine E(1) = 0.40."""
    ks = 2 ** np.arange(9)
    t = sl.spill_time(ks, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0)
    t1_worker = sl.spill_time(1, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0)
    assert t1_worker == pytest.approx(0.02 + 0.98 * 2.5) and round(t1_worker, 2) == 2.47
    e_worker, e_big = t1_worker / (ks * t), 1 / (ks * t)
    np.testing.assert_allclose(e_worker / e_big, t1_worker)
    assert np.round(e_worker, 2).tolist() == [1.0, 1.24, 2.33, 2.17, 1.9, 1.52, 1.09, 0.7, 0.4]
    assert round(e_big[0], 2) == 0.40 and np.all(e_big <= 1)
    assert ks[np.argmax(e_worker)] == 4 and e_worker[ks == 64] > 1 > e_worker[ks == 128]
    assert ks[np.argmax(e_worker > 1)] == 2
    text = _printed()
    assert "T(1) on one worker of the cluster: 2.47; on the big machine: 1.00" in text
    assert "  1  2.470                  1.00                       0.40" in text


def test_3_1_prose_is_about_the_subject():
    """No sentences about the book's tests, no printed self-checks, no blanket 'parallelism cannot make the
    work smaller', the spill penalty written phi, and difficulty badges in non-decreasing order."""
    prose = _prose()
    assert "tests of this book" not in prose and "cannot make the total work smaller" not in prose
    assert r"\sigma" not in prose and r"\phi" in prose
    assert "agrees with the hand-written model" not in _printed() and "True" not in _printed()
    order = {"Beginner": 0, "Intermediate": 1, "Advanced": 2}
    badges = [order[m] for m in re.findall(r"^## 3\.1\.\d .*\((Beginner|Intermediate|Advanced)\)$", prose, re.M)]
    assert len(badges) == 7 and badges == sorted(badges)


def test_exercise_3_1_3_scenario_fits_the_timings_exactly():
    scenario = ex1.superlinear_scenario()
    assert scenario["f"] == float(Fraction(1, 105)) and scenario["slowdown"] == float(Fraction(87, 52))
    assert scenario == dict(f=1 / 105, working_set=2.0, fast_memory=1.0, slowdown=87 / 52)   # as the text writes it
    t1, t8 = sl.spill_time([1, 8], **scenario)
    assert t1 == pytest.approx(600 / 450, rel=1e-15) and t8 == pytest.approx(60 / 450, rel=1e-15)
    assert (sl.speedup(600, 60), sl.efficiency(600, 60, 8)) == (10, 1.25)
    assert sl.efficiency(450, 60, 8) == 0.9375


def test_exercise_3_1_3d_efficiencies_and_the_fade():
    ks = 2 ** np.arange(1, 8)
    e = ex1.superlinear_efficiency(ks)
    e8, e64 = e[ks == 8][0], e[ks == 64][0]
    assert e8 == pytest.approx(1.25, rel=1e-12)          # the benchmark's number, exactly
    assert e64 == pytest.approx(5 / 6, rel=1e-12)        # about 0.83
    assert e[ks == 32][0] > 1 > e64                      # below one between K = 32 and K = 64
    assert np.all(np.diff(e) < 0)                        # once every slice fits, efficiency only falls


def test_exercise_3_1_3d_check_accepts_the_printed_precision_and_rejects_old_or_honest_numbers():
    assert check("ex-3-1-3d", [1.25, 0.83]).correct and check("ex-3-1-3d", [1.25, 0.833]).correct
    assert not check("ex-3-1-3d", [1.243, 0.816]).correct            # the old, inconsistent scenario
    assert not check("ex-3-1-3d", [0.9375, 0.625]).correct           # against the honest baseline


def test_exercise_3_1_1_uses_its_own_table_and_its_solution_numbers():
    """Exercise 3.1.1 rebuilds the table for f = 0.02 (the text prints f = 0.05), so no answer is a copy."""
    f, ks = 0.02, 2 ** np.arange(10)
    e = sl.amdahl_efficiency(f, ks)
    assert ex1.F_TABLE == f and ex1.first_drop_below(f) == (32, 64)
    assert (round(e[ks == 32][0], 3), round(e[ks == 64][0], 3)) == (0.617, 0.442) and 32 < 1 + 1 / f < 64
    s256, s512 = sl.amdahl_speedup(f, [256, 512])
    assert round(100 * s512 * f, 1) == 91.3 and round(s512 - s256, 2) == 3.67 and round(s512, 2) == 45.63
    assert round((s512 - s256) / 256, 3) == 0.014 and round(256 / (s512 - s256)) == 70   # one seventieth
    assert round(100 * (s512 / s256 - 1), 1) == 8.7
    for key, answer in (("ex-3-1-1a", (32, 64)), ("ex-3-1-1b", 50), ("ex-3-1-1c", 91.3), ("ex-3-1-1d", 3.67),
                        ("ex-3-1-1e", 0.014), ("ex-3-1-1e", 0.0143)):
        assert check(key, answer).correct, key
    for key, answer in (("ex-3-1-1b", 20), ("ex-3-1-1c", 96.4), ("ex-3-1-1d", 0.67), ("ex-3-1-1e", 0.0026),
                        ("ex-3-1-1e", 0.087), ("ex-3-1-1e", 0.089)):                # the f = 0.05 table; slips
        assert not check(key, answer).correct, (key, answer)


def test_exercise_3_1_3b_measures_the_rate_per_unit_of_data():
    """(b): the one-machine run on half the data (a working set that fits) takes 225 s; the full run's 600 s is 4/3
    of twice that, the handicap that (c)'s honest 450 s and (d)'s spill model then confirm."""
    assert "less total work" in _prose()
    assert check("ex-3-1-3b", 4 / 3).correct and check("ex-3-1-3b", 1.33).correct
    assert not check("ex-3-1-3b", 1.25).correct and not check("ex-3-1-3b", 0.75).correct
    assert 2 * 225 == 450                                   # twice the half run is the honest T(1) of (c)


def test_3_1_5_table_shows_the_seed_numbers():
    """The table of 3.1.5 (pinned digit for digit in test_seed_tables.py) is the one the notebook shows."""
    f, ks = 0.05, 2 ** np.arange(10)
    four = "{:.4f}"
    expected = sl.table(zip(ks, sl.amdahl_time(f, ks), sl.amdahl_speedup(f, ks), sl.amdahl_efficiency(f, ks)),
                        ["K", "T(K)", "S(K)", "E(K)"], caption=f"Serial fraction f = {f}, with T(1) = 1",
                        formats={"T(K)": four, "S(K)": four, "E(K)": four})
    assert str(expected) in _printed()
    assert "512  0.0519  19.2844  0.0377" in _printed()
