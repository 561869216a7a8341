"""The image of a new row, as one generated function per table version.

A table's insert draws its column values in a fixed order (the plan: the non-key columns in
table order, each nullable one first drawing whether it is NULL) and returns the image in
column order. Generated once per schema version, it is a straight run of calls with every
name, generator and ratio a local: no loop, no tuple unpacking, no reordering dict.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from tisink.feed.workload.values import ValueGen

Image = dict[str, Any]
NewImage = Callable[[random.Random, int], Image]

KeyPlan = tuple[str, Callable[[int], Any]]
"""A key column: its name and the value of row sequence number ``seq``."""
ValuePlan = tuple[str, bool, float, ValueGen]
"""A non-key column: name, nullable, NULL ratio, generator."""


def compile_insert(
    keys: Sequence[KeyPlan], plan: Sequence[ValuePlan], order: Sequence[str]
) -> NewImage:
    """``insert(rng, seq)``: the new row's image, drawing as the plan says, keys from
    ``seq``, in the column ``order``."""
    namespace: dict[str, Any] = {}
    local: dict[str, str] = {}
    body = ["    draw = rng.random"]
    for i, (name, key) in enumerate(keys):
        namespace[f"key{i}"] = key
        local[name] = f"k{i}"
        body.append(f"    k{i} = key{i}(seq)")
    for i, (name, nullable, ratio, gen) in enumerate(plan):
        namespace[f"gen{i}"] = gen
        local[name] = f"v{i}"
        if nullable:
            namespace[f"ratio{i}"] = ratio
            body.append(f"    v{i} = None if draw() < ratio{i} else gen{i}(rng)")
        else:
            body.append(f"    v{i} = gen{i}(rng)")
    for i, name in enumerate(order):
        namespace[f"name{i}"] = name
    display = ", ".join(f"name{i}: {local[name]}" for i, name in enumerate(order))
    body.append(f"    return {{{display}}}")
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def insert(rng, seq, *, {defaults}):", *body])
    exec(compile(source, "<workload insert>", "exec"), namespace)
    insert: NewImage = namespace["insert"]
    return insert
