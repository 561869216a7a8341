"""A block of plain capture lines parsed by splitting it at its quotes.

A plain line (as capture and the file sink write it: offset, key, value and an optional
timestamp, in this order, no headers) is ten pieces between quotes, twelve with a timestamp,
two fewer with a null key::

    {  offset  :N,  key  :  K  ,  value  :  V  }\\n{            (no timestamp)
    {  offset  :N,  key  :  K  ,  value  :  V  ,  timestamp  :T}\\n{
    {  offset  :N,  key  :null,  value  :  V  }\\n{            (a null key)

``bytes.split`` finds the quotes in one pass, where a regular expression tested every byte of
the base64 (about 0.3 s of CPU per 100k demo lines, a third of a reader's). Each position is
then checked for the whole block at once: the constant pieces by ``list.count`` over a slice,
the offsets and timestamps by one regular expression over their joined pieces, keys and
values by pybase64's strict decode, called by ``map`` (no Python frame a record; ``validate``
by position, which as a keyword costs half a microsecond a call in argument parsing). A block
mixing null and quoted keys is split with its null keys written as ``"!"`` (never base64).
Anything else (headers, other spacing, a carriage return, a tombstone, an empty line, stamped
and unstamped lines in one block) makes the block not plain; its caller then reads it line by
line.
"""

from __future__ import annotations

import binascii
import re
from itertools import repeat
from operator import add
from typing import NamedTuple

from pybase64 import b64decode

_QUOTED = ((1, b"offset"), (3, b"key"), (4, b":"), (6, b","), (7, b"value"), (8, b":"))
_NULL = ((1, b"offset"), (3, b"key"), (4, b":null,"), (5, b"value"), (6, b":"))
_NULL_KEY, _QUOTED_KEY, _NULL_MARK = b'"key":null,', b'"key":"', b'"key":"!",'
_NUMBER = rb"(?:0|[1-9][0-9]*)"
_OFFSETS = re.compile(rb"(?::%s,)*" % _NUMBER)
_STAMP_TAILS = re.compile(rb"(?::%s\}\n\{)*:%s\}\n" % (_NUMBER, _NUMBER))
_DIGITS = re.compile(rb"[0-9]+")


class PlainBlock(NamedTuple):
    """A plain block's records, with what the chunks need of each."""

    offsets: list[bytes]
    """Each line's offset piece, ``:N,``."""
    records: list[tuple[bytes | None, bytes]]
    stamps: list[int | None]
    sizes: list[int]
    """Key and value bytes of each record."""


def plain_block(block: bytes) -> PlainBlock | None:
    """The records of a block of whole lines when every line of it is plain; None
    otherwise."""
    if _NULL_KEY not in block:
        return _parse(block.split(b'"'), _QUOTED, 5, 9)
    if _QUOTED_KEY not in block:
        return _parse(block.split(b'"'), _NULL, None, 7)
    marked = block.replace(_NULL_KEY, _NULL_MARK)  # each a byte shorter
    return _parse(marked.split(b'"'), _QUOTED, 5, 9, nulls=len(block) - len(marked))


def _parse(
    pieces: list[bytes],
    constants: tuple[tuple[int, bytes], ...],
    key: int | None,
    value: int,
    nulls: int = 0,
) -> PlainBlock | None:
    """The block of ``pieces`` when every line has the layout of ``constants`` (stamped when
    a comma follows the value); ``nulls``: that many null keys are written ``"!"``."""
    stride = value + 1
    stamped = len(pieces) > stride and pieces[stride] == b","
    if stamped:
        constants = (*constants, (stride, b","), (stride + 1, b"timestamp"))
        stride += 2
    count = len(pieces) - 1
    if count < stride or count % stride or pieces[0] != b"{":
        return None
    lines = count // stride
    for at, text in constants:
        if pieces[at::stride].count(text) != lines:
            return None
    offsets = pieces[2::stride]
    stamps = _stamps(pieces[stride::stride], stamped)
    if stamps is None or _OFFSETS.fullmatch(b"".join(offsets)) is None:
        return None
    try:
        values = list(map(b64decode, pieces[value::stride], repeat(None), repeat(True)))
        sizes = list(map(len, values))
        if key is None:
            return PlainBlock(offsets, list(zip(repeat(None), values)), stamps, sizes)
        texts = pieces[key::stride]
        if nulls:
            if texts.count(b"!") != nulls:  # a literal "!" key must stay an error
                return None
            keys: list[bytes | None] = [
                None if text == b"!" else b64decode(text, None, True) for text in texts
            ]
            sizes = [size + len(k or b"") for k, size in zip(keys, sizes, strict=True)]
            return PlainBlock(offsets, list(zip(keys, values, strict=True)), stamps, sizes)
        quoted = list(map(b64decode, texts, repeat(None), repeat(True)))
    except binascii.Error:
        return None
    sizes = list(map(add, map(len, quoted), sizes))
    return PlainBlock(offsets, list(zip(quoted, values, strict=True)), stamps, sizes)


def _stamps(tails: list[bytes], stamped: bool) -> list[int | None] | None:
    """The lines' timestamps from the pieces that end them; None when a line ends otherwise
    than plainly."""
    if not stamped:
        if tails[-1] != b"}\n" or tails.count(b"}\n{") != len(tails) - 1:
            return None
        return [None] * len(tails)
    joined = b"".join(tails)
    if _STAMP_TAILS.fullmatch(joined) is None:
        return None
    return list(map(int, _DIGITS.findall(joined)))
