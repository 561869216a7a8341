"""Payload compression of ``large-message-handle-compression`` (spec 5.4).

TiCDC's ``pkg/compression``: snappy is the **block** format (``snappy.Encode``), lz4 the **frame**
format (``lz4.NewWriter`` defaults). Byte equality with Go's compressors is not promised, so
consumers and tests compare decompressed payloads.
"""

from __future__ import annotations

from collections.abc import Callable

import cramjam

from tisink.codec.errors import CodecError
from tisink.core.errors import ConfigError

_COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "none": lambda data: data,
    "snappy": lambda data: bytes(cramjam.snappy.compress_raw(data)),
    "lz4": lambda data: bytes(cramjam.lz4.compress(data)),
}
_DECOMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "none": lambda data: data,
    "snappy": lambda data: bytes(cramjam.snappy.decompress_raw(data)),
    "lz4": lambda data: bytes(cramjam.lz4.decompress(data)),
}


def compressor(kind: str) -> Callable[[bytes], bytes]:
    """The compress function for ``kind`` ("none", "snappy" or "lz4"), looked up once."""
    try:
        return _COMPRESSORS[kind]
    except KeyError:
        raise ConfigError(f"unknown payload compression {kind!r}") from None


def compress(kind: str, data: bytes) -> bytes:
    return compressor(kind)(data)


def decompress(kind: str, data: bytes) -> bytes:
    """Undo ``compress``; a corrupt payload raises CodecError."""
    try:
        undo = _DECOMPRESSORS[kind]
    except KeyError:
        raise ConfigError(f"unknown payload compression {kind!r}") from None
    try:
        return undo(data)
    except cramjam.DecompressionError as err:
        raise CodecError(f"cannot {kind}-decompress a {len(data)}-byte payload: {err}") from err
