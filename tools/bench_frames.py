"""CPU cost of drawing the book's figures and slider frames, and of 3.4's replica simulation.

Times (``time.process_time``, best of ``--repeat``) for:

* slider frames: ``widgets._render_frame`` on real drawing functions of ``scalinglib.figures``,
  with and without the phone layout;
* static figures: ``plots.figure_html`` on figures drawn as the notebooks draw them (the drawing
  function itself is not timed);
* ``latency.simulate_replicas`` as 3.4's table cell runs it (five policies, 20,000 requests, U = 0.8)
  over 10 seeds.

``--save FILE`` writes every output (SVG markup, layout numbers, simulation results) to FILE;
``--compare FILE`` reports where the outputs differ from a saved run (numbers within 0.15 of each
other count as equal: matplotlib's layout may move a line by a rounding step).

    .venv/bin/python tools/bench_frames.py --save /tmp/before.json
    .venv/bin/python tools/bench_frames.py --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import scalinglib as sl  # noqa: E402
from scalinglib import plots, widgets  # noqa: E402
from scalinglib.figures import s3_3, s3_4, s3_5, s3_8  # noqa: E402

FRAMES = [  # (name, draw, values, width, height, narrow)
    ("3.4 latency_vs_utilization U=0.8 +phone", s3_4.latency_vs_utilization, {"utilization": 0.8}, 8.0, 3.0, True),
    ("3.4 latency_vs_utilization U=0.5", s3_4.latency_vs_utilization, {"utilization": 0.5}, 8.0, 3.0, False),
    ("3.4 fanout n=100 +phone", s3_4.fanout, {"n": 100}, 6.4, 3.0, True),
    ("3.3 strong_and_weak +phone", s3_3.strong_and_weak, {"f": 0.05, "c": 0.01}, 8.0, 3.0, True),
    ("3.5 usl_curves +phone", s3_5.usl_curves, {"sigma": 0.03, "kappa": 0.001}, 6.4, 3.0, True),
]


def _static(draw, width, height, *args, **kw):
    def make():
        fig = plt.figure(figsize=(width, height), layout="constrained")
        draw(fig, *args, **kw)
        return fig
    return make


FIGURES = [  # (name, make a figure)
    ("3.4 latency_vs_utilization", _static(s3_4.latency_vs_utilization, 8.0, 3.2, utilization=0.9)),
    ("3.4 hedged_latency", _static(s3_4.hedged_latency, 6.4, 3.2, hedge_quantile=0.95, seed=0)),
    ("3.4 stragglers", _static(s3_4.stragglers, 8.0, 3.2, base_time=1.0, jitter=0.05)),
    ("3.4 batching", _static(s3_4.batching, 8.0, 3.2, "Llama-3-8B", "A100", context=2048)),
    ("3.3 strong_and_weak", _static(s3_3.strong_and_weak, 8.0, 3.2, f=0.05, c=0.01)),
    ("3.8 collective_scaling", _static(s3_8.collective_scaling, 6.4, 3.2, 1e6, 5e-6, 1e-10)),
]



def _replicas():
    timer = sl.mm1_response_percentile(0.95, 20.0, 100.0)
    p95 = sl.mm1_response_percentile(0.95, 80.0, 100.0)
    runs = {}
    for seed in range(10):
        for name, policy, kw in (("none", "none", {}), ("two_choices", "two_choices", {}),
                                 ("hedged p95", "hedged", {"delay": p95}), ("tied", "tied", {}),
                                 ("hedged timer", "hedged", {"delay": timer})):
            r = sl.simulate_replicas(0.8, policy, n_requests=20_000, seed=seed, **kw)
            runs[f"{name} {seed}"] = [float(np.sum(r.response)), float(np.max(r.response)), r.copies,
                                      r.extra_work, r.busy, r.drift, r.steady]
        r = sl.simulate_replicas(0.8, "hedged", n_requests=20_000, seed=seed)      # delay from a first run
        runs[f"hedged q {seed}"] = [float(np.sum(r.response)), r.delay, r.copies, r.extra_work]
    return runs


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save")
    parser.add_argument("--compare")
    parser.add_argument("--only", choices=("frames", "figures", "replicas"))
    args = parser.parse_args(argv)
    outputs, total = {}, {}
    if args.only in (None, "frames"):
        for name, draw, values, w, h, narrow in FRAMES:
            t, out = best_of(lambda d=draw, v=values, w=w, h=h, n=narrow: widgets._render_frame(d, v, w, h, n),
                             args.repeat)
            outputs[f"frame {name}"] = out
            total["frames"] = total.get("frames", 0) + t
            print(f"frame   {name:<42} {1e3 * t:7.0f} ms CPU")
    if args.only in (None, "figures"):
        for name, make in FIGURES:
            t, out = float("inf"), None
            for _ in range(args.repeat):      # the figure's own drawing (and simulation) is not timed
                fig = make()
                start = time.process_time()
                out = plots.figure_html(fig)
                t = min(t, time.process_time() - start)
            outputs[f"figure {name}"] = out
            total["figures"] = total.get("figures", 0) + t
            print(f"figure  {name:<42} {1e3 * t:7.0f} ms CPU")
    if args.only in (None, "replicas"):
        t, out = best_of(_replicas, args.repeat)
        outputs["replicas"] = out
        total["replicas"] = t
        print(f"replicas 3.4 table, 10 seeds x 6 runs of 20,000 requests {1e3 * t:7.0f} ms CPU")
    for key, value in total.items():
        print(f"total {key}: {value:.2f} s CPU")
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(outputs, fh)
    if args.compare:
        with open(args.compare) as fh:
            before = json.load(fh)
        now = json.loads(json.dumps(outputs))
        bad = [key for key in now if key in before and not _same(before[key], now[key])]
        for key in bad:
            print("DIFFERS:", key, file=sys.stderr)
            _explain(before[key], now[key])
        print("outputs: " + ("identical within tolerance" if not bad else f"{len(bad)} differ"))
        return 1 if bad else 0
    return 0


_NUM = re.compile(r"-?\d*\.?\d+(?:e-?\d+)?")


def _same_text(a: str, b: str, tol=0.15) -> bool:
    if a == b:
        return True
    if _NUM.sub("#", a) != _NUM.sub("#", b):
        return False
    return all(abs(float(x) - float(y)) <= tol for x, y in zip(_NUM.findall(a), _NUM.findall(b)))


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        return _same_text(a, b)
    return a == b


def _explain(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k in b and not _same(a[k], b[k]):
                _explain(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, str) and isinstance(b, str):
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        print(f"  {path}: first difference at {i}: {a[max(0, i - 80):i + 80]!r}\n"
              f"  {' ' * len(path)}  now: {b[max(0, i - 80):i + 80]!r}", file=sys.stderr)
    else:
        print(f"  {path}: {a!r} -> {b!r}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
