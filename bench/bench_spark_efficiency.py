"""Spark's cost against one process: CPU, wall clock and memory of ``tisink play`` (issue 29).

Plays the sysbench-like table (bench/scenarios/sysbench.toml, one table, index-value over 6
partitions) into a file sink with ``--clock feed --no-verify``, inline and on Spark
``local[2]``, each as its own ``tisink play`` process. A sampler walks the process tree every
``--interval`` s with psutil and keeps each process's last CPU time (user + system) and the
tree's resident memory: the driver (the play's own process), the JVM and the Python workers
(every other process under it). Machine-wide /proc/stat would count the other users of a
shared machine; the tree's own CPU does not (contention still lengthens wall time, and a
process that lives less than one interval is missed).

``--profile`` adds the per-stage profile of the Spark play: the CPU of each kind of process in
each phase (start-up before the first task, stage one, stage two, or the one stage of a
workload generated in its owners; the phases come from the tasks' own times,
``TISINK_SPARK_PROFILE``), and PySpark's cProfile of the Python workers
(``spark.python.profile``), each stage's function, top functions by own time. ``--phases``
gives the per-phase CPU alone, without cProfile's cost.

    python bench/bench_spark_efficiency.py [--rows 400000] [--repeat 1] [--profile | --phases]
        [--workload demo | --feed FILE] [--sink file|kafka]
        [--engines inline,local[1],local[2],local[4],local[N],local[*]] [--baseline-code WORKTREE]

Peak memory is the largest sum of the tree's proportional set sizes at one sample (PSS, from
``/proc/PID/smaps_rollup``): a page the forked Python workers share with their daemon counts
once, split among them, where a sum of resident sets would count it once per process. Without
PSS (not Linux) the resident sets are summed, an upper bound. Memory is read every
``MEMORY_EVERY_S`` only: reading a JVM's PSS walks its page tables (7 ms a sample of a Spark
tree here, against 0.7 for the CPU times), and the sampler runs on the cores it measures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from tisink.bench.kafka import broker_address
from tisink.feed.spark.driver.class_archive import CDS_ENV, SETTLED_S, class_archive_option
from tisink.feed.spark.driver.session import LOCAL_JVM_OPTIONS
from tisink.feed.spark.tasks.task_timing import CPROFILE_ENV, PROFILE_ENV

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "scenarios" / "sysbench.toml"
PARTITIONS = 6
CONFIG = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'
LOCAL_MASTER = re.compile(r"local\[(\d+|\*)\]")
TISINK = str(Path(sys.executable).with_name("tisink"))


def engine_of(name: str) -> tuple[str, str | None]:
    """``inline`` or a local Spark master (``local[N]``, ``local[*]``) as (engine, master)."""
    if name == "inline":
        return ("inline", None)
    if LOCAL_MASTER.fullmatch(name):
        return ("spark", name)
    raise ValueError(f"{name!r} is neither inline nor local[N] or local[*]")


@dataclass
class Sample:
    t: float
    cpu: dict[int, tuple[str, float, float]]
    """Each process's kind, CPU time (user + system) and system time."""
    memory: int
    memory_by: dict[str, int] = field(default_factory=dict)
    """Resident memory of each kind of process (driver, jvm, workers) at this sample."""


@dataclass
class Run:
    engine: str
    wall_s: float
    cpu: dict[str, float]
    system_s: float
    """The tree's system (kernel) time: page faults on memory the machine gives out fresh
    (on a VM, a first touch of a guest page can cost 60-100 us), page cache, the sort's I/O."""
    peak_memory: int
    summary: dict[str, object]
    samples: list[Sample] = field(default_factory=list)
    phases: dict[str, tuple[float, float]] = field(default_factory=dict)
    profile_dir: Path | None = None

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu.values())


def _kind(proc: psutil.Process, root: int) -> str:
    if proc.pid == root:
        return "driver"
    try:
        name = proc.name()
        line = " ".join(proc.cmdline())
    except psutil.Error:
        return "other"
    if name == "java" or "java" in line.split(" ", 1)[0]:
        return "jvm"
    if "pyspark" in line or "python" in name:
        return "workers"
    return "other"


def _memory(proc: psutil.Process) -> int:
    """The process's share of the tree's memory: its PSS, else its resident set."""
    try:
        return int(proc.memory_full_info().pss)
    except (AttributeError, psutil.AccessDenied):
        return int(proc.memory_info().rss)


MEMORY_EVERY_S = 1.0
"""How often a sample reads the tree's memory as well as its CPU times."""


