"""Figures of Section 3.6: computation DAGs, Brent's bounds against greedy schedules, Gantt charts, the pipeline bubble."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from .._lazy import lazy_module
from ..plots import COLORS, log2_axis, style_axes
from ..workdepth import (
    Input,
    blelloch_scan_dag,
    brent_bounds,
    depth,
    greedy_schedule,
    hillis_steele_scan_dag,
    layer_stack_dag,
    matmul_dag,
    pipeline_dag,
    reduction_tree_dag,
    sequential_sum_dag,
    work,
)

nx = lazy_module("networkx")

#: The example computations of the Brent slider, by the label the slider shows.
EXAMPLES = {
    "sequential sum of 256 numbers": lambda: sequential_sum_dag(256),
    "tree reduction of 256 numbers": lambda: reduction_tree_dag(256),
    "Hillis-Steele scan of 256 numbers": lambda: hillis_steele_scan_dag(256),
    "Blelloch scan of 256 numbers": lambda: blelloch_scan_dag(256),
    "matrix product, 8 x 8": lambda: matmul_dag(8),
    "layer stack, 24 layers x 16": lambda: layer_stack_dag(24, 16),
    "pipeline, 8 stages x 16 micro-batches": lambda: pipeline_dag(8, 16),
}

#: Processor counts of the Brent figure.
PROCESSORS = 2 ** np.arange(11)   # 1 ... 1024

_OP_COLORS = {"add": COLORS["blue"], "mul": COLORS["orange"], "copy": COLORS["sky"], "zero": COLORS["grey"]}
_PHASE_COLORS = {"forward": COLORS["blue"], "backward": COLORS["orange"]}


def _fmt(x: float) -> str:
    """1793.0 -> '1,793'; 11.25 -> '11.25'; 224.125 -> '224.12'."""
    return f"{x:,.2f}".rstrip("0").rstrip(".")


def draw_dag(ax, dag, title=None, node_size=70):
    """Draw an arithmetic DAG from top (inputs) to bottom (last level), one row per level.

    Inputs are drawn as white circles labelled with their index; operations are
    coloured by kind (addition, multiplication, copy, zero). Returns the axes.
    """
    style_axes(ax)
    picture = nx.DiGraph()
    pos = {}
    for v, data in dag.nodes(data=True):
        picture.add_node(v)
        pos[v] = (data.get("x", 0.0), -data.get("level", 0))
        for source in data.get("sources", ()):
            if isinstance(source, Input):
                picture.add_node(source)
                pos[source] = (float(source.index), 0.0)
                picture.add_edge(source, v)
    picture.add_edges_from(dag.edges)
    inputs = [v for v in picture if isinstance(v, Input)]
    nx.draw_networkx_edges(picture, pos, ax=ax, arrows=True, arrowsize=6, width=0.7, edge_color="#999999",
                           node_size=node_size)
    nx.draw_networkx_nodes(picture, pos, nodelist=inputs, ax=ax, node_size=node_size, node_color="white",
                           edgecolors=COLORS["black"], linewidths=0.8)
    nx.draw_networkx_labels(picture, pos, labels={v: str(v.index) for v in inputs}, ax=ax, font_size=6)
    for op, colour in _OP_COLORS.items():
        nodes = [v for v in dag if dag.nodes[v].get("op") == op]
        if nodes:
            nx.draw_networkx_nodes(picture, pos, nodelist=nodes, ax=ax, node_size=node_size, node_color=colour)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, fontsize=9, fontweight="normal")
    return ax


def four_dags(fig, n=8):
    """The four ways of adding up an array in this section, for n inputs: a loop, a tree, and the two
    prefix-sum algorithms, each titled with its work and depth. Returns the four axes."""
    builders = [
        ("sum, loop", sequential_sum_dag),
        ("sum, tree", reduction_tree_dag),
        ("prefix sums, Hillis-Steele", hillis_steele_scan_dag),
        ("prefix sums, Blelloch", blelloch_scan_dag),
    ]
    axes = fig.subplots(1, 4)
    for ax, (name, build) in zip(axes, builders):
        dag = build(n)
        draw_dag(ax, dag, f"{name}\nW = {_fmt(work(dag))}, D = {_fmt(depth(dag))}")
    handles = [Patch(color=c, label=op) for op, c in _OP_COLORS.items() if op != "mul"]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8)
    return axes


def brent_curves(fig, example, processors=PROCESSORS):
    """Time on K processors for one of :data:`EXAMPLES`: Brent's lower and upper bounds as a band,
    the greedy list schedule's makespan as points, and the parallelism W/D marked. Returns the axes."""
    dag = EXAMPLES[example]()
    w, d = work(dag), depth(dag)
    ps = np.asarray(processors)
    lower, upper = brent_bounds(w, d, ps)
    greedy = np.array([greedy_schedule(dag, int(p)).makespan for p in ps])
    ax = style_axes(fig.subplots())
    ax.fill_between(ps, lower, upper, color=COLORS["sky"], alpha=0.35, lw=0, label="Brent: max(W/K, D) ... W/K + D")
    ax.plot(ps, w / ps, color=COLORS["grey"], linestyle=(0, (4, 3)), linewidth=1.2, label="W/K")
    ax.axhline(d, color=COLORS["vermillion"], linestyle=":", linewidth=1.5, label=f"depth D = {_fmt(d)}")
    ax.plot(ps, greedy, marker="o", markersize=4, linestyle="none", color=COLORS["blue"],
            label="greedy schedule")
    ax.axvline(w / d, color=COLORS["green"], linestyle="--", linewidth=1.2, label=f"parallelism W/D = {_fmt(w / d)}")
    log2_axis(ax, "both")
    ax.set_xlabel("processors K")
    ax.set_ylabel("time T_K (units of node cost)")
    ax.set_title(f"{example}: W = {_fmt(w)}, D = {_fmt(d)}", fontsize=9, fontweight="normal")
    ax.legend(loc="lower left", fontsize=7)
    return ax


