"""Running generated source: the encoders' per-table functions, the workload's draws.

Each source is compiled under a file name of its own (``<tisink-generated WHAT N>``) and its
lines are registered with ``linecache``, so a traceback through a generated function shows the
generated line, not a bare ``<string>``. The same source compiled again (a table version that
comes back after a RENAME, the next generation of a workload) reuses its code object: compiling
costs milliseconds.
"""

from __future__ import annotations

import functools
import itertools
import linecache
from types import CodeType
from typing import Any

_NUMBERS = itertools.count(1)


@functools.lru_cache(maxsize=512)
def _code(source: str, what: str) -> CodeType:
    filename = f"<tisink-generated {what} {next(_NUMBERS)}>"
    code = compile(source, filename, "exec")
    # no modification time: linecache.checkcache keeps the entry (there is no file to re-read)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    return code


def run_generated(source: str, what: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Execute ``source`` (``what`` names it in tracebacks) with ``namespace`` as its globals;
    the namespace, holding what the source defines."""
    exec(_code(source, what), namespace)
    return namespace
