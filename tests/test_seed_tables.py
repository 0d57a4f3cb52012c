"""The published tables the book reproduces, asserted from the library's own computation.

Seed 002 (Section 3.1) prints T(K), S(K), E(K) for f = 0.05 and K = 1..512;
seed 001 (Section 3.3) prints a strong- and a weak-scaling table for s = 0.05,
c = 0.01 and K = 1..128. The strings below are those tables, digit for digit;
the library output formatted the same way must equal them.
"""

import numpy as np

import scalinglib as sl

SEED_002_TABLE = """\
     1     1.0000     1.0000     1.0000
     2     0.5250     1.9048     0.9524
     4     0.2875     3.4783     0.8696
     8     0.1688     5.9259     0.7407
    16     0.1094     9.1429     0.5714
    32     0.0797    12.5490     0.3922
    64     0.0648    15.4217     0.2410
   128     0.0574    17.4150     0.1361
   256     0.0537    18.6182     0.0727
   512     0.0519    19.2844     0.0377"""

SEED_001_STRONG = """\
    1    1.0000     1.000     100.0%
    2    0.5350     1.869      93.5%
    4    0.3075     3.252      81.3%
    8    0.1988     5.031      62.9%
   16    0.1494     6.695      41.8%
   32    0.1297     7.711      24.1%
   64    0.1248     8.010      12.5%
  128    0.1274     7.848       6.1%"""

SEED_001_WEAK = """\
    1    1.0000         1     100.0%
    2    1.0100         2      99.0%
    4    1.0200         4      98.0%
    8    1.0300         8      97.1%
   16    1.0400        16      96.2%
   32    1.0500        32      95.2%
   64    1.0600        64      94.3%
  128    1.0700       128      93.5%"""


def test_section_3_1_table_f_005():
    K = 2 ** np.arange(10)
    T = sl.amdahl_time(0.05, K)
    S = sl.amdahl_speedup(0.05, K)
    E = sl.amdahl_efficiency(0.05, K)
    rows = [f"{k:>6} {t:>10.4f} {s:>10.4f} {e:>10.4f}" for k, t, s, e in zip(K, T, S, E)]
    assert "\n".join(rows) == SEED_002_TABLE


def test_section_3_1_ceiling_and_last_row():
    assert sl.amdahl_ceiling(0.05) == 20.0
    assert round(sl.amdahl_speedup(0.05, 512), 4) == 19.2844


def test_section_3_3_strong_table():
    K = 2 ** np.arange(8)
    T = sl.strong_time(K, 0.05, 0.01)
    S = T[0] / T
    E = sl.strong_model_efficiency(K, 0.05, 0.01)
    rows = [f"{k:>5} {t:>9.4f} {s:>9.3f} {e:>10.1%}" for k, t, s, e in zip(K, T, S, E)]
    assert "\n".join(rows) == SEED_001_STRONG


def test_section_3_3_weak_table():
    K = 2 ** np.arange(8)
    T = sl.weak_time(K, 0.05, 0.01)
    E = sl.weak_model_efficiency(K, 0.05, 0.01)
    rows = [f"{k:>5} {t:>9.4f} {k:>9} {e:>10.1%}" for k, t, e in zip(K, T, E)]
    assert "\n".join(rows) == SEED_001_WEAK


def test_section_3_3_claims_in_prose():
    # the fixed job's speedup peaks at K = 64 in the sweep and falls at 128
    K = 2 ** np.arange(8)
    S = sl.strong_time(1, 0.05, 0.01) / sl.strong_time(K, 0.05, 0.01)
    assert K[np.argmax(S)] == 64 and S[-1] < S[-2]
    # 128x the work costs 7% more time under weak scaling
    assert np.isclose(sl.weak_time(128, 0.05, 0.01) - 1.0, 0.07)


def _rows(text):
    """Each line as its whitespace-separated entries: the digits of a table, whatever its column widths."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def test_the_notebooks_print_the_seed_tables():
    """The stored outputs of Sections 3.1 and 3.3 contain the seed tables row by row, digit for digit (printed
    lines or the plain-text form of a table; column widths may differ)."""
    from pathlib import Path

    import nbformat

    book = Path(__file__).resolve().parent.parent / "book"

    def printed(name):
        nb = nbformat.read(book / name, as_version=4)
        return _rows("".join(o.get("text", "") if o.get("output_type") == "stream"
                             else o.get("data", {}).get("text/plain", "")
                             for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])))

    assert _rows(SEED_002_TABLE) in printed("03-01-what-does-it-mean-to-scale.ipynb")
    section_3_3 = printed("03-03-strong-and-weak-scaling.ipynb")
    assert _rows(SEED_001_STRONG) in section_3_3 and _rows(SEED_001_WEAK) in section_3_3
