"""Every public name of scalinglib, fed values a reader could type by mistake.

The test enumerates ``scalinglib.__all__``, so a function or class is covered the day it is
exported. Each one is first called with valid arguments: those of the first call in its docstring
examples (recorded, not run), or of the ``BASE`` table below where an example is missing or too
slow. Then each parameter in turn is replaced by every value of ``EDGE`` (zero, negatives, NaN,
infinities, 1e308, 5e-324, 2**53 ... 2**70, 10**400, booleans, strings, None, empty, 2-D, ragged
and mixed lists); then each pair of array-taking parameters gets arrays of lengths 2 and 3; then
hypothesis (derandomized) replaces two or three parameters at once. A call fails the test if it

* raises anything other than ValueError or TypeError (OverflowError, IndexError, LinAlgError,
  ZeroDivisionError, a numpy RuntimeWarning turned into an error, ...);
* raises a ValueError or TypeError whose message does not name the parameter that was changed
  (for a pair or a combination, one of the changed parameters);
* returns NaN, an infinity (outside the few results documented as possibly infinite) or a
  negative number where the quantity cannot be negative (times, counts, costs, rates);
* takes longer than ``BUDGET`` seconds of this process's CPU time (a SIGPROF timer interrupts it:
  unlike the wall clock, it is not stretched by other work on a busy machine) or ``WALL_BUDGET``
  seconds of wall clock (SIGALRM, for a call that waits instead of computing), or
  allocates more than ``MEMORY_HEADROOM`` bytes (an address-space limit turns that into MemoryError).

The call count and the wall time are printed at the end (``pytest -s`` shows them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import doctest
import importlib
import inspect
import math
import numbers
import resource
import signal
import time
import warnings

import matplotlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scalinglib as sl

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: Seconds one call may take.
BUDGET = 2.0
#: Wall-clock seconds one call may take, whatever the load of the machine.
WALL_BUDGET = 10.0
#: Address space the test process may add while fuzzing (allocations past it raise MemoryError).
MEMORY_HEADROOM = 4 * 2**30

NAN, INF = float("nan"), float("inf")

# ------------------------------------------------------------------------------------------------
# values a reader could type


class _Thing:
    """An object of no numeric meaning."""

    def __repr__(self):
        return "<thing>"


EDGE = [
    0, -1, 0.5, 1.5, 3, -2.5,
    NAN, INF, -INF, 1e308, -1e308, 5e-324, 1e-300,
    2**53, 2**53 + 1, 2**63, 2**64, 2**70, 10**400, -(10**400),
    10**6, 10**9, 1e20,
    np.float64(NAN), np.int64(2**62), np.float32(1e38), np.uint8(255), np.int8(-128),
    True, False, np.True_,
    "1", "abc", "", "{g}", "{:q}", None, _Thing(), {"a": 1},
    (), [], np.array([]), np.array(2.0), np.ones((2, 2)), np.full(3, 2.0),
    [[1, 2], [3]], [1, "a"], [1, None], [1.0, NAN], [2**70, 1], [10**400, 1], [True, False],
]

#: Results that may be +inf by design: function name -> keys or attributes of the result (None: the whole result).
MAY_BE_INFINITE = {
    "amdahl_ceiling": {None},           # 1/f at f = 0
    "usl_peak_workers": {None},         # no coherency term: no peak
    "decode_profile": {"ridge_batch"},  # compute never overtakes memory
    "simulate_replicas": {"delay"},     # no second copy is ever sent
    "ReplicaRun": {"delay"},
}

#: Results that may be NaN by design: function name -> keys or attributes (None: the whole result).
MAY_BE_NAN = {
    "device_decode_rate": {None},      # the batch does not fit in memory
    "parallel_layout": {"batch_tokens", "tp_fraction", "bubble_fraction", "efficiency"},   # does not fit
    "layout_sweep": {"batch_tokens", "tp_fraction", "bubble_fraction", "efficiency", "throughput"},
    "Layout": {"batch_tokens", "tp_fraction", "bubble_fraction", "efficiency"},
    "critical_batch_cost": {"batch_tokens", "efficiency", "cost_factor", "time_factor"},
}

#: Parts of a result that are labels, not quantities (a DAG's node names may be any numbers).
NOT_QUANTITIES = {
    "Task": {"node"},
    "critical_path": {None},
    "evaluate": {None},
}

#: Functions whose result may be negative: everything else returns times, counts, costs, rates or shares.
MAY_BE_NEGATIVE = {
    "karp_flatt",   # a superlinear measurement gives e < 0
    "SeedSummary",  # a record of any simulated quantity, which may be a signed difference
}

#: Functions that draw with matplotlib: their figures are closed after each call.
DRAWING = {"plot_roofline", "plot_device_roofline", "new_figure", "log2_axis", "figure_png", "slider_figure",
           "slider_html"}

# ------------------------------------------------------------------------------------------------
# valid arguments


def _draw(fig, **values):
    fig.subplots().plot([1, 2], [1, 2])


def _render(**values):
    return "<p>frame</p>"


def _seeded(seed):
    return 0.5 + 0.01 * seed


def _axes():
    fig, ax = plt.subplots()
    return ax


def _figure():
    fig, _ = plt.subplots()
    return fig


#: Valid arguments where a docstring example is missing or would be slow: name -> (args, kwargs).
#: Callables in the values are called afresh for each use (a new matplotlib axes each time).
BASE = {
    "simulate_mm1": ((80.0, 100.0), dict(n_requests=500)),
    "sample_server_latency": ((500,), {}),
    "simulate_hedged_requests": ((), dict(n_requests=500)),
    "simulate_replicas": ((0.8, "hedged"), dict(n_servers=4, n_requests=300)),
    "simulate_slowest_step": ((8, 1.0, 0.05), dict(n_steps=10)),
    "over_seeds": ((_seeded,), dict(n_seeds=3)),
    "plot_roofline": ((_axes, 1e14, 2e12), dict(kernels={"x": 10.0})),
    "plot_device_roofline": ((_axes, "A100"), dict(kernels={"x": 10.0})),
    "log2_axis": ((_axes,), {}),
    "figure_png": ((_figure,), {}),
    "figure_html": ((_figure,), {}),
    "slider_figure": ((_draw, lambda: {"g": sl.choice("g", [1, 2])}), dict(alt="g = {g}", dpi=20, width=1.0,
                                                                           height=1.0)),
    "slider_html": ((_render, lambda: {"g": sl.choice("g", [1, 2])}), {}),
    "check": (("3.1.1", 0.5), {}),
    "QueueRun": ((np.array([0.1, 0.2]), np.array([0.15, 0.3]), np.array([0.05, 0.1])), {}),
    "HedgeResult": ((np.array([0.1, 0.2]), np.array([0.1, 0.15]), 0.12, 0.5), {}),
    "ReplicaRun": ((np.array([0.1, 0.2]), "none", 0.5, INF, 0.0, 0.0, 0.5, 1.0, True), {}),
    "Layout": ((), dict(n_gpus=64, fits=True, dp=8, tp=8, pp=1, microbatches=1, dp_cap=8, batch_tokens=1e6,
                        tp_fraction=0.1, bubble_fraction=0.0, efficiency=0.9, layers=24, min_gpus=8,
                        batch_over_limit=False)),
    "TrainingCost": ((1e23, 10.0, 12.0, 2e4, 4e4, 5.0), {}),
    "USLFit": ((0.05, 0.001), {}),
    "USLThroughputFit": ((0.05, 0.001, 100.0), {}),
    "SeedSummary": ((0.5, 0.1, 0.3, 0.7, np.array([0.3, 0.5, 0.7])), {}),
    "RateFit": ((1e-6, 1e10), {}),
    "AlphaBeta": ((5e-6, 2e-11), {}),
    "Task": (("a", 0, 0.0, 1.0), {}),
    "DecoderShape": ((), {f.name: getattr(sl.DECODERS["Llama-3-8B"], f.name)
                          for f in dataclasses.fields(sl.DecoderShape)}),
    "PublishedRun": ((), {f.name: getattr(sl.MFU_RUNS[0], f.name) for f in dataclasses.fields(sl.PublishedRun)}),
    "MegatronRow": ((), {f.name: getattr(sl.MEGATRON_WEAK_SCALING[0], f.name)
                         for f in dataclasses.fields(sl.MegatronRow)}),
    "Accelerator": ((), {f.name: getattr(sl.CATALOG["A100 SXM 80GB"], f.name)
                         for f in dataclasses.fields(sl.Accelerator)}),
    "Schedule": ((2, (sl.Task("a", 0, 0.0, 1.0), sl.Task("b", 1, 0.0, 2.0))), {}),
}

class _Validated(Exception):
    """Raised by a patched slow step: the call got past its argument checks."""


def _validated(*args, **kwargs):
    raise _Validated


def _tiny_frame(*args, **kwargs):
    """A one-pixel SVG frame in the form ``widgets._draw_frame`` returns."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'
    return {"wide": dict(svg=svg, css={}, width=1.0, height=1.0, font_px=10.0), "narrow": None}

