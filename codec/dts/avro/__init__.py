"""DTS Avro: Alibaba's ``Record`` (``protocol=alibaba-dts``) and Tencent's rebuilt ``Record``
(``protocol=tencent-dts&encoding-format=avro``), one bare Avro datum per Kafka value.

Both share the MySQL type -> value record mapping (``mapping``), the synthetic binlog of
``codec.dts.binlog`` and one encoder shape (``encoder``); each format has a byte writer compiled
per table version, proven equal to fastavro on generic datums, and a decoder for verify.
"""
