"""JSON bytes as TiCDC's canal-json encoder writes them, from orjson output.

Rows go through easyjson's ``jwriter`` and DDL/WATERMARK messages through goccy/go-json's
``Marshal``; both escape like Go's ``encoding/json`` before Go 1.22: HTML-safe (``<`` ``>``
``&`` as ``\\u003c`` ``\\u003e`` ``\\u0026``, U+2028/U+2029 escaped), ``"`` ``\\`` ``\\n``
``\\r`` ``\\t`` short, every other control character as ``\\u00xx``, ``\\b`` and ``\\f`` too.
orjson writes ``\\b`` and ``\\f`` short and nothing HTML-safe, so ``fix`` rewrites those bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orjson import Fragment

from tisink.codec.gojson import html_escape, repaired_dumps

CONTROLS = ("\x08", "\x0c")
"""Backspace and form feed: orjson writes ``\\b``/``\\f``, Go ``\\u0008``/``\\u000c``. Row
renderers test their texts for them and escape only those texts (``text_fragment``): finding the
two-byte escape in a dumped map costs far more than a memchr per text. The HTML-safe escapes are
done on the whole map (``gojson.html_escape``'s, behind a memchr each), U+2028/U+2029 in the
string texts that hold them (``separated``) and on the map for any other (``separators``)."""


def fix(out: bytes) -> bytes:
    """orjson bytes with Go's HTML-safe escapes and ``\\u0008``/``\\u000c`` for ``\\b``/``\\f``
    (only where the backslash starts an escape, not where it ends an escaped backslash)."""
    return fix_controls(html_escape(out))


_BACKSPACE_MARKS = "~^|`{}_@!#$%'()*+"
_FORM_FEED_MARKS = ",-./:;=?[]GHIJKLMNOPQRSTUVWXYZghijklmopqsvwxyz"
"""ASCII characters to stand in for a backspace or a form feed while orjson dumps a text: orjson
writes each as itself, none occurs in an escape it writes (``\\\\``, ``\\"``, ``\\b``,
``\\f``, ``\\n``, ``\\r``, ``\\t``, ``\\u00xx`` in lowercase hex) and none is HTML-safe-escaped
(``<>&``). A mark absent from the text is, in the dumped bytes, exactly where its control was,
so a one-byte replace (a memchr) writes Go's escape; the two sets are disjoint, so the two marks
differ. Finding orjson's two-byte ``\\b`` instead searches through every other escape of the
text (binary values are dense with them) and is not exact after an escaped backslash."""
FIRST_MARKS = (_BACKSPACE_MARKS[0], _FORM_FEED_MARKS[0])
"""The mark of each control that the generated renderers try inline (``codegen._text``) for a
text holding only that control, before ``text_fragment``'s search through the others."""
GO_ESCAPES = (b"\\u0008", b"\\u000c")
"""Go's escapes of ``CONTROLS``."""


def text_fragment(text: str, dumps: Callable[[Any], bytes]) -> Fragment:
    """A text holding a backspace or form feed, dumped with Go's escapes for them as a Fragment
    of its map (``<>&`` and U+2028/U+2029 are left to the map): ``_control_escaped``."""
    return Fragment(_control_escaped(text, dumps))


def _control_escaped(text: str, dumps: Callable[[Any], bytes]) -> bytes:
    """The dumped bytes of a text holding a backspace or form feed, with Go's escapes for them.
    Each control present is swapped for a mark absent from the text (``_BACKSPACE_MARKS``,
    ``_FORM_FEED_MARKS``); a text holding every mark of a set takes ``_placeheld``.
    Straight-line code: binary values take this path often (a random byte is one of the two 1
    time in 128)."""
    backspace = ""
    marked = text
    if "\x08" in text:
        for backspace in _BACKSPACE_MARKS:
            if backspace not in text:
                break
        else:
            return _placeheld(text, dumps)
        marked = text.replace("\x08", backspace)
        if "\x0c" not in text:
            return dumps(marked).replace(backspace.encode(), b"\\u0008")
    for form_feed in _FORM_FEED_MARKS:
        if form_feed not in text:
            break
    else:
        return _placeheld(text, dumps)
    out = dumps(marked.replace("\x0c", form_feed)).replace(form_feed.encode(), b"\\u000c")
    return out.replace(backspace.encode(), b"\\u0008") if backspace else out


_LINE_SEPARATOR = "\u2028".encode()
_PARAGRAPH_SEPARATOR = "\u2029".encode()
SEPARATORS = ("\u2028", "\u2029")
"""Line and paragraph separator, which Go escapes and orjson does not: row renderers test
string texts for them (``separated``); the map's test for their lead byte stays, for the rest."""
SEPARATOR_ESCAPES = (b"\\u2028", b"\\u2029")
"""Go's escapes of ``SEPARATORS``."""


def separated(text: str, dumps: Callable[[Any], bytes]) -> Fragment:
    """A text holding U+2028 or U+2029, dumped with Go's escapes for them (and for a backspace
    or form feed) as a Fragment of its map (``<>&`` are left to the map). Escaping them here,
    in the text's own bytes, leaves the map without them: their three-byte search and replace
    over a whole map costs more than this whole call."""
    controls = "\x08" in text or "\x0c" in text
    out = _control_escaped(text, dumps) if controls else dumps(text)
    if "\u2028" in text:
        out = out.replace(_LINE_SEPARATOR, SEPARATOR_ESCAPES[0])
    if "\u2029" in text:
        out = out.replace(_PARAGRAPH_SEPARATOR, SEPARATOR_ESCAPES[1])
    return Fragment(out)


def go_text(text: str, dumps: Callable[[Any], bytes]) -> str | Fragment:
    """``text``, or its ``text_fragment`` when it holds a backspace or form feed."""
    if "\x08" in text or "\x0c" in text:
        return text_fragment(text, dumps)
    return text


_PLACEHOLDERS = ("\ue008", "\ue00c")
"""Private-use characters standing in for backspace and form feed when a text holds every mark:
their UTF-8 (EE 80 88 / EE 80 8C) is found afterwards without mistaking an escaped backslash
followed by ``b`` or ``f`` for an escape."""
_PLACEHELD = ("\ue008".encode(), "\ue00c".encode())


def _placeheld(text: str, dumps: Callable[[Any], bytes]) -> bytes:
    backspace, form_feed = _PLACEHOLDERS
    if backspace in text or form_feed in text:  # the placeholders themselves: the exact way
        return fix_controls(dumps(text))
    out = dumps(text.replace("\x08", backspace).replace("\x0c", form_feed))
    return out.replace(_PLACEHELD[0], b"\\u0008").replace(_PLACEHELD[1], b"\\u000c")


def fix_controls(out: bytes) -> bytes:
    """``\\u0008``/``\\u000c`` for orjson's ``\\b``/``\\f`` escapes."""
    if b"\\b" in out or b"\\f" in out:
        # Escapes read left to right and only ``\\`` has a backslash second, so splitting at
        # each ``\\`` leaves every other backslash the start of an escape.
        parts = out.split(b"\\\\")
        for i, part in enumerate(parts):
            if b"\\b" in part or b"\\f" in part:
                parts[i] = part.replace(b"\\b", b"\\u0008").replace(b"\\f", b"\\u000c")
        out = b"\\\\".join(parts)
    return out


def separators(out: bytes) -> bytes:
    """Go's ``\\u2028``/``\\u2029`` for U+2028/U+2029 in orjson bytes: the last step of
    ``html_escape``, for the generated writers that do the ``<>&`` ones inline."""
    line, paragraph = SEPARATOR_ESCAPES
    return out.replace(_LINE_SEPARATOR, line).replace(_PARAGRAPH_SEPARATOR, paragraph)


def dumps(value: Any) -> bytes:
    """Canal-json bytes of dicts (insertion order), lists, strings, ints, bools and None. A lone
    surrogate, which no Go string holds, becomes U+FFFD."""
    return fix(repaired_dumps(value))
