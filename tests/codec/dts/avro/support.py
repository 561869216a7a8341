"""Helpers of the DTS Avro tests: encoders of either format and an independent reader.

``decode`` parses the shipped ``.avsc`` itself with fastavro (the verbatim Alibaba schema is
checked equal to tests/data/formats/alibaba-dts in ``test_schemas``), so it shares nothing with the
encoder but the file.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from io import BytesIO
from typing import Any

import fastavro

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.avro.encoder import DTSAvroEncoder
from tisink.codec.dts.avro.formats import new_dts_avro_encoder
from tisink.codec.dts.options import DTSOptions
from tisink.core.clock import FixedClock

FORMATS = ("alibaba", "tencent")
PROTOCOLS = {"alibaba": ("alibaba-dts", "avro"), "tencent": ("tencent-dts", "avro")}


def config(fmt: str, **settings: Any) -> EncoderConfig:
    protocol, encoding_format = PROTOCOLS[fmt]
    return EncoderConfig(protocol=protocol, encoding_format=encoding_format, **settings)


def encoder(
    fmt: str,
    now_ms: int = 0,
    *,
    generic: bool = False,
    interval_s: int = 10,
    clock: FixedClock | None = None,
    **settings: Any,
) -> DTSAvroEncoder:
    options = DTSOptions(checkpoint_interval_in_sec=interval_s)
    return new_dts_avro_encoder(
        fmt, config(fmt, options=options, **settings), clock or FixedClock(now_ms), generic=generic
    )


@cache
def schema(fmt: str) -> Any:
    """The ``Record`` of the shipped file, parsed here with its named types."""
    text = (resources.files("tisink.codec.dts.avro") / "avsc" / fmt / "Record.avsc").read_text()
    named: dict[str, Any] = {}
    parsed = None
    for item in json.loads(text):
        parsed = fastavro.parse_schema(item, named_schemas=named)
    return parsed


def decode(fmt: str, value: bytes) -> dict[str, Any]:
    """One bare datum; every byte must belong to it."""
    buffer = BytesIO(value)
    record = fastavro.schemaless_reader(buffer, schema(fmt))
    assert buffer.tell() == len(value), "bytes left after the record"
    assert isinstance(record, dict)
    return record
