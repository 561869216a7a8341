"""TiDB's table-filter syntax (``tidb:pkg/util/table-filter``), as dispatch-rule matchers use it.

A matcher is a list of ``schema.table`` patterns. Each pattern side is a literal name, a wildcard
(``*``, ``?``, ``[a-z]``, ``[!a-z]``, ``\\`` escapes), a quoted name (``"..."`` or backquotes,
with the quote doubled inside), or a ``/regexp/``. A leading ``!`` makes the pattern exclude;
``#`` starts a comment. The **last** pattern that matches a table decides, as in TiDB; a table no
pattern matches is not matched. Case-insensitive filters lower-case literals and names and add
IGNORECASE to regexps, like TiDB's ``CaseInsensitive``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tisink.eventsink.router.errors import FilterSyntaxError

_REGEXP = re.compile(r"/(?:\\.|[^/])+/", re.S)
_DOUBLE_QUOTED = re.compile(r'"(?:""|[^"])+"', re.S)
_BACKQUOTED = re.compile(r"`(?:``|[^`])+`", re.S)
_CHAR_CLASS = re.compile(r"\[!?(?:\\[^0-9a-zA-Z]|[^\\\]])+\]", re.S)
# Characters that Python's ``re`` treats specially (or warns about) inside a set, but Go's
# RE2 takes literally; escaping them keeps the class meaning identical.
_CLASS_ESCAPES = {"[": r"\[", "&": r"\&", "~": r"\~", "|": r"\|"}


class _Literal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def match(self, name: str) -> bool:
        return name == self.name

    def lowered(self) -> _Literal:
        return _Literal(self.name.lower())


class _Everything:
    """The ``*`` pattern: TiDB special-cases it so it matches without a regexp."""

    __slots__ = ()

    def match(self, name: str) -> bool:
        return True

    def lowered(self) -> _Everything:
        return self


class _Regexp:
    """A compiled pattern; wildcards must match the whole name, ``/regexp/`` anywhere in it."""

    __slots__ = ("_match", "pattern", "whole")

    def __init__(self, pattern: re.Pattern[str], whole: bool) -> None:
        self.pattern = pattern
        self.whole = whole
        self._match = pattern.fullmatch if whole else pattern.search

    def match(self, name: str) -> bool:
        return self._match(name) is not None

    def lowered(self) -> _Regexp:
        return _Regexp(re.compile(self.pattern.pattern, self.pattern.flags | re.I), self.whole)


_NameMatcher = _Literal | _Everything | _Regexp


@dataclass(frozen=True, slots=True)
class _TableRule:
    schema: _NameMatcher
    table: _NameMatcher
    positive: bool


class TableFilter:
    """A parsed matcher list; ``match_table`` answers whether a table falls under it."""

    __slots__ = ("_rules", "case_sensitive", "patterns")

    def __init__(self, patterns: Sequence[str], *, case_sensitive: bool = False) -> None:
        self.patterns = tuple(patterns)
        self.case_sensitive = case_sensitive
        rules = [r for r in (_parse_line(p) for p in self.patterns) if r is not None]
        if not case_sensitive:
            rules = [_TableRule(r.schema.lowered(), r.table.lowered(), r.positive) for r in rules]
        rules.reverse()
        self._rules = tuple(rules)

    def match_table(self, schema: str, table: str) -> bool:
        if not self.case_sensitive:
            schema, table = schema.lower(), table.lower()
        for rule in self._rules:
            if rule.schema.match(schema) and rule.table.match(table):
                return rule.positive
        return False

    def __repr__(self) -> str:
        return f"TableFilter({list(self.patterns)!r}, case_sensitive={self.case_sensitive})"


def _parse_line(line: str) -> _TableRule | None:
    text = line.strip(" \t")
    if not text or text[0] == "#":
        return None
    positive = True
    if text[0] == "!":
        positive = False
        text = text[1:]
    elif text[0] == "@":
        raise FilterSyntaxError(f"pattern {line!r}: filter files (@path) are not supported here")
    schema, rest = _parse_pattern(text, line)
    if not rest:
        raise FilterSyntaxError(f"pattern {line!r}: wrong table pattern")
    if rest[0] != ".":
        raise FilterSyntaxError(
            f"pattern {line!r}: syntax error: missing '.' between schema and table patterns"
        )
    table, rest = _parse_pattern(rest[1:], line)
    if rest:
        raise FilterSyntaxError(f"pattern {line!r}: syntax error: stray characters after table")
    return _TableRule(schema, table, positive)


def _parse_pattern(text: str, line: str) -> tuple[_NameMatcher, str]:
    """One side of ``schema.table``; returns the matcher and the text after it."""
    if not text:
        raise FilterSyntaxError(f"pattern {line!r}: syntax error: missing pattern")
    first = text[0]
    if first == "/":
        found = _REGEXP.match(text)
        if found is None:
            raise FilterSyntaxError(f"pattern {line!r}: syntax error: incomplete regexp")
        return _compile(text[1 : found.end() - 1], line, whole=False), text[found.end() :]
    if first in '"`':
        found = (_DOUBLE_QUOTED if first == '"' else _BACKQUOTED).match(text)
        if found is None:
            raise FilterSyntaxError(f"pattern {line!r}: syntax error: incomplete quoted name")
        name = text[1 : found.end() - 1].replace(first * 2, first)
        return _Literal(name), text[found.end() :]
    return _parse_wildcard(text, line)


def _parse_wildcard(text: str, line: str) -> tuple[_NameMatcher, str]:
    literal: list[str] = []
    regexp: list[str] = []
    is_literal = True
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i == len(text) - 1:
                raise FilterSyntaxError(f"pattern {line!r}: cannot place \\ at end of line")
            escaped = text[i + 1]
            if escaped.isascii() and escaped.isalnum():
                raise FilterSyntaxError(
                    f"pattern {line!r}: cannot escape a letter or number (\\{escaped})"
                )
            literal.append(escaped)
            regexp.append(re.escape(escaped))
            i += 2
        elif c == ".":
            break
        elif c == "*":
            is_literal = False
            regexp.append(".*")
            i += 1
        elif c == "?":
            is_literal = False
            regexp.append(".")
            i += 1
        elif c == "[":
            is_literal = False
            found = _CHAR_CLASS.match(text, i)
            if found is None:
                raise FilterSyntaxError(f"pattern {line!r}: failed to parse character class")
            regexp.append(_translate_class(text[i + 1 : found.end() - 1]))
            i = found.end()
        elif c in "$_" or (c.isascii() and c.isalnum()) or not c.isascii():
            literal.append(c)
            regexp.append(re.escape(c))
            i += 1
        else:
            raise FilterSyntaxError(f"pattern {line!r}: unexpected special character {c!r}")
    rest = text[i:]
    if is_literal:
        return _Literal("".join(literal)), rest
    body = "".join(regexp)
    if body == ".*":
        return _Everything(), rest
    return _compile(body, line, whole=True), rest


def _translate_class(inner: str) -> str:
    """A glob class body to a regexp class: ``!`` negates, a leading ``^`` is literal."""
    prefix = "["
    if inner.startswith("!"):
        prefix, inner = "[^", inner[1:]
    elif inner.startswith("^"):
        prefix, inner = "[\\^", inner[1:]
    out: list[str] = []
    i = 0
    while i < len(inner):
        if inner[i] == "\\":
            out.append(inner[i : i + 2])
            i += 2
            continue
        out.append(_CLASS_ESCAPES.get(inner[i], inner[i]))
        i += 1
    return prefix + "".join(out) + "]"


def _compile(pattern: str, line: str, *, whole: bool) -> _Regexp:
    """Wildcards let ``*``/``?`` cross newlines (TiDB adds ``(?s)``); ``/regexp/`` is as written."""
    try:
        return _Regexp(re.compile(pattern, re.S if whole else 0), whole)
    except re.error as err:
        raise FilterSyntaxError(f"pattern {line!r}: invalid pattern: {err}") from err
