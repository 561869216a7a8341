"""Avro-safe names and ENUM/SET option text, as TiCDC's ``common`` helpers write them.

Shared by the Debezium and Avro protocols: both name Avro records and fields after databases,
tables and columns (``common.SanitizeName``), and both list a column's members in an
``allowed`` parameter (``common.EscapeEnumAndSetOptions``).
"""

from __future__ import annotations

import logging
from functools import cache

log = logging.getLogger(__name__)

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _LETTERS | frozenset("0123456789")


@cache
def sanitize_name(name: str) -> str:
    """Avro-safe name (letters, digits, ``_``; a bad first character becomes ``_``, a leading
    digit is kept after it; one ``_`` per other bad character); TiCDC logs a warning when it had
    to change something."""
    out = []
    for position, char in enumerate(name):
        if position == 0 and char not in _LETTERS:
            out.append("_" + char if char.isascii() and char.isdigit() else "_")
        elif char not in _NAME_CHARS:
            out.append("_")
        else:
            out.append(char)
    sanitized = "".join(out)
    if sanitized != name:
        log.warning("name %r is not safe for a schema name, using %r", name, sanitized)
    return sanitized


def escape_enum_option(option: str) -> str:
    """``common.EscapeEnumAndSetOptions``: ``,`` escaped, quote escapes normalised."""
    return option.replace(",", "\\,").replace("\\'", "'").replace("''", "'")
