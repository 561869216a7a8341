"""The ``PARTITION BY`` clause of a dump's CREATE TABLE, read apart from sqlglot (which parses
HASH, KEY and RANGE partitioning only as a bare command, or not at all).

The clause is checked: a kind TiDB has (HASH, KEY, RANGE, RANGE COLUMNS, LIST, LIST COLUMNS,
LINEAR too, which TiDB plays as plain HASH and KEY: pingcap/tidb#38450), the columns it names,
and partitions that hold every value the generator draws (RANGE up to MAXVALUE, LIST with a
DEFAULT partition); SUBPARTITION and TiDB's INTERVAL partitioning are refused. Then
``partition_info`` keeps it as the table's ``PartitionInfo``, so each row goes to the
partition TiDB would write it to, or says why the table is played as one logical table (an
expression rather than a column, a column type or collation the router does not follow).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from tisink.model.table import PartitionDef, PartitionInfo

Fail = Callable[[str, int], NoReturn]
"""Refuse with a reason and the offset in the text where the problem is."""
MAX_PARTITIONS = 8192
"""TiDB's limit of partitions per table."""

_CLAUSE = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|[()]|\bPARTITION\s+BY\b", re.I
)
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`]|``)*`|\w+|\S")
_KINDS = ("HASH", "KEY", "RANGE", "LIST")


@dataclass(frozen=True)
class Partitioning:
    kind: str
    """HASH, KEY, RANGE, RANGE COLUMNS, LIST or LIST COLUMNS (LINEAR left out)."""
    columns: tuple[str, ...]
    """The columns of the partitioning function; empty for ``KEY()`` (the primary key)."""
    count: int
    expression: str = ""
    """The text inside ``HASH(...)``, ``RANGE(...)``, ``LIST(...)``, as written."""
    definitions: tuple[tuple[str, ...], ...] = ()
    """The tokens of each listed partition, as written (``PARTITION p0 VALUES ...``)."""


def partition_clause_at(text: str) -> int | None:
    """Where ``PARTITION BY`` starts outside any parentheses or quotes, if it does."""
    depth = 0
    for found in _CLAUSE.finditer(text):
        piece = found.group()
        if piece == "(":
            depth += 1
        elif piece == ")":
            depth -= 1
        elif depth == 0 and piece[0] in "Pp":
            return found.start()
    return None


def parse_partitioning(
    clause: str, expression_columns: Callable[[str], list[str]], fail: Fail
) -> Partitioning:
    """The partitioning of ``clause`` (from ``PARTITION BY`` to the statement's end);
    ``expression_columns`` lists the columns an expression reads (or raises ValueError)."""
    reader = _Reader(clause, fail)
    reader.expect("PARTITION")
    reader.expect("BY")
    reader.accept("LINEAR")
    at, written = reader.offset(), reader.current()
    kind = reader.word()
    if kind not in _KINDS:
        fail(f"PARTITION BY {written!r} is not supported (HASH, KEY, RANGE, LIST)", at)
    if kind in ("RANGE", "LIST") and reader.accept("COLUMNS"):
        kind += " COLUMNS"
    if kind == "KEY" and reader.accept("ALGORITHM"):
        reader.expect("=")
        reader.word()
    at = reader.offset()
    expression = reader.group()
    if kind in ("HASH", "RANGE", "LIST"):
        try:
            columns = expression_columns(expression)
        except ValueError:
            fail(f"cannot parse the partitioning expression {expression!r}", at)
    else:
        columns = [unquoted(part) for part in expression.split(",") if part.strip()]
        if not columns and kind != "KEY":
            fail(f"PARTITION BY {kind} needs columns", at)
    if kind == "RANGE" and reader.peek() == "INTERVAL":
        fail("INTERVAL partitioning is not supported: list the partitions", reader.offset())
    count = 0
    if reader.accept("PARTITIONS"):
        at, written = reader.offset(), reader.current()
        number = reader.word()
        if not number.isdigit() or not 1 <= int(number) <= MAX_PARTITIONS:
            fail(f"PARTITIONS {written!r}: a count in 1..{MAX_PARTITIONS}", at)
        count = int(number)
    if reader.peek() == "SUBPARTITION":
        fail("SUBPARTITION is not supported", reader.offset())
    definitions = reader.definitions() if reader.peek() == "(" else []
    if reader.peek():
        fail(f"unexpected {reader.current()!r} in the partition clause", reader.offset())
    _check_definitions(kind, definitions, fail)
    count = len(definitions) or count or 1
    if count > MAX_PARTITIONS:
        fail(f"{count} partitions: TiDB allows {MAX_PARTITIONS}", 0)
    return Partitioning(
        kind, tuple(columns), count, expression, tuple(tuple(words) for words in definitions)
    )


def _check_definitions(kind: str, definitions: list[list[str]], fail: Fail) -> None:
    """RANGE and LIST list their partitions, and the last RANGE one goes up to MAXVALUE and
    a LIST one is DEFAULT: the generator draws any value of a column, and TiDB refuses a row
    that no partition holds."""
    if not kind.startswith(("RANGE", "LIST")):
        return
    if not definitions:
        fail(f"PARTITION BY {kind} needs its partitions listed", 0)
    if kind.startswith("RANGE"):
        last = [word.upper() for word in definitions[-1]]
        bound = last[last.index("THAN") + 1 :] if "THAN" in last else []
        if bound[:1] != ["MAXVALUE"] and bound[:2] != ["(", "MAXVALUE"]:
            fail(
                "the last RANGE partition must be VALUES LESS THAN MAXVALUE: the generator "
                "draws values past any other bound, and TiDB refuses a row no partition holds",
                0,
            )
    elif not any(len(words) > 2 and words[2].upper() == "DEFAULT" for words in definitions):
        fail(
            "PARTITION BY LIST needs a DEFAULT partition: the generator draws values outside "
            "the lists, and TiDB refuses a row no partition holds",
            0,
        )


