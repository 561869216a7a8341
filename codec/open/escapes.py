"""json-iterator's ``\\u0008`` / ``\\u000c`` where orjson writes ``\\b`` / ``\\f``.

Open Protocol values often hold Go-quoted bytes, whose ``\\b`` text orjson writes as the
harmless ``\\\\b``; a scan that only looks at each ``\\b`` / ``\\f`` and counts the backslashes
before it tells a real short escape (an even count) from that text, and costs far less than a
look-behind regex over a large value.
"""

from __future__ import annotations

import re

_CANDIDATE = re.compile(rb"\\[bf]")
_LONG = {98: b"\\u0008", 102: b"\\u000c"}


def long_escapes(out: bytes) -> bytes:
    """``out`` with every real ``\\b`` / ``\\f`` escape written json-iterator's way."""
    if b"\\b" not in out and b"\\f" not in out:
        return out
    parts: list[bytes] = []
    last = 0
    for match in _CANDIDATE.finditer(out):
        start = j = match.start()
        while j and out[j - 1] == 92:  # backslashes before it
            j -= 1
        if (start - j) % 2 == 0:
            parts += (out[last:start], _LONG[out[start + 1]])
            last = start + 2
    if not parts:
        return out
    parts.append(out[last:])
    return b"".join(parts)
