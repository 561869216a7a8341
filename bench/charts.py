"""``bench.png``: one bar chart per group, each case's rows/s beside its baseline's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tisink.bench.output import groups
from tisink.bench.results import BenchResult

BAR = 0.4


def bench_chart(results: Sequence[BenchResult], path: Path) -> None:
    by_group = groups(results)
    heights = [max(2.0, 0.45 * len(members) + 1.2) for members in by_group.values()]
    figure = Figure(figsize=(10, sum(heights)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(by_group), 1, squeeze=False, height_ratios=heights)[:, 0]
    for ax, (group, members) in zip(axes, by_group.items(), strict=True):
        positions = range(len(members))
        ax.barh(
            [p + BAR / 2 for p in positions],
            [r.rows_per_s for r in members],
            height=BAR,
            label="tisink",
            color="tab:blue",
        )
        ax.barh(
            [p - BAR / 2 for p in positions],
            [r.baseline_rows_per_s or 0 for r in members],
            height=BAR,
            label="its raw baseline (bench.md names it)",
            color="tab:gray",
        )
        ax.set_yticks(list(positions), [r.case for r in members])
        ax.invert_yaxis()
        ax.set_title(group, loc="left", fontsize="medium")
        ax.set_xlabel("rows/s")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside upper right", ncols=2, fontsize="small")
    figure.savefig(path, dpi=100)
