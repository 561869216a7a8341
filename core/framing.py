"""Kafka record framing shared by the encoders (size checks) and the producers."""

RECORD_OVERHEAD = 36
"""Bytes a Kafka record adds to its key and value when checked against ``max-message-bytes``:
TiCDC's ``MaxRecordOverhead`` (the v2 record batch's worst-case per-record framing)."""
