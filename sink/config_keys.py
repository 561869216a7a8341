"""Every key a changefeed may set, indexed for the TOML and the sink URI.

The keys are declared where they are used: the encoder's common keys in ``codec.config``, each
protocol's in its registry entry, the Kafka keys in ``eventsink.kafka.config``, and the
changefeed's own below. This module only gathers them, so a key is parsed in one place.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from tisink.codec.config import COMMON_OPTIONS
from tisink.codec.registry import protocols
from tisink.core.options import Option, one_of, to_bool, to_lower, to_non_negative_int
from tisink.eventsink.faults import parse_faults
from tisink.eventsink.kafka.config import KAFKA_OPTIONS
from tisink.eventsink.storage.config import STORAGE_OPTIONS

SINK = (("sink",),)
CORRUPTION_HANDLE_LEVELS = ("warn", "error")
"""TiCDC's ``[integrity] corruption-handle-level`` values; ``warn`` is its default."""

CHANGEFEED_OPTIONS: tuple[Option, ...] = (
    Option("protocol", "protocol", to_lower, SINK, help="the wire protocol"),
    Option("case-sensitive", "case_sensitive", to_bool, ((),), uri=False),
    Option(
        "output-raw-change-event",
        "output_raw_change_event",
        to_bool,
        (("sink", "kafka-config"), ("sink", "cloud-storage-config"), ("sink",)),
        uri=False,
        help="false: PK/UK-changing UPDATEs become DELETE + INSERT (TiCDC's key under "
        "[sink.kafka-config] and [sink.cloud-storage-config]; [sink] is tisink's shorthand)",
    ),
    Option(
        "newarch",
        "newarch",
        to_bool,
        ((),),
        help="true: TiCDC's new architecture (pingcap/ticdc), false: the classic one "
        "(pingcap/tiflow); TiCDC's server switch, a changefeed setting in tisink",
    ),
    Option(
        "corruption-handle-level",
        "corruption_handle_level",
        one_of(*CORRUPTION_HANDLE_LEVELS),
        (("integrity",),),
        uri=False,
        help="a row TiCDC finds not matching TiDB's checksum (integrity-check-level = "
        "correctness): warn delivers it marked corrupted, error stops the changefeed there",
    ),
    Option(
        "encoder-concurrency",
        "encoder_concurrency",
        to_non_negative_int,
        SINK,
        help="MQ sinks: encoder processes (0: in process); as a URI parameter, tisink's addition",
    ),
    Option(
        "faults",
        "faults",
        parse_faults,
        SINK,
        uri=False,
        help="MQ sinks: delivery faults to inject (tisink's addition; see tisink play --faults)",
    ),
)
"""The changefeed's own keys (``ChangefeedConfig`` fields)."""


@dataclass(frozen=True)
class KeyIndex:
    """Where each key may appear: by TOML (table, key) and by URI parameter name."""

    toml: dict[tuple[tuple[str, ...], str], Option]
    uri: dict[str, Option]
    tables: frozenset[tuple[str, ...]]

    def suggestion(self, key: str) -> str:
        """`` (did you mean X?)`` for a misspelt key, else ""."""
        names = {k for _, k in self.toml} | set(self.uri)
        close = difflib.get_close_matches(key.rsplit(".", 1)[-1], sorted(names), n=1)
        return f" (did you mean {close[0]}?)" if close else ""


def all_options() -> Iterable[Option]:
    yield from CHANGEFEED_OPTIONS
    yield from COMMON_OPTIONS
    yield from KAFKA_OPTIONS
    yield from STORAGE_OPTIONS
    for spec in protocols().values():
        yield from spec.options


@cache
def key_index() -> KeyIndex:
    toml: dict[tuple[tuple[str, ...], str], Option] = {}
    uri: dict[str, Option] = {}
    for option in all_options():
        for table in option.tables:
            toml.setdefault((table, option.key), option)
        if option.uri:
            uri.setdefault(option.key, option)
    tables = frozenset(table[:depth] for table, _ in toml for depth in range(1, len(table) + 1)) | {
        ("sink", "dispatchers")
    }
    return KeyIndex(toml, uri, tables)
