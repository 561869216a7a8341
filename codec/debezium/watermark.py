"""WATERMARK messages (tiflow master and ticdc ``EncodeCheckpointEvent``): ``op`` "m".

Key ``{"payload":{}}`` named ``<cluster>.watermark.Key``; value with an empty ``db`` and
``table`` in ``source`` and the resolved ts as ``commit_ts``. The encoder sends them only with
``enable-tidb-extension``; the codec function itself writes the source schema either way, as
TiCDC's does (its golden was written with the extension off).
"""

from __future__ import annotations

from tisink.codec.debezium.jsonwriter import dumps
from tisink.codec.debezium.names import watermark_name
from tisink.codec.debezium.schema import envelope_schema, key_schema, source_schema
from tisink.codec.debezium.source import source_block


def encode_watermark(
    ts: int, cluster_id: str, now_ms: int, *, with_schema: bool, tidb_extension: bool
) -> tuple[bytes, bytes]:
    """``(key, value)`` of the WATERMARK at ``ts``."""
    key = b'{"payload":{}'
    value = (
        b'{"payload":{"source":'
        + dumps(source_block(cluster_id, "", "", ts))
        + b',"ts_ms":%d,"transaction":null,"op":"m"}' % now_ms
    )
    if with_schema:
        key += key_schema(watermark_name(cluster_id, "Key"), [])
        value += envelope_schema(
            watermark_name(cluster_id, "Envelope"),
            None,
            b"",
            source_schema(tidb_extension, include_start_ts=False),
        )
    return key + b"}", value + b"}"