def _gantt(ax, dag, schedule, colour_of):
    for task in schedule.tasks:
        length = task.finish - task.start
        if length <= 0:
            continue
        ax.barh(task.processor, length, left=task.start, height=0.8, color=colour_of(task.node),
                edgecolor="white", linewidth=0.5)
    ax.set_ylim(schedule.p - 0.5, -0.5)
    ax.set_xlim(0, schedule.makespan)
    ax.grid(axis="y", visible=False)
    return ax


def schedule_gantt(fig, dag, p):
    """Gantt chart of the greedy schedule of ``dag`` on ``p`` processors (the book's K), one row per processor.

    Operations are coloured by layer when the nodes have a ``layer`` attribute (a layer stack),
    else by kind, and carry their ``label`` attribute when there are few of them. Returns the axes."""
    schedule = greedy_schedule(dag, p)
    ax = style_axes(fig.subplots())
    palette = [COLORS[c] for c in ("blue", "orange", "green", "purple", "vermillion", "sky")]

    def colour(v):
        data = dag.nodes[v]
        if "layer" in data:
            return palette[data["layer"] % len(palette)]
        return _OP_COLORS.get(data.get("op"), _PHASE_COLORS.get(data.get("phase"), COLORS["blue"]))

    _gantt(ax, dag, schedule, colour)
    if len(schedule.tasks) <= 80:
        for task in schedule.tasks:
            label = dag.nodes[task.node].get("label")
            if label and task.finish > task.start:
                ax.text((task.start + task.finish) / 2, task.processor, label, ha="center", va="center",
                        fontsize=7, color="white")
    lower, upper = brent_bounds(work(dag), depth(dag), p)
    ax.set_yticks(range(p))
    ax.set_xlabel("time (units of node cost)")
    ax.set_ylabel("processor")
    ax.set_title(f"{dag.graph.get('name', 'DAG')} on K = {p}: makespan {_fmt(schedule.makespan)}, "
                 f"Brent bounds {_fmt(lower)} ... {_fmt(upper)}", fontsize=9, fontweight="normal")
    return ax


def pipeline_gantt(fig, stages, microbatches, forward=1.0, backward=2.0):
    """A pipeline-parallel step (GPipe schedule) on its ``stages`` devices: forward and backward passes
    of each micro-batch, the idle bubble in white, and the bubble fraction (p - 1)/m in the title.
    Returns the axes."""
    dag = pipeline_dag(stages, microbatches, forward, backward)
    schedule = greedy_schedule(dag, stages, pinned=True)
    ax = style_axes(fig.subplots())
    _gantt(ax, dag, schedule, lambda v: _PHASE_COLORS[dag.nodes[v]["phase"]])
    if microbatches <= 8 and stages <= 4:
        for task in schedule.tasks:
            ax.text((task.start + task.finish) / 2, task.processor, str(dag.nodes[task.node]["microbatch"] + 1),
                    ha="center", va="center", fontsize=7, color="white")
    ax.set_yticks(range(stages))
    ax.set_yticklabels([f"stage {s + 1}" for s in range(stages)])   # counted from 1, as the micro-batches are
    ax.set_xlabel("time (units of one forward pass of one micro-batch on one stage)")
    ax.set_title(f"p = {stages} stages, m = {microbatches} micro-batches: "
                 f"bubble = (p - 1)/m = {schedule.bubble_fraction:.3g}", fontsize=9, fontweight="normal")
    fig.legend(handles=[Patch(color=_PHASE_COLORS["forward"], label="forward pass"),
                        Patch(color=_PHASE_COLORS["backward"], label="backward pass"),
                        Patch(facecolor="white", edgecolor=COLORS["grey"], label="idle (the bubble)")],
               loc="outside lower center", fontsize=8, ncols=3)
    return ax
