"""Tencent Cloud DTS's rebuilt Avro ``Record`` (``protocol=tencent-dts&encoding-format=avro``):
its field values, control records, generic datums and compiled record writer. The machinery
both DTS Avro formats share (value mapping, wire, encoder, decoder) is ``codec.dts.avro``."""
