"""The draw functions of a table version, generated from its columns' source text (``values``).

A table's insert draws its column values in a fixed order (the plan: the non-key columns in
table order, each nullable one first drawing whether it is NULL) and returns the image in
column order. Generated once per schema version, it is a straight run of every column's
draw statements on the row's stream state ``s`` (``draws``), with the tables and key
generators as locals and every bound a literal: no call per column, no loop, no reordering
dict. The same source gives the UPDATE's draws (which columns change, and their values) and
the value one column draws for a MODIFY COLUMN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tisink.core.codegen import run_generated
from tisink.feed.workload.draws import STEP, ColumnCode, ValueGen, below_code, draw
from tisink.feed.workload.values import SHARED

Image = dict[str, Any]
NewImage = Callable[[int, int], Image]
"""``insert(state, seq)``: a new row's image from the stream ``state``, keys from ``seq``."""
Update = Callable[[int, Image], None]
"""``update(state, image)``: set an UPDATE's changed columns in ``image``."""

KeyPlan = tuple[str, Callable[[int], Any]]
"""A key column: its name and the value of row sequence number ``seq``."""
ValuePlan = tuple[str, bool, float, ColumnCode]
"""A non-key column: name, nullable, NULL ratio, the draw of its values."""

MAX_UPDATED_COLUMNS = 3
"""An UPDATE changes 1 to this many of the columns it may change."""


class Draws(NamedTuple):
    """The generated draw functions of one table version."""

    insert: NewImage
    update: Update
    """Changes 1 to ``MAX_UPDATED_COLUMNS`` of the ``mutable`` columns (none if there are
    none): NULL at a column's ratio, else a value."""
    values: dict[str, ValueGen]
    """A (non-NULL) value of each non-key column from a stream state, for MODIFY COLUMN."""


def compile_draws(
    table: str,
    keys: Sequence[KeyPlan],
    plan: Sequence[ValuePlan],
    order: Sequence[str],
    mutable: int | None = None,
) -> Draws:
    """The draws of a table version: ``keys`` and the ``plan`` columns, in the column
    ``order``; an UPDATE may change the first ``mutable`` plan columns (all by default);
    ``table`` names the functions in tracebacks and profiles."""
    namespace: dict[str, Any] = dict(SHARED)
    for _, _, _, code in plan:
        namespace.update(code.tables)
    for i, (_, key) in enumerate(keys):
        namespace[f"key{i}"] = key
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    local = {name: f"k{i}" for i, (name, _) in enumerate(keys)}
    body = [f"def insert(s, seq, *, {defaults}):"]
    body += [f"    k{i} = key{i}(seq)" for i in range(len(keys))]
    functions = []
    for i, (name, nullable, ratio, code) in enumerate(plan):
        local[name] = f"v{i}"
        body += _drawn(i, nullable, ratio, code, "    ")
        functions += [f"def value{i}(s, *, {defaults}):", *_indented(code.lines, "    ")]
        functions.append(f"    return v{i}")
    display = ", ".join(f"{name!r}: {local[name]}" for name in order)
    body.append(f"    return {{{display}}}")
    changing = plan[: len(plan) if mutable is None else mutable]
    source = "\n".join(body + functions + _update(changing, defaults))
    run_generated(source, f"draws of {table}", namespace)
    names = [name for name, _, _, _ in plan]
    return Draws(
        namespace["insert"],
        namespace["update"],
        {name: namespace[f"value{i}"] for i, name in enumerate(names)},
    )


def _drawn(i: int, nullable: bool, ratio: float, code: ColumnCode, indent: str) -> list[str]:
    """The statements that set ``v{i}``: NULL at ``ratio`` if nullable, else the draw."""
    if not nullable:
        return _indented(code.lines, indent)
    return [
        f"{indent}if {draw()} < {ratio!r}:",
        f"{indent}    v{i} = None",
        f"{indent}else:",
        *_indented(code.lines, indent + "    "),
    ]


def _indented(lines: Sequence[str], indent: str) -> list[str]:
    return [indent + line for line in lines]


def _update(plan: Sequence[ValuePlan], defaults: str) -> list[str]:
    """``update(s, image)``: how many columns change, which (picked from a shrinking pool, as
    ``random.sample`` picks), and each one's new value."""
    count = len(plan)
    if not count:
        return [f"def update(s, image, *, {defaults}):", "    return None"]
    lines = [
        f"def update(s, image, *, {defaults}):",
        *_indented(below_code("n", min(MAX_UPDATED_COLUMNS, count)), "    "),
        f"    pool = list(range({count}))",
        f"    for left in range({count}, {count} - 1 - n, -1):",
        f"        j = ({STEP} * left) >> 64",
        "        c = pool[j]",
        "        pool[j] = pool[left - 1]",
    ]
    for i, (name, nullable, ratio, code) in enumerate(plan):
        lines.append(f"        {'if' if i == 0 else 'elif'} c == {i}:")
        lines += _drawn(i, nullable, ratio, code, "            ")
        lines.append(f"            image[{name!r}] = v{i}")
    return lines
