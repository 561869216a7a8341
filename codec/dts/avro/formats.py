"""The encoders of the two DTS Avro formats, specialised or generic, by format name.

``generic`` swaps the compiled byte writer for fastavro on generic datums: same records, same
bytes (tests prove it), much slower; the tests and the benchmark use it as the reference.
"""

from __future__ import annotations

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.alibaba.datum import AlibabaDatums
from tisink.codec.dts.alibaba.record import AlibabaRecordWriter
from tisink.codec.dts.avro.encoder import DTSAvroEncoder, RecordWriter
from tisink.codec.dts.avro.generic import GenericRecordWriter
from tisink.codec.dts.avro.schemas import FORMATS
from tisink.codec.dts.tencent.avro.datum import TencentDatums
from tisink.codec.dts.tencent.avro.record import TencentRecordWriter
from tisink.core.clock import Clock


def record_writer(fmt: str, *, generic: bool = False) -> RecordWriter:
    """The ``RecordWriter`` of ``fmt`` ("alibaba" or "tencent")."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown DTS Avro format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if generic:
        datums = AlibabaDatums() if fmt == "alibaba" else TencentDatums()
        return GenericRecordWriter(fmt, datums)
    return AlibabaRecordWriter() if fmt == "alibaba" else TencentRecordWriter()


def new_dts_avro_encoder(
    fmt: str,
    config: EncoderConfig,
    clock: Clock,
    *,
    generic: bool = False,
) -> DTSAvroEncoder:
    """A ``RowEventEncoder`` writing ``fmt`` records."""
    return DTSAvroEncoder(config, clock, record_writer(fmt, generic=generic))