#: Slow steps replaced while a function is fuzzed, so that its argument checks are covered without
#: running a measurement or drawing dozens of frames: name -> [(module, attribute, replacement)].
SLOW_STEPS = {
    "slider_figure": [("scalinglib.widgets", "_draw_frame", _tiny_frame)],
}

#: Extra keyword arguments to fuzz for functions that take ``**kwargs`` (name -> valid values).
VAR_KEYWORDS = {
    "simulate_hedged_requests": dict(median=0.01, sigma=0.3, p_slow=0.02, slow_mean=0.3),
    "critical_batch_cost": {},
    "new_figure": {},
    "plot_device_roofline": {},
}


class _Recorded(Exception):
    pass


def _first_example_call(name, obj):
    """(args, kwargs) of the first call of ``obj`` in its docstring examples, or None."""
    doc = inspect.getdoc(obj) or ""
    examples = doctest.DocTestParser().get_examples(doc)
    if not examples:
        return None
    module = inspect.getmodule(obj)
    namespace = dict(vars(module)) if module else {}
    namespace.update({n: getattr(sl, n) for n in sl.__all__})
    namespace["np"] = np
    found = []

    def recorder(*args, **kwargs):
        found.append((args, kwargs))
        raise _Recorded

    namespace[name] = recorder
    for example in examples:
        if name not in example.source:
            if "import" in example.source or "=" in example.source:
                with contextlib.suppress(Exception):
                    exec(compile(example.source, name, "exec"), namespace)
            continue
        with contextlib.suppress(Exception):
            exec(compile(example.source, name, "exec"), namespace)
        if found:
            return found[0]
    return None


