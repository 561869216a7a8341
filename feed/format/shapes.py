"""Digit shapes: the fast image check's test of fixed-format strings without a regex.

A value's shape is its UTF-8 bytes with every ASCII digit made ``0`` (``"-12.50"`` has the
shape ``b"-00.00"``); ``bytes.translate`` and a set lookup find it in C, at a fraction of
what Python's regex engine spends on the same characters. A shape fixes where the digits and
the separators are, nothing more: the ranges (month, hour, ...) are the caller's to test.
"""

from __future__ import annotations

ZEROS = bytes.maketrans(b"123456789", b"000000000")
"""The table of ``bytes.translate`` that makes a value its shape."""
DATE = b"0000-00-00"
DATETIME = DATE + b" 00:00:00"


def fractions(digits: int) -> list[bytes]:
    """No fraction, or a point and 1 to ``digits`` digits."""
    return [b""] + [b"." + b"0" * count for count in range(1, digits + 1)]


def datetime_shapes(fsp: int) -> frozenset[bytes]:
    """``YYYY-MM-DD HH:MM:SS`` with at most ``fsp`` fraction digits."""
    return frozenset(DATETIME + fraction for fraction in fractions(fsp))


def decimal_shapes(whole: int, scale: int, unsigned: bool) -> frozenset[bytes]:
    """1 to ``whole`` integer digits and at most ``scale`` fraction digits, with a minus
    sign unless ``unsigned``: some 2 * whole * (scale + 1) shapes, 2,170 at most (65, 30)."""
    signs = (b"",) if unsigned else (b"", b"-")
    return frozenset(
        sign + b"0" * count + fraction
        for sign in signs
        for count in range(1, whole + 1)
        for fraction in fractions(scale)
    )
