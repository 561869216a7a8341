"""The generated draw functions equal a plain implementation of the same draws.

The reference below says what each column type draws from a row's stream (``WordStream``, the
readable form of the stream the generated code steps inline): the generated insert, value and
update functions must give the same values and leave the stream in the same state, for any
columns and stream.
"""

from __future__ import annotations

import base64
import datetime
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload.draws import WordStream
from tisink.feed.workload.inserts import ValuePlan, compile_draws
from tisink.feed.workload.types import parse_column_type
from tisink.feed.workload.values import ALPHABET, DEFAULT_MAX_SIZE, column_code
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

POOL = "".join(random.Random(0x715_1A4).choices(ALPHABET, k=1 << 16))
BYTES = random.Random(0xB17E5).randbytes(1 << 16)
WORDS = ("alpha", "beta", "gamma", "delta", "<tag>", "a&b", "中文", "")
EPOCH = datetime.datetime(1970, 1, 1)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _fraction(w: WordStream, fsp: int) -> str:
    return f".{w.below(10**fsp):0{fsp}d}" if fsp else ""


def _length_bounds(col: ColumnInfo, size: tuple[int, int] | None, unit: int) -> tuple[int, int]:
    low, high = size or (0, DEFAULT_MAX_SIZE)
    if col.length:
        high = min(
            high, col.length if col.mysql_type in ("char", "varchar") else col.length // unit
        )
        low = min(low, high)
    return low, high


