"""CSV field text as TiCDC's ``csvMessage.formatValue`` writes it (``csv_message.go``).

A Go string is quoted (``quote`` doubled inside) when a quote character is configured, else
escaped (``\\r``, ``\\n``, backslash and each character of the delimiter get a backslash); any
other value (integers, floats, booleans) is ``fmt``'s ``%v`` text, never quoted. Floats follow
``%v``: Go's ``%g`` with the shortest digits, an exponent when it is below -4 or at least 6.
"""

from __future__ import annotations

_GO_SPECIALS = ("+Inf", "-Inf", "NaN")


def quoted(value: str, quote: str) -> str:
    """RFC 4180 quoting: the quote character around, doubled inside."""
    return quote + value.replace(quote, quote + quote) + quote


def escaped(value: str, delimiter: str) -> str:
    """``formatWithEscapes``: CR and LF as ``\\r`` ``\\n``; backslash and the delimiter (each
    of its characters) behind a backslash."""
    if not any(ch in value for ch in ("\r", "\n", "\\", delimiter)):
        return value
    out: list[str] = []
    i, n, width = 0, len(value), len(delimiter)
    while i < n:
        if value.startswith(delimiter, i):
            out.extend("\\" + ch for ch in delimiter)
            i += width
            continue
        ch = value[i]
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def go_g_text(f_text: str) -> str:
    """Go's ``%v`` of a float from its shortest ``'f'`` text (``float64_text`` /
    ``float32_text``): the same digits, in exponent form when the exponent is < -4 or >= 6."""
    if f_text in _GO_SPECIALS:
        return f_text
    negative = f_text.startswith("-")
    body = f_text[1:] if negative else f_text
    whole, _, fraction = body.partition(".")
    raw = whole + fraction
    significant = raw.lstrip("0")
    sign = "-" if negative else ""
    if not significant:
        return sign + "0"
    point = len(whole) - (len(raw) - len(significant))
    digits = significant.rstrip("0")
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp_sign = "-" if exponent < 0 else "+"
        return f"{sign}{mantissa}e{exp_sign}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if len(digits) <= point:
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
