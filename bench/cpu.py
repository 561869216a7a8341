"""CPU seconds of this process and everything under it (a Spark play's JVM and Python workers).

Machine-wide CPU (``/proc/stat``) counts every other user of a shared machine; the process
tree's counts only the play's. Read from ``/proc`` (Linux): each process's user and system
time plus what its reaped children used. Elsewhere only this process's own time is known.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds with reaped children) of ``pid``, None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces
    ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int | None = None) -> float:
    """CPU seconds so far of ``root`` (default: this process) and its live descendants."""
    root = os.getpid() if root is None else root
    if not PROC.is_dir():
        return time.process_time()
    stats: dict[int, tuple[int, float]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            found = _stat(int(entry.name))
            if found is not None:
                stats[int(entry.name)] = found
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
        todo.extend(children.get(pid, ()))
    return total
