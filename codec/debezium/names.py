"""Connect schema names of TiCDC's Debezium messages (``common.SanitizeName`` and friends).

Since v8.5.0 the cluster id and the database are held to Avro's name rules (letters, digits,
``_``; a bad first character becomes ``_``, a leading digit is kept after it) and the table to
the topic-name rules (letters, digits, ``_`` and ``.``), one ``_`` per bad character. The
``source.name`` field keeps the raw cluster id.
"""

from __future__ import annotations

import logging
from functools import cache

from tisink.codec.names import sanitize_name

log = logging.getLogger(__name__)

_TOPIC_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789.")

SOURCE_SCHEMA_NAME = "io.debezium.connector.mysql.Source"


@cache
def sanitize_topic_name(name: str) -> str:
    """Topic-safe name: ``.`` is allowed and the first character is not special."""
    sanitized = "".join(char if char in _TOPIC_CHARS else "_" for char in name)
    if sanitized != name:
        log.warning("table name %r is not safe for a schema name, using %r", name, sanitized)
    return sanitized


def schema_topic_name(cluster_id: str, schema: str, table: str) -> str:
    """``<cluster>.<db>.<table>``, the stem of the ``.Key``/``.Value``/``.Envelope`` names."""
    return f"{sanitize_name(cluster_id)}.{sanitize_name(schema)}.{sanitize_topic_name(table)}"


def watermark_name(cluster_id: str, suffix: str) -> str:
    """``<cluster>.watermark.Key`` or ``.Envelope``."""
    return f"{sanitize_name(cluster_id)}.watermark.{suffix}"