def _materialise(value):
    return value() if callable(value) and getattr(value, "__name__", "") in {"_axes", "_figure", "<lambda>"} \
        else value


def public_callables():
    out = []
    for name in sl.__all__:
        obj = getattr(sl, name)
        if inspect.ismodule(obj) or not callable(obj):
            continue
        out.append((name, obj))
    return out


PUBLIC = public_callables()


def base_arguments(name, obj):
    if name in BASE:
        args, kwargs = BASE[name]
    else:
        recorded = _first_example_call(name, obj)
        if recorded is None:
            raise AssertionError(f"{name}: give it a docstring example that calls it, or an entry in BASE")
        args, kwargs = recorded
    return [_materialise(a) for a in args], {k: _materialise(v) for k, v in kwargs.items()}


# ------------------------------------------------------------------------------------------------
# running one call


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout


@contextlib.contextmanager
def guarded(name=None):
    """Time budgets per call (SIGPROF, SIGALRM), an address-space cap, and the slow steps of ``name`` replaced."""
    old_handler = signal.signal(signal.SIGALRM, _alarm)
    old_prof_handler = signal.signal(signal.SIGPROF, _alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    saved = []
    for module_name, attribute, replacement in SLOW_STEPS.get(name, ()):
        module = importlib.import_module(module_name)
        saved.append((module, attribute, getattr(module, attribute)))
        setattr(module, attribute, replacement)
    try:
        yield
    finally:
        for module, attribute, original in saved:
            setattr(module, attribute, original)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old_handler)
        signal.signal(signal.SIGPROF, old_prof_handler)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    """Bytes of address space this process holds now (VmSize), so the cap allows only new growth."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 * 2**30


STATS = {"calls": 0, "seconds": 0.0}


def _bad_numbers(value, path, found, depth=0):
    """Collect (path, number) for every NaN, infinity or negative number inside a result."""
    if depth > 4:
        return
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        return
    if isinstance(value, numbers.Integral):
        if value < 0:
            found.append((path, value))
        return
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v) or v < 0:
            found.append((path, v))
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "iuf" and value.size:
            arr = value.astype(float)
            bad = ~np.isfinite(arr) | (arr < 0)
            if bad.any():
                found.append((path, float(arr[bad].flat[0])))
        return
    if isinstance(value, dict) or type(value).__name__ == "mappingproxy":
        for k, v in value.items():
            _bad_numbers(v, k if path is None else path, found, depth + 1)
        return
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        for k in value._fields:
            _bad_numbers(getattr(value, k), k, found, depth + 1)
        _properties(value, found, depth)
        return
    if isinstance(value, (list, tuple)):
        for v in value[:50]:
            _bad_numbers(v, path, found, depth + 1)
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _bad_numbers(getattr(value, f.name), f.name, found, depth + 1)
        _properties(value, found, depth)


def _properties(value, found, depth):
    for pname, _prop in inspect.getmembers(type(value), lambda m: isinstance(m, property)):
        if pname.startswith("_"):
            continue
        try:
            v = getattr(value, pname)
        except (ValueError, TypeError):
            continue
        _bad_numbers(v, pname, found, depth + 1)


def _allowed(name, path, v):
    if path in NOT_QUANTITIES.get(name, ()):
        return True
    if v == INF and path in MAY_BE_INFINITE.get(name, ()):
        return True
    if v != v and path in MAY_BE_NAN.get(name, ()):
        return True
    if (isinstance(v, int) or math.isfinite(v)) and v < 0 and name in MAY_BE_NEGATIVE:
        return True
    return False


def call(name, obj, args, kwargs, changed):
    """Call once under the budget; return a failure description or None."""
    STATS["calls"] += 1
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_PROF, BUDGET)
    signal.setitimer(signal.ITIMER_REAL, WALL_BUDGET)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # a numpy RuntimeWarning is a failure, not a quiet NaN
            result = obj(*args, **kwargs)
            found = []
            _bad_numbers(result, None, found)
    except _Timeout:
        return f"took more than {BUDGET} s of CPU time (or {WALL_BUDGET} s of wall clock)"
    except _Validated:
        return None
    except (ValueError, TypeError) as exc:
        message = str(exc)
        if not any(c in message for c in changed):
            return f"{type(exc).__name__} does not name {' or '.join(changed)}: {message[:200]}"
        return None
    except MemoryError:
        return "MemoryError (the size is not capped)"
    except Exception as exc:   # noqa: BLE001 - anything else is the failure this test looks for
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        STATS["seconds"] += time.perf_counter() - start
        if name in DRAWING:
            plt.close("all")
    bad = [(path, v) for path, v in found if not _allowed(name, path, v)]
    if bad:
        path, v = bad[0]
        where = "" if path is None else f" in {path!r}"
        return f"returned {v!r}{where}"
    return None


def _describe(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _parameters(name, obj):
    sig = inspect.signature(obj)
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    extra = VAR_KEYWORDS.get(name, {})
    return sig, [p.name for p in params] + list(extra), extra


def _call_with(name, obj, sig, args, kwargs, extra, changes):
    bound = sig.bind_partial(*args, **kwargs)
    call_kwargs = dict(bound.arguments)
    for p in sig.parameters.values():       # flatten **kwargs captured by bind_partial
        if p.kind == p.VAR_KEYWORD and p.name in call_kwargs:
            call_kwargs.update(call_kwargs.pop(p.name))
        if p.kind == p.VAR_POSITIONAL and p.name in call_kwargs:
            raise AssertionError(f"{name}: *args are not fuzzed")
    call_kwargs.update({k: v for k, v in extra.items() if k not in call_kwargs})
    call_kwargs.update({k: _materialise(v) for k, v in changes.items()})
    positional_only = [p.name for p in sig.parameters.values() if p.kind == p.POSITIONAL_ONLY]
    pos = [call_kwargs.pop(n) for n in positional_only if n in call_kwargs]
    return call(name, obj, pos, call_kwargs, list(changes))


# ------------------------------------------------------------------------------------------------
# the tests


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    print(f"\nfuzz: {STATS['calls']:,} calls in {STATS['seconds']:.1f} s of call time")


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_one_parameter_at_a_time(name, obj):
    args, kwargs = base_arguments(name, obj)
    sig, names, extra = _parameters(name, obj)
    failures = []
    with guarded(name):
        base_failure = _call_with(name, obj, sig, args, kwargs, extra, {})
        assert base_failure is None, f"{name}: the valid base call fails: {base_failure}"
        for pname in names:
            for value in EDGE:
                failure = _call_with(name, obj, sig, args, kwargs, extra, {pname: value})
                if failure:
                    failures.append(f"{name}({pname}={_describe(value)}): {failure}")
        # mismatched arrays: each pair of parameters that took a number
        base = sig.bind_partial(*args, **kwargs).arguments
        numeric = [n for n in names if isinstance(base.get(n, extra.get(n)), numbers.Real)
                   and not isinstance(base.get(n, extra.get(n)), bool)]
        for i, a in enumerate(numeric[:6]):
            for b in numeric[i + 1:6]:
                va, vb = base.get(a, extra.get(a)), base.get(b, extra.get(b))
                changes = {a: np.full(2, va), b: np.full(3, vb)}
                failure = _call_with(name, obj, sig, args, kwargs, extra, changes)
                if failure:
                    failures.append(f"{name}({a}=[2 values], {b}=[3 values]): {failure}")
    assert not failures, f"{len(failures)} bad outcomes:\n" + "\n".join(failures[:40])


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_several_parameters_at_once(data):
    name, obj = data.draw(st.sampled_from(PUBLIC), label="function")
    args, kwargs = base_arguments(name, obj)
    sig, names, extra = _parameters(name, obj)
    if not names:
        return
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True), label="parameters")
    changes = {p: data.draw(st.sampled_from(EDGE), label=p) for p in chosen}
    with guarded(name):
        failure = _call_with(name, obj, sig, args, kwargs, extra, changes)
    assert failure is None, f"{name}({', '.join(f'{k}={_describe(v)}' for k, v in changes.items())}): {failure}"