def _sample(root: psutil.Process, memory_too: bool = True) -> Sample:
    """The tree's CPU times, and its memory if ``memory_too`` (else none is counted)."""
    cpu: dict[int, tuple[str, float, float]] = {}
    memory = 0
    memory_by: dict[str, int] = {}
    try:
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:  # the play ended between two samples
        tree = []
    for proc in tree:
        try:
            times = proc.cpu_times()
            kind = _kind(proc, root.pid)
            cpu[proc.pid] = (kind, times.user + times.system, times.system)
            resident = _memory(proc) if memory_too else 0
        except psutil.Error:
            continue
        memory += resident
        memory_by[kind] = memory_by.get(kind, 0) + resident
    return Sample(time.time(), cpu, memory, memory_by)


@dataclass(frozen=True)
class Target:
    """What every play of the run reads and writes to."""

    source: tuple[str, ...]
    """``--workload NAME --rows N --seed 1``, or ``--feed FILE``."""
    bootstrap: str | None = None
    """A Kafka broker to write to (a topic per play), or None for a file sink."""

    def sink_uri(self, out: Path) -> str:
        query = f"protocol=simple&partition-num={PARTITIONS}"
        if self.bootstrap is None:
            return f"file://{out}?{query}"
        return f"kafka://{self.bootstrap}/{out.name}?{query}"


