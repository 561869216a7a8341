"""The draw functions of a table version, generated from its columns' source text (``values``).

A table's insert draws its column values in a fixed order (the plan: the non-key columns in
table order, each nullable one first drawing whether it is NULL) and returns the image in
column order. Generated once per schema version, it is a straight run of every column's
draw statements, with the RNG's methods, tables and generators as locals and every bound a
literal: no call per column, no loop, no reordering dict. The same source, one function per
column, gives the values an UPDATE or a MODIFY COLUMN draws.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tisink.core.codegen import run_generated
from tisink.feed.workload.draws import ColumnCode, ValueGen
from tisink.feed.workload.values import SHARED

Image = dict[str, Any]
NewImage = Callable[[random.Random, int], Image]

KeyPlan = tuple[str, Callable[[int], Any]]
"""A key column: its name and the value of row sequence number ``seq``."""
ValuePlan = tuple[str, bool, float, ColumnCode]
"""A non-key column: name, nullable, NULL ratio, the draw of its values."""

_PROLOGUE = ["    bits = rng.getrandbits", "    draw = rng.random"]


class Draws(NamedTuple):
    """The generated draw functions of one table version."""

    insert: NewImage
    """``insert(rng, seq)``: a new row's image (keys from ``seq``), in column order."""
    values: dict[str, ValueGen]
    """A (non-NULL) value of each non-key column, for MODIFY COLUMN."""
    changes: dict[str, ValueGen]
    """What an UPDATE sets a non-key column to: NULL at its ratio, else a value."""


def compile_draws(
    table: str, keys: Sequence[KeyPlan], plan: Sequence[ValuePlan], order: Sequence[str]
) -> Draws:
    """The draws of a table version: ``keys`` and the ``plan`` columns, in the column
    ``order``; ``table`` names the functions in tracebacks and profiles."""
    namespace: dict[str, Any] = dict(SHARED)
    for _, _, _, code in plan:
        namespace.update(code.tables)
    for i, (_, key) in enumerate(keys):
        namespace[f"key{i}"] = key
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    local = {name: f"k{i}" for i, (name, _) in enumerate(keys)}
    body = [f"def insert(rng, seq, *, {defaults}):", *_PROLOGUE]
    body += [f"    k{i} = key{i}(seq)" for i in range(len(keys))]
    functions = []
    for i, (name, nullable, ratio, code) in enumerate(plan):
        local[name] = f"v{i}"
        lines = [f"    {line}" for line in code.lines]
        null = [f"    if draw() < {ratio!r}:"]
        if nullable:
            body += [*null, f"        v{i} = None", "    else:"]
            body += [f"    {line}" for line in lines]
        else:
            body += lines
        functions += [f"def value{i}(rng, *, {defaults}):", *_PROLOGUE, *lines, f"    return v{i}"]
        functions += [f"def change{i}(rng, *, {defaults}):", *_PROLOGUE]
        functions += [*null, "        return None"] if nullable else []
        functions += [*lines, f"    return v{i}"]
    display = ", ".join(f"{name!r}: {local[name]}" for name in order)
    body.append(f"    return {{{display}}}")
    run_generated("\n".join(body + functions), f"draws of {table}", namespace)
    names = [name for name, _, _, _ in plan]
    return Draws(
        namespace["insert"],
        {name: namespace[f"value{i}"] for i, name in enumerate(names)},
        {name: namespace[f"change{i}"] for i, name in enumerate(names)},
    )
