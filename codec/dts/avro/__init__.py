"""DTS Avro: Alibaba's ``Record`` (``protocol=alibaba-dts``) and Tencent's rebuilt ``Record``
(``protocol=tencent-dts&encoding-format=avro``), one bare Avro datum per Kafka value.

This package is what both share: the MySQL type -> value record mapping (``mapping``), the
wire helpers, the compiled row images, one encoder shape (``encoder``), the decoder for verify
and the two ``Record.avsc`` files. Each format's own record writer (compiled per table version,
proven equal to fastavro on its generic datums) lives with its vendor: ``codec.dts.alibaba``
and ``codec.dts.tencent.avro``.
"""