def play(
    engine: tuple[str, str | None],
    target: Target,
    folder: Path,
    interval: float,
    profile: bool,
    code: str | None = None,
    cprofile: bool = True,
) -> Run:
    name = (engine[1] or engine[0]) + (f"@{Path(code).name}" if code else "")
    out = folder / f"out-{name.replace('[', '').replace(']', '')}-{time.time_ns()}"
    summary_path = out.with_suffix(".json")
    config = folder / "dispatch.toml"
    config.write_text(CONFIG, encoding="utf-8")
    command = [
        TISINK, "play", *target.source, "--sink-uri", target.sink_uri(out),
        "--config", str(config), "--clock", "feed", "--no-verify", "--engine", engine[0],
        "--summary-json", str(summary_path),
    ]  # fmt: skip
    if engine[1]:
        command += ["--master", engine[1]]
    env = dict(os.environ)
    if code:  # another checkout's tisink (a baseline), ahead of the installed one
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [code, env.get("PYTHONPATH")]))
    profile_dir = None
    if profile and engine[1]:
        profile_dir = folder / f"profile-{time.time_ns()}"
        profile_dir.mkdir()
        env[PROFILE_ENV] = str(profile_dir)
        if cprofile:
            env["PYSPARK_SUBMIT_ARGS"] = (
                "--conf spark.python.profile=true "
                f"--conf spark.python.profile.dump={profile_dir / 'cprofile'} pyspark-shell"
            )
        else:
            env[CPROFILE_ENV] = "0"
    started = time.time()
    child = subprocess.Popen(
        command, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    root = psutil.Process(child.pid)
    samples: list[Sample] = []

    def watch() -> None:
        every = max(1, round(MEMORY_EVERY_S / interval))
        count = 0
        while child.poll() is None:
            samples.append(_sample(root, count % every == 0))
            count += 1
            time.sleep(interval)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, err = child.communicate()
    wall = time.time() - started
    watcher.join()
    if child.returncode != 0:
        raise SystemExit(f"{name} failed ({child.returncode}):\n{err.decode()[-3000:]}")
    last: dict[int, tuple[str, float, float]] = {}
    for sample in samples:
        last.update(sample.cpu)
    cpu: dict[str, float] = {}
    for kind, seconds, _ in last.values():
        cpu[kind] = cpu.get(kind, 0.0) + seconds
    system = sum(seconds for _, _, seconds in last.values())
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    settle(out)
    peak = max((s.memory for s in samples), default=0)
    run = Run(name, wall, cpu, system, peak, summary, samples)
    run.profile_dir = profile_dir
    if profile_dir is not None:
        run.phases = _phases(profile_dir)
    return run


def settle(out: Path) -> None:
    """Remove a play's file output and sync: its gigabyte of dirty pages would otherwise be
    written back by the kernel's threads, outside the next play's process tree, on the same
    two cores, while that play is timed (deleted first, they are dropped, not written)."""
    shutil.rmtree(out, ignore_errors=True)
    os.sync()


def warm_class_archive(folder: Path) -> None:
    """Have the local JVM's class archive written before anything is timed: the first Spark
    play on a machine writes it when it exits, and the plays of the next minute start without
    it, so their JVM figures (and start-up) would include that, not the engine."""
    if os.environ.get(CDS_ENV) == "0" or _archive_ready():
        return
    print("writing the JVM's class archive first (one small local[1] play)", file=sys.stderr)
    small = ("--workload", str(SCENARIO), "--rows", "10000", "--seed", "1")
    play(("spark", "local[1]"), Target(small), folder, 1.0, False)
    deadline = time.monotonic() + SETTLED_S + 60
    while not _archive_ready():
        if time.monotonic() > deadline:
            raise SystemExit("the JVM's class archive was not written")
        time.sleep(5)


def _archive_ready() -> bool:
    return "-XX:SharedArchiveFile=" in class_archive_option(LOCAL_JVM_OPTIONS)


def _peak_of(group: list[Run], kind: str) -> float:
    """The median over runs of the largest resident memory of one kind of process."""
    return statistics.median(
        max((s.memory_by.get(kind, 0) for s in run.samples), default=0) for run in group
    )


def _phases(folder: Path) -> dict[str, tuple[float, float]]:
    """(start, end) of each stage from the tasks' own records."""
    spans: dict[str, list[float]] = {}
    for path in folder.glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        span = spans.setdefault(record["stage"], [record["start"], record["end"]])
        span[0], span[1] = min(span[0], record["start"]), max(span[1], record["end"])
    return {stage: (a, b) for stage, (a, b) in spans.items()}


def _cpu_at(samples: list[Sample], t: float) -> dict[str, float]:
    """CPU by kind at time ``t``: each process's last reading before ``t``."""
    last: dict[int, tuple[str, float, float]] = {}
    for sample in samples:
        if sample.t > t:
            break
        last.update(sample.cpu)
    out: dict[str, float] = {}
    for kind, seconds, _ in last.values():
        out[kind] = out.get(kind, 0.0) + seconds
    return out


def stage_table(run: Run) -> list[str]:
    """CPU seconds per kind of process in each phase of a profiled Spark play."""
    start = run.samples[0].t
    end = run.samples[-1].t + 1
    if "owners" in run.phases:  # a workload generated in its owners: one stage
        owners = run.phases["owners"]
        cuts = [
            ("start-up", start, owners[0]),
            ("owners: generate, route, play", *owners),
            ("exit", owners[1], end),
        ]
    elif "stage one" in run.phases and "stage two" in run.phases:
        one, two = run.phases["stage one"], run.phases["stage two"]
        cuts = [
            ("start-up", start, one[0]),
            ("stage one + shuffle write", one[0], one[1]),
            ("shuffle read + sort + stage two", one[1], two[1]),
            ("exit", two[1], end),
        ]
    else:
        return ["(no stage records: was the play profiled?)"]
    lines = [f"{'phase':34} {'wall s':>7} {'driver':>7} {'jvm':>7} {'workers':>8}"]
    for label, a, b in cuts:
        before, after = _cpu_at(run.samples, a), _cpu_at(run.samples, b)
        d = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in ("driver", "jvm", "workers")}
        lines.append(
            f"{label:34} {b - a:7.2f} {d['driver']:7.2f} {d['jvm']:7.2f} {d['workers']:8.2f}"
        )
    return lines