class _Reader:
    """The clause's tokens: words, quoted texts, single characters."""

    def __init__(self, text: str, fail: Fail) -> None:
        self.text = text
        self.fail = fail
        self.tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
        self.at = 0

    def current(self) -> str:
        """The next token as written ("" at the end)."""
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def peek(self) -> str:
        return self.current().upper()

    def offset(self) -> int:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else len(self.text)

    def word(self) -> str:
        if self.at >= len(self.tokens):
            self.fail("the partition clause ends early", len(self.text))
        self.at += 1
        return self.tokens[self.at - 1][0].upper()

    def accept(self, word: str) -> bool:
        if self.peek() == word:
            self.at += 1
            return True
        return False

    def expect(self, word: str) -> None:
        if not self.accept(word):
            self.fail(
                f"expected {word} in the partition clause, got {self.peek()!r}", self.offset()
            )

    def group(self) -> str:
        """The text inside the parentheses that come next."""
        self.expect("(")
        begin = self.offset()
        depth = 1
        while depth:
            piece = self.word()
            depth += {"(": 1, ")": -1}.get(piece, 0)
        return self.text[begin : self.tokens[self.at - 1][1]]

    def definitions(self) -> list[list[str]]:
        """``(PARTITION p0 ..., PARTITION p1 ...)``: the tokens of each, as written."""
        self.expect("(")
        found: list[list[str]] = [[]]
        depth = 1
        while True:
            piece = self.current()
            self.word()
            if piece == "(":
                depth += 1
            elif piece == ")":
                depth -= 1
                if depth == 0:
                    return [words for words in found if words]
            elif piece == "," and depth == 1:
                found.append([])
                continue
            found[-1].append(piece)


class Unroutable(ValueError):
    """Why a partitioning is played as one logical table."""


def partition_info(part: Partitioning, columns: tuple[str, ...]) -> PartitionInfo:
    """The ``PartitionInfo`` of a checked clause, over ``columns`` (the partitioning columns
    as the table spells them; the primary key for ``KEY()``), with ids 0; Unroutable when the
    router cannot follow it (HASH, RANGE or LIST of an expression)."""
    if part.kind in ("HASH", "RANGE", "LIST"):
        expression = unquoted(part.expression)
        if len(columns) != 1 or expression.lower() != columns[0].lower():
            raise Unroutable(f"PARTITION BY {part.kind} of the expression {part.expression!r}")
    definitions = [_definition(part.kind, words, len(columns)) for words in part.definitions]
    if not definitions:  # HASH / KEY with PARTITIONS n: TiDB names them p0, p1, ...
        definitions = [PartitionDef(f"p{i}") for i in range(part.count)]
    return PartitionInfo(part.kind, columns, tuple(definitions))


def _definition(kind: str, words: tuple[str, ...], width: int) -> PartitionDef:
    """One ``PARTITION name [VALUES LESS THAN (...) | VALUES IN (...) | DEFAULT] ...``."""
    name = unquoted(words[1]) if len(words) > 1 else ""
    upper = [word.upper() for word in words]
    if kind.startswith("RANGE"):
        at = upper.index("THAN") + 1
        if upper[at] == "MAXVALUE":
            return PartitionDef(name, less_than=(None,) * width)
        items, _ = _items(words, at)
        if len(items) != width or any(isinstance(item, list) for item in items):
            raise Unroutable(f"partition {name}: LESS THAN needs {width} values")
        return PartitionDef(name, less_than=tuple(items))
    if kind.startswith("LIST"):
        if len(upper) > 2 and upper[2] == "DEFAULT":
            return PartitionDef(name, default=True)
        items, _ = _items(words, upper.index("IN") + 1)
        tuples = [tuple(item) if isinstance(item, list) else (item,) for item in items]
        if any(len(values) != width for values in tuples):
            raise Unroutable(f"partition {name}: VALUES IN needs tuples of {width} values")
        return PartitionDef(name, values=tuple(tuples))
    return PartitionDef(name)


def _items(words: tuple[str, ...], at: int) -> tuple[list[Any], int]:
    """The literals of the parenthesised list at ``words[at]`` (nested lists for tuples) and
    where it ends; MAXVALUE is None, as NULL is."""
    if at >= len(words) or words[at] != "(":
        raise Unroutable(f"expected a list of values, got {' '.join(words[at : at + 3])!r}")
    items: list[Any] = []
    at += 1
    while at < len(words):
        word = words[at]
        if word == ")":
            return items, at + 1
        if word == ",":
            at += 1
            continue
        if word == "(":
            inner, at = _items(words, at)
            items.append(inner)
            continue
        sign = ""
        if word in ("-", "+") and at + 1 < len(words):
            sign, at = word, at + 1
            word = words[at]
        items.append(_literal(sign, word))
        at += 1
    raise Unroutable("a list of values does not end")


def _literal(sign: str, word: str) -> Any:
    """An integer, a quoted text, NULL or MAXVALUE (None); anything else is Unroutable."""
    if word.upper() in ("NULL", "MAXVALUE"):
        return None
    if word.isdigit():
        return int(sign + word)
    if len(word) > 1 and word[0] == word[-1] and word[0] in "'\"":
        body = word[1:-1].replace(word[0] * 2, word[0])
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
    raise Unroutable(f"the value {sign + word!r} (only integers and quoted texts are routed)")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\x00", "Z": "\x1a", "b": "\b"}


def unquoted(name: str) -> str:
    name = name.strip()
    if len(name) > 1 and name[0] == name[-1] == "`":
        return name[1:-1].replace("``", "`")
    return name
