"""Payload compression (spec 5.4): snappy block and lz4 frame, compared after decompression."""

from __future__ import annotations

import cramjam
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.compression import compress, compressor, decompress
from tisink.codec.errors import CodecError
from tisink.core.errors import ConfigError


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(["none", "snappy", "lz4"]), data=st.binary(max_size=4096))
def test_round_trip(kind: str, data: bytes) -> None:
    assert decompress(kind, compress(kind, data)) == data


def test_formats_are_block_snappy_and_frame_lz4() -> None:
    data = b"simple protocol " * 64
    assert compress("none", data) is data
    # The block format decodes with the raw decoder; the framed one would not.
    assert bytes(cramjam.snappy.decompress_raw(compress("snappy", data))) == data
    assert compress("lz4", data)[:4] == b"\x04\x22\x4d\x18"  # LZ4 frame magic number


def test_errors() -> None:
    with pytest.raises(ConfigError, match="zstd"):
        compressor("zstd")
    with pytest.raises(ConfigError, match="zstd"):
        decompress("zstd", b"")
    with pytest.raises(CodecError, match="snappy-decompress a 3-byte payload"):
        decompress("snappy", b"\xff\xff\xff")