def cprofile_lines(run: Run, top: int) -> list[str]:
    """PySpark's dumps: one cProfile per RDD function that ran in the workers."""
    folder = (run.profile_dir or Path()) / "cprofile"
    lines: list[str] = []
    for path in sorted(folder.glob("*.pstats")):
        stats = pstats.Stats(str(path))
        total = stats.total_tt  # type: ignore[attr-defined]
        lines.append(f"{path.name}: {total:.2f} s in the Python workers, top by own time")
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])  # type: ignore[attr-defined]
        for (file, line, func), (_, calls, own, cum, _) in rows[:top]:
            where = f"{Path(file).parent.name}/{Path(file).name}:{line}({func})"
            lines.append(f"  {own:7.2f} own {cum:7.2f} cum {calls:>9} {where[-70:]}")
    return lines or [f"(no cProfile dumps in {folder})"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.1, help="sampling interval (s)")
    parser.add_argument("--profile", action="store_true", help="per-stage profile of Spark")
    parser.add_argument(
        "--phases", action="store_true", help="per-stage CPU of Spark, without cProfile"
    )
    parser.add_argument("--top", type=int, default=25, help="cProfile functions shown")
    parser.add_argument("--engines", default="inline,local[2]")
    parser.add_argument("--workload", default=str(SCENARIO), help="scenario name or TOML")
    parser.add_argument("--feed", help="play this feed file instead of the workload")
    parser.add_argument(
        "--sink",
        choices=("file", "kafka"),
        default="file",
        help="kafka: a topic per play on $TISINK_KAFKA_BOOTSTRAP or an embedded broker",
    )
    parser.add_argument(
        "--baseline-code",
        help="a checkout of tisink to play every engine with as well (its PYTHONPATH), e.g. a "
        "git worktree of the commit before a change: before and after in the same run",
    )
    args = parser.parse_args()
    try:
        engines = [engine_of(name) for name in args.engines.split(",")]
    except ValueError as err:
        parser.error(f"--engines: {err}")
    runs: dict[str, list[Run]] = {}
    source = ("--feed", args.feed) if args.feed else (
        "--workload", args.workload, "--rows", str(args.rows), "--seed", "1"
    )  # fmt: skip
    kafka = args.sink == "kafka"
    with (
        tempfile.TemporaryDirectory(prefix="tisink-bench-") as tmp,
        broker_address(os.environ.get("TISINK_KAFKA_BOOTSTRAP")) if kafka
        else contextlib.nullcontext(None) as bootstrap,
    ):  # fmt: skip
        target = Target(source, bootstrap)
        if any(engine[1] for engine in engines):
            warm_class_archive(Path(tmp))
        for _ in range(max(1, args.repeat)):
            for engine in engines:
                timed = args.profile or args.phases
                run = play(engine, target, Path(tmp), args.interval, timed, None, args.profile)
                runs.setdefault(run.engine, []).append(run)
            for engine in engines if args.baseline_code else ():
                run = play(engine, target, Path(tmp), args.interval, False, args.baseline_code)
                runs.setdefault(run.engine, []).append(run)
        what = args.feed or f"{Path(args.workload).stem}, {args.rows} rows"
        print(f"{what}, {PARTITIONS} partitions, {args.sink} sink, --clock feed --no-verify; "
              f"medians of {args.repeat}; CPU of the play's process tree (psutil), not "
              "machine-wide (an embedded broker is not in it)")  # fmt: skip
        header = (f"{'engine':9} {'wall s':>7} {'CPU s':>7} {'driver':>7} {'jvm':>6} "
                  f"{'workers':>7} {'sys':>6} {'us/row':>7} {'CPU x':>6} {'rows/s e2e':>10} "
                  f"{'speed x':>7} {'writing r/s':>11} {'startup':>7} {'peak MB':>7} "
                  f"{'driver/jvm/workers MB':>21}")  # fmt: skip
        print(header)
        base_cpu = base_rate = None
        for name, group in runs.items():
            med = statistics.median
            wall = med(r.wall_s for r in group)
            cpu = med(r.cpu_s for r in group)
            rows = int(group[0].summary["rows"])  # type: ignore[call-overload]
            per_row = cpu / rows * 1e6
            rate = rows / wall
            base_cpu = base_cpu or per_row
            base_rate = base_rate or rate
            parts = {k: med(r.cpu.get(k, 0.0) for r in group) for k in ("driver", "jvm", "workers")}
            system = med(r.system_s for r in group)
            writing = med(float(r.summary.get("writing_rows_per_s") or 0) for r in group)  # type: ignore[arg-type]
            startup = med(float(r.summary["startup_s"]) for r in group)  # type: ignore[arg-type]
            peak = med(r.peak_memory for r in group) / 1e6
            kinds = "/".join(
                f"{_peak_of(group, k) / 1e6:.0f}" for k in ("driver", "jvm", "workers")
            )
            print(
                f"{name:9} {wall:7.2f} {cpu:7.2f} {parts['driver']:7.2f} {parts['jvm']:6.2f} "
                f"{parts['workers']:7.2f} {system:6.2f} {per_row:7.1f} {per_row / base_cpu:6.2f} "
                f"{rate:10.0f} {rate / base_rate:7.2f} {writing:11.0f} {startup:7.2f} {peak:7.0f} "
                f"{kinds:>21}"
            )
        for name, group in runs.items():
            for run in group:
                if run.profile_dir is not None:
                    print(f"\nper-stage CPU seconds, {name}:")
                    print("\n".join(stage_table(run)))
                    print("\n".join(cprofile_lines(run, args.top)))


if __name__ == "__main__":
    main()
