"""The feed-value shape checks every protocol's converters start from (spec/feed-format.md
"Values"): a number, a string, a decimal text. They raise TypeError/ValueError with a short
reason; the renderer names the table and column."""

from __future__ import annotations

import re
from typing import Any

DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
"""A feed DECIMAL: digits with an optional sign and fraction, as TiDB prints it."""


def as_number(v: Any) -> float:
    """A FLOAT/DOUBLE feed value (an int is accepted) as a Python float."""
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    raise TypeError(f"want a number, got {type(v).__name__}")


def as_text(v: Any) -> str:
    """A string feed value."""
    if type(v) is not str:
        raise TypeError(f"want a string, got {type(v).__name__}")
    return v


def decimal_text(v: Any) -> str:
    """A DECIMAL feed value, its text unchanged."""
    if type(v) is str and DECIMAL.fullmatch(v):
        return v
    raise ValueError(f"want a decimal string like '-12.50', got {v!r}")
