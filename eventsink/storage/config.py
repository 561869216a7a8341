"""The storage sink's settings under TiCDC's names (``pkg/cloudstorage/config.go``,
``pkg/config/sink.go``): URI parameters and changefeed TOML keys.

``flush-interval`` (a Go duration, default 5s, held to 100ms..10m) and ``file-size`` (bytes,
default 64 MiB, held to 1 KiB..512 MiB) close a file; ``date-separator`` (none, year, month,
day; default day) and ``enable-partition-separator`` (default true) shape the directories;
``file-index-width`` (6..20, else 20) pads the file numbers; ``output-column-id`` puts column
ids in schema files; ``terminator`` (default CRLF) ends each line.

``newarch`` (default true) chooses whose storage sink is followed: pingcap/ticdc, TiCDC's new
architecture (``cdc server --newarch``, the switch's TiCDC name; v8.5.5 and later: the data
file, then its index), or with ``false`` pingcap/tiflow, the classic one (up to v8.5.4: the
index first, then the data file; a restart reuses the number of an indexed file that is
missing or empty). Only the new architecture takes ``use-table-id-as-path`` (ticdc #4356,
v8.5.6) and ``enable-table-across-nodes`` (TiCDC's ``[scheduler]`` key: the data files and
index of each dispatcher carry its id, ticdc #3664).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tisink.codec.config import EncoderConfig
from tisink.core.options import Option, one_of, to_bool, to_int, to_str

log = logging.getLogger(__name__)

DATE_SEPARATORS = ("none", "year", "month", "day")
MIN_FLUSH_INTERVAL_MS, MAX_FLUSH_INTERVAL_MS = 100, 10 * 60 * 1000
MIN_FILE_SIZE, MAX_FILE_SIZE = 1024, 512 * 1024 * 1024
MIN_FILE_INDEX_WIDTH, MAX_FILE_INDEX_WIDTH = 6, 20
_CLOUD = ("sink", "cloud-storage-config")
_DURATION_PART = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
_warned: set[str] = set()
"""Warnings given: the settings are read again by each sink a play builds and by verify, and a
held value is said once per process."""


@dataclass(frozen=True)
class StorageConfig:
    """TiCDC's defaults."""

    flush_interval_ms: int = 5000
    file_size: int = 64 * 1024 * 1024
    date_separator: str = "day"
    enable_partition_separator: bool = True
    file_index_width: int = MAX_FILE_INDEX_WIDTH
    output_column_id: bool = False
    terminator: str = "\r\n"
    newarch: bool = True
    use_table_id_as_path: bool = False
    enable_table_across_nodes: bool = False

    def __post_init__(self) -> None:
        if self.newarch:
            return
        for key, value in (
            ("use-table-id-as-path", self.use_table_id_as_path),
            ("enable-table-across-nodes", self.enable_table_across_nodes),
        ):
            if value:
                raise ValueError(
                    f"{key} is a setting of TiCDC's new architecture (pingcap/ticdc); "
                    "newarch=false (the classic storage sink) does not take it"
                )


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


def _clamped(name: str, value: int, low: int, high: int) -> int:
    """TiCDC holds an out-of-range value to the range, with a warning."""
    if value < low or value > high:
        held = min(max(value, low), high)
        _warn_once(f"{name} {value} is out of [{low}, {high}]; using {held}, as TiCDC does")
        return held
    return value


def to_duration_ms(value: Any) -> int:
    """A Go duration (``5s``, ``1m30s``, ``250ms``) in milliseconds, held to TiCDC's range."""
    text = to_str(value).strip()
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNIT_MS[match.group(2)]
        position = match.end()
    if not text or position != len(text):
        raise ValueError(f"want a duration like 5s or 500ms, got {value!r}")
    return _clamped("flush-interval", round(total), MIN_FLUSH_INTERVAL_MS, MAX_FLUSH_INTERVAL_MS)


def to_file_size(value: Any) -> int:
    return _clamped("file-size", to_int(value), MIN_FILE_SIZE, MAX_FILE_SIZE)


def to_index_width(value: Any) -> int:
    """TiCDC uses the default for a width out of 6..20."""
    width = to_int(value)
    if not MIN_FILE_INDEX_WIDTH <= width <= MAX_FILE_INDEX_WIDTH:
        _warn_once(f"file-index-width {width} is out of [6, 20]; using 20, as TiCDC does")
        return MAX_FILE_INDEX_WIDTH
    return width


def _terminator(value: Any) -> str:
    text = to_str(value)
    if not text:
        raise ValueError("the terminator cannot be empty")
    return text


STORAGE_OPTIONS: tuple[Option, ...] = (
    Option(
        "flush-interval",
        "flush_interval_ms",
        to_duration_ms,
        (_CLOUD,),
        help="storage sink: a file closes this long after it opened (Go duration, 5s)",
    ),
    Option(
        "file-size",
        "file_size",
        to_file_size,
        (_CLOUD,),
        help="storage sink: a file closes once it holds this many bytes (64 MiB)",
    ),
    Option(
        "date-separator",
        "date_separator",
        one_of(*DATE_SEPARATORS),
        help="storage sink: a date directory per none, year, month or day (UTC)",
    ),
    Option(
        "enable-partition-separator",
        "enable_partition_separator",
        to_bool,
        help="storage sink: a directory per partition of a partitioned table",
    ),
    Option(
        "file-index-width",
        "file_index_width",
        to_index_width,
        help="storage sink: digits of the file numbers, CDC000001.csv (6..20, 20)",
    ),
    Option(
        "output-column-id",
        "output_column_id",
        to_bool,
        (_CLOUD,),
        help="storage sink: schema files carry each column's id",
    ),
    Option(
        "terminator",
        "terminator",
        _terminator,
        help="storage sink: the end of each line (CRLF)",
    ),
    Option(
        "newarch",
        "newarch",
        to_bool,
        ((),),
        help="storage sink: TiCDC's new architecture (true, pingcap/ticdc) or the classic "
        "one (false, pingcap/tiflow); TiCDC's server switch, a sink setting in tisink",
    ),
    Option(
        "use-table-id-as-path",
        "use_table_id_as_path",
        to_bool,
        (_CLOUD,),
        help="storage sink (newarch): directories {table-id}/{version}/ instead of "
        "{schema}/{table}/{version}/",
    ),
    Option(
        "enable-table-across-nodes",
        "enable_table_across_nodes",
        to_bool,
        (("scheduler",),),
        help="storage sink (newarch): files CDC_{dispatcherID}_{num} and index "
        "meta/CDC_{dispatcherID}.index; TiCDC's [scheduler] key, a URI parameter in tisink",
    ),
)


@dataclass(frozen=True)
class StorageLayout:
    """What writes or reads one storage folder: where, the protocol's encoder settings (CSV's
    delimiter, quote...), the layout settings and the data-file extension."""

    root: Path
    encoder: EncoderConfig
    config: StorageConfig
    extension: str