def _slice(w: WordStream, pool: Any, low: int, high: int) -> Any:
    """A start, then a length; a value longer than the pool is cut from it repeated."""
    if high >= len(pool):
        start = w.below(len(pool))
        pool = pool * (high // len(pool) + 2)
    else:
        start = w.below(len(pool) - high)
    return pool[start : start + low + w.below(high - low + 1)]


def reference(col: ColumnInfo, size: tuple[int, int] | None, w: WordStream) -> Any:
    """One non-NULL value of ``col``, as the generator's docs describe its draws."""
    family, kind = col.family, col.mysql_type
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        low, high, top = INTEGER_RANGES[kind]
        low, high = (0, top) if col.unsigned else (low, high)
        return low + w.bits((high - low).bit_length())
    if family is TypeFamily.YEAR:
        return 1901 + w.below(255)
    if family is TypeFamily.BIT:
        return w.bits(col.length or 1)
    if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
        span = 1e4 if kind == "float" else 1e9
        low = 0.0 if col.unsigned else -span
        return round(low + (span - low) * w.random(), 2 if kind == "float" else 4)
    if family is TypeFamily.DECIMAL:
        whole = w.below(10 ** min(col.length - col.decimal, 12))
        text = f"{whole}.{w.below(10**col.decimal):0{col.decimal}d}" if col.decimal else str(whole)
        negative = not col.unsigned and w.random() < 0.25 and text.strip("0.") != ""
        return "-" + text if negative else text
    if family is TypeFamily.STRING:
        return _slice(w, POOL, *_length_bounds(col, size, 4))
    if family is TypeFamily.BINARY:
        if kind == "binary":
            return _b64(_slice(w, BYTES, col.length or 1, col.length or 1))
        return _b64(_slice(w, BYTES, *_length_bounds(col, size, 1)))
    if family in (TypeFamily.DATETIME, TypeFamily.TIMESTAMP, TypeFamily.DATE):
        low, high = (1, 2**31 - 1) if family is TypeFamily.TIMESTAMP else (0, 2_145_916_799)
        when = EPOCH + datetime.timedelta(seconds=low + w.below(high - low + 1))
        if family is TypeFamily.DATE:
            return when.strftime("%Y-%m-%d")
        return when.strftime("%Y-%m-%d %H:%M:%S") + _fraction(w, col.decimal)
    if family is TypeFamily.TIME:
        hour, minute, second = w.below(1677) - 838, w.below(60), w.below(60)
        sign = "-" if hour < 0 else ""
        return f"{sign}{abs(hour):02d}:{minute:02d}:{second:02d}" + _fraction(w, col.decimal)
    if family is TypeFamily.ENUM:
        return col.elements[w.below(len(col.elements))]
    if family is TypeFamily.SET:
        return [m for m in col.elements if w.random() < 0.5]
    if family is TypeFamily.JSON:
        doc: dict[str, Any] = {"id": w.below(1 << 40), "name": WORDS[w.below(len(WORDS))]}
        count, start = w.below(4), w.below(len(WORDS) - 3 + 1)
        if w.random() < 0.5:
            doc["tags"] = list(WORDS[start : start + count])
        n, ok = w.below(199), w.random() < 0.5
        if w.random() < 0.3:
            doc["nested"] = {"ok": ok, "none": None, "n": n - 99}
        return doc if w.random() < 0.9 else [doc["id"], doc["name"]]
    assert family is TypeFamily.VECTOR
    return [round(-1.0 + 2.0 * w.random(), 3) for _ in range(col.length or 3)]


def reference_update(
    specs: list[tuple[ColumnInfo, Any, bool, float]], image: dict[str, Any], w: WordStream
) -> None:
    """An UPDATE: 1 to 3 columns, picked from a shrinking pool, each NULL at its ratio."""
    count = len(specs)
    if not count:
        return
    n = w.below(min(3, count))
    pool = list(range(count))
    for left in range(count, count - 1 - n, -1):
        j = w.below(left)
        c = pool[j]
        pool[j] = pool[left - 1]
        col, size, nullable, ratio = specs[c]
        null = nullable and w.random() < ratio
        image[col.name] = None if null else reference(col, size, w)


_SIGN = st.sampled_from(["", " unsigned"])
_FSP = st.integers(0, 6).map(lambda n: f"({n})" if n else "")
_MEMBERS = st.lists(st.sampled_from(["a", "b", "c''d", "中", "x y"]), min_size=1, max_size=5)
TYPES = st.one_of(
    st.tuples(st.sampled_from(list(INTEGER_RANGES)), _SIGN).map("".join),
    st.sampled_from(["year", "float", "double", "float unsigned", "json", "date", "tinytext"]),
    st.integers(1, 64).map(lambda n: f"bit({n})"),
    st.integers(1, 65).flatmap(
        lambda p: st.tuples(st.integers(0, min(p, 30)), _SIGN).map(
            lambda s: f"decimal({p},{s[0]}){s[1]}"
        )
    ),
    st.tuples(st.sampled_from(["char", "varchar", "binary", "varbinary"]), st.integers(1, 255)).map(
        lambda t: f"{t[0]}({t[1]})"
    ),
    st.sampled_from(["text", "mediumtext", "longtext", "tinyblob", "blob", "longblob"]),
    st.tuples(st.sampled_from(["datetime", "timestamp", "time"]), _FSP).map("".join),
    st.tuples(st.sampled_from(["enum", "set"]), _MEMBERS).map(
        lambda t: f"{t[0]}({','.join(repr(m) for m in dict.fromkeys(t[1]))})"
    ),
    st.integers(1, 40).map(lambda n: f"vector({n})"),
)
SIZES = st.one_of(
    st.none(),
    st.tuples(st.integers(0, 300), st.integers(0, 300)).map(lambda t: (min(t), max(t))),
    st.just((70_000, 70_004)),  # longer than the pools: cut from them repeated
)
COLUMNS = st.lists(
    st.tuples(TYPES, SIZES, st.booleans(), st.sampled_from([0, 0.1, 0.5, 1.0])),
    min_size=1,
    max_size=6,
)


def _plan(columns: list[tuple[str, Any, bool, float]]) -> tuple[list[ValuePlan], list[Any]]:
    plan, specs = [], []
    for i, (text, size, nullable, ratio) in enumerate(columns):
        col = parse_column_type(text, f"c{i}")
        plan.append((col.name, nullable, ratio, column_code(col, size, f"v{i}")))
        specs.append((col, size, nullable, ratio))
    return plan, specs


@settings(deadline=None)
@given(columns=COLUMNS, seed=st.integers(0, 2**64 - 1), seq=st.integers(1, 10**6))
def test_insert_draws_what_the_reference_draws(columns, seed: int, seq: int) -> None:
    plan, specs = _plan(columns)
    order = ["c0", "id", *(f"c{i}" for i in range(1, len(specs)))]
    draws = compile_draws("t", [("id", lambda s: s * 10)], plan, order)
    image = draws.insert(seed, seq)
    theirs = WordStream(seed)
    expected: dict[str, Any] = {"id": seq * 10}
    for col, size, nullable, ratio in specs:
        null = nullable and theirs.random() < ratio
        expected[col.name] = None if null else reference(col, size, theirs)
    assert list(image) == order
    assert image == {name: expected[name] for name in order}


@settings(deadline=None)
@given(columns=COLUMNS, seed=st.integers(0, 2**64 - 1), mutable=st.integers(0, 6))
def test_value_and_update_draw_what_the_reference_draws(columns, seed: int, mutable) -> None:
    plan, specs = _plan(columns)
    mutable = min(mutable, len(specs))
    draws = compile_draws("t", [], plan, [col.name for col, _, _, _ in specs], mutable)
    for col, size, _, _ in specs:
        assert draws.values[col.name](seed) == reference(col, size, WordStream(seed))
    image = {col.name: "before" for col, _, _, _ in specs}
    expected = dict(image)
    draws.update(seed, image)
    reference_update(specs[:mutable], expected, WordStream(seed))
    assert image == expected
    changed = sum(image[name] != "before" for name in image)
    assert changed <= min(3, mutable)
