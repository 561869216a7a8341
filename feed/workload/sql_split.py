"""A SQL dump cut into statements, as the ``mysql`` client cuts it, each with its file line.

sqlglot parses one statement at a time, so a statement it cannot parse (a procedure body, a
partition clause) never takes the rest of the file with it, and INSERTs are never parsed. The
cut follows the client: quotes and comments hide the delimiter, ``DELIMITER x`` changes it,
and a ``/*!NNNNN ... */`` comment is code (MySQL runs it; mysqldump writes its partition
clauses and triggers that way). Other comments, TiDB's ``/*T! ... */`` included, are blanked
with their newlines kept, so a line inside a statement is still the file's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_QUOTED = r"'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|`[^`]*`?"
_COMMENT = r"--(?=\s|$)[^\n]*|#[^\n]*|/\*.*?(?:\*/|\Z)"
_SPACE = re.compile(r"\s*")
_DELIMITER = re.compile(r"DELIMITER[ \t]+(\S+)[^\n]*", re.I)
_VERSION = re.compile(r"/\*!\d*")
_KEPT_WORDS = ("CREATE", "USE")
"""Statements whose text is kept; the others (INSERT, SET, DROP...) are only stepped over."""


@dataclass(frozen=True)
class Statement:
    text: str
    """The code, from its first character, comments blanked; ``""`` for a statement that
    starts with none of ``_KEPT_WORDS``."""
    line: int
    """The file line of the statement's first character."""

    def file_line(self, line: int | None) -> int:
        """The file line of line ``line`` of ``text`` (1-based, as sqlglot counts)."""
        return self.line + (line or 1) - 1


def split_statements(text: str) -> Iterator[Statement]:
    """The statements of ``text`` in order, empty ones left out."""
    delimiter = ";"
    token = _tokens(delimiter)
    pos, end = 0, len(text)
    line, counted = 1, 0
    parts: list[str] = []
    start: int | None = None
    kept = True
    while pos < end:
        if start is None:
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            changed = _DELIMITER.match(text, pos)
            if changed is not None:
                delimiter = changed.group(1)
                token = _tokens(delimiter)
                pos = changed.end()
                continue
        found = token.search(text, pos)
        stop = end if found is None else found.start()
        code = text[pos:stop]
        if start is None and code.strip():
            start = pos + len(code) - len(code.lstrip())
            line += text.count("\n", counted, start)
            counted = start
            kept = text[start : start + 6].upper().startswith(_KEPT_WORDS)
            code = code.lstrip()
        if start is not None and kept:
            parts.append(code)
        if found is None:
            break
        pos = found.end()
        piece = found.group()
        if found.lastgroup == "end":
            if start is not None:
                yield Statement("".join(parts) if kept else "", line)
            parts, start = [], None
        elif piece.startswith("/*!"):
            body = _VERSION.sub("", piece, count=1).removesuffix("*/")
            if start is None and body.strip():
                start = found.start()
                line += text.count("\n", counted, start)
                counted = start
                kept = body.lstrip()[:6].upper().startswith(_KEPT_WORDS)
                body = body.lstrip()
            if start is not None and kept:
                parts.append(f" {body} ")
        elif piece[0] in "'\"`":
            if start is None:  # a statement that starts with a quote: not one kept
                start, kept = found.start(), False
                line += text.count("\n", counted, start)
                counted = start
            elif kept:
                parts.append(piece)
        elif start is not None and kept:
            parts.append(" " + "\n" * piece.count("\n"))
    if start is not None:
        yield Statement("".join(parts) if kept else "", line)


def _tokens(delimiter: str) -> re.Pattern[str]:
    """Quoted text, comments, or the delimiter (group ``end``)."""
    return re.compile(f"{_QUOTED}|{_COMMENT}|(?P<end>{re.escape(delimiter)})", re.S)
