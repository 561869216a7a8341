"""Inline fast ways of the generated JSON row writers (Simple JSON's ``simple/json_rows``,
canal-json's ``canal/codegen``): both write a DECIMAL as its digits, a DOUBLE and a FLOAT as
Go's ``strconv.FormatFloat(v, 'f', -1, 64 / 32)``.

``number_text`` gives the source of a column's text from its feed value in ``v{i}``: the common
value inline, anything else (NULL, a bad value) through ``slow``, the converter's call, which
gives the exact text or the error. The source reads ``_type`` (``type``) and ``_dumps`` (an
``orjson.dumps``) and ``HELPERS`` from the generated function's names.
"""

from __future__ import annotations

from typing import Any

from tisink.codec.values import float32_text, float64_text
from tisink.model.mysqltypes import TypeFamily

HELPERS: dict[str, Any] = {"_f32": float32_text, "_f64": float64_text}


def number_text(i: int, family: TypeFamily, slow: str) -> str | None:
    """Source of the text of DECIMAL, DOUBLE or FLOAT column ``i``; None for other families."""
    v = f"v{i}"
    if family is TypeFamily.DECIMAL:
        # ASCII digits with at most one inner dot pass as given; signs and the rest meet the
        # converter's regex. ``strip`` leaves "." or "" exactly for those shapes.
        s = f"s{i}"
        digits = f"({s} := {v}.strip('0123456789')) == '.' and {v}[0] != '.' and {v}[-1] != '.'"
        return f"{v} if _type({v}) is str and ({digits} or not {s} and {v}) else {slow}"
    if family is TypeFamily.DOUBLE:
        # float64_text inline: orjson writes the same shortest digits as repr, and already in
        # Go's 'f' form apart from a trailing ".0", unless it needs an exponent (101 is "e") or
        # the value is not finite ("null", 110 is "n"); those take float64_text.
        t = f"t{i}"
        special = f"_f64({v}) if 101 in ({t} := _dumps({v})) or 110 in {t}"
        return (
            f"({special} else {t}.decode().removesuffix('.0')) if _type({v}) is float else {slow}"
        )
    if family is TypeFamily.FLOAT:
        return f"_f32({v}) if _type({v}) is float else {slow}"
    return None
