"""Where a storage layout an earlier run left goes on (``--append``, after a killed run).

Every row at or below the ``metadata`` checkpoint is stored, so a resumed play skips those
transactions, as TiCDC restarts a changefeed from its checkpoint. TiCDC then writes the rows
after the checkpoint again, and a consumer meets them twice (``tisink verify`` fails on commit
order and rows stored twice). tisink also skips, per table and partition, what the indexed
files already hold past the checkpoint: the newest rows' commit ts and how many rows carry it
(exact with CSV's ``include-commit-ts`` or canal-json's ``_tidb`` extension, canal-json's
``es`` milliseconds otherwise), so the same feed played again continues where the files end.
CSV without the commit-ts column does not tell: its rows past the checkpoint are written
again, as TiCDC writes them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from tisink.codec.canal.options import CanalOptions
from tisink.codec.csv.decoder import parse_row, split_rows
from tisink.codec.csv.options import CSVOptions
from tisink.codec.errors import MessageDecodeError
from tisink.core.clock import TSO_LOGICAL_BITS
from tisink.eventsink.storage.config import StorageLayout
from tisink.eventsink.storage.files import StorageSinkError
from tisink.eventsink.storage.layout import DataDirFiles, list_layout
from tisink.eventsink.storage.paths import DATA_FILE, METADATA_FILE

log = logging.getLogger(__name__)

StoredKey = tuple[str, str, int]
"""(schema, table, partition): one ordered stream of rows in the layout."""


def read_checkpoint(root: Path) -> int | None:
    """The ``metadata`` checkpoint under ``root``; None when there is no ``metadata``."""
    path = root / METADATA_FILE
    try:
        document = orjson.loads(path.read_bytes())
        return int(document["checkpoint-ts"])
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise StorageSinkError(f"cannot read the checkpoint in {path}: {err}") from err


@dataclass(slots=True)
class _Tail:
    """The newest rows of one stream: their key, and how many of them are not met again yet."""

    key: int
    rows: int


class ResumePoint:
    """What the layout holds already; ``holds`` tells a transaction to skip."""

    def __init__(
        self, checkpoint: int, tails: dict[StoredKey, _Tail], key_of: Callable[[int], int]
    ) -> None:
        self.checkpoint = checkpoint
        self._tails = tails
        self._key_of = key_of

    @classmethod
    def read(cls, layout: StorageLayout) -> ResumePoint | None:
        """The layout's resume point; None for a folder no run has checkpointed."""
        checkpoint = read_checkpoint(layout.root)
        if checkpoint is None:
            return None
        reader = _KeyReader.of(layout)
        tails: dict[StoredKey, _Tail] = {}
        if reader is not None:
            config = layout.config
            listing = list_layout(
                layout.root,
                layout.extension,
                config.date_separator,
                by_table_id=config.use_table_id_as_path,
            )
            streams: dict[StoredKey, list[DataDirFiles]] = {}
            for directory, entry in listing.dirs.items():
                key = (directory.schema, directory.table, directory.partition)
                if directory.table_id:  # one stream per table id (the sink's ``_stream``)
                    key = ("", "", directory.table_id)
                streams.setdefault(key, []).append(entry)
            for key, entries in streams.items():
                tail = _tail(layout.root, entries, reader)
                if tail is not None:
                    tails[key] = tail
        past = "and the rows its files hold past it" if reader is not None else "only"
        log.info("%s: resuming after checkpoint %d %s", layout.root, checkpoint, past)
        key_of = reader.key_of if reader is not None else _exact
        return cls(checkpoint, tails, key_of)

    def holds(self, stream: StoredKey, commit_ts: int, rows: int) -> bool:
        """True when the layout holds the transaction of ``rows`` rows at ``commit_ts`` of
        ``stream`` already; transactions must be asked about in the stream's order."""
        if commit_ts <= self.checkpoint:
            return True
        tail = self._tails.get(stream)
        if tail is None:
            return False
        key = self._key_of(commit_ts)
        if key < tail.key:
            return True
        if key == tail.key and rows <= tail.rows:
            tail.rows -= rows
            return True
        del self._tails[stream]  # past what the files hold: write the rest
        return False


def _exact(commit_ts: int) -> int:
    return commit_ts


def _milliseconds(commit_ts: int) -> int:
    return commit_ts >> TSO_LOGICAL_BITS


class _KeyReader:
    """Each row's key (commit ts, or its milliseconds) in a data file of the layout."""

    def __init__(self, layout: StorageLayout, key_of: Callable[[int], int]) -> None:
        self._layout = layout
        self.key_of = key_of

    @classmethod
    def of(cls, layout: StorageLayout) -> _KeyReader | None:
        """None when the files carry no commit ts (CSV without ``include-commit-ts``)."""
        options = layout.encoder.options
        if isinstance(options, CSVOptions):
            return cls(layout, _exact) if options.include_commit_ts else None
        if isinstance(options, CanalOptions) and options.enable_tidb_extension:
            return cls(layout, _exact)
        return cls(layout, _milliseconds)

    def keys(self, path: Path) -> list[int]:
        try:
            data = path.read_bytes()
            options = self._layout.encoder.options
            if isinstance(options, CSVOptions):
                return _csv_keys(data, options, str(path))
            exact = self.key_of is _exact
            return _json_keys(data, self._layout.config.terminator, exact, str(path))
        except (OSError, MessageDecodeError) as err:
            raise StorageSinkError(f"cannot resume after {path}: {err}") from err


def _csv_keys(data: bytes, options: CSVOptions, where: str) -> list[int]:
    """One commit ts per row: an old-value UPDATE's D line and its I line are one row."""
    keys: list[int] = []
    pair_open = False
    for fields in split_rows(data, options, where):
        row = parse_row(fields, options, where)
        if pair_open:
            pair_open = False
            continue
        keys.append(row.commit_ts)
        pair_open = bool(row.is_update) and row.op == "D"
    return keys


def _json_keys(data: bytes, terminator: str, exact: bool, where: str) -> list[int]:
    """Each line's ``_tidb.commitTs`` (``exact``), else its ``es`` milliseconds."""
    keys: list[int] = []
    for number, line in enumerate(data.split(terminator.encode())[:-1], 1):
        try:
            message = orjson.loads(line)
            if exact:
                keys.append(int(message["_tidb"]["commitTs"]))
            else:
                keys.append(int(message["es"]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
            raise MessageDecodeError(f"{where}: line {number}: no commit ts: {err!r}") from None
    return keys


def _indexed_files(entry: DataDirFiles) -> list[str]:
    """The directory's data files its index covers, newest first (a file past the index is
    one the next write replaces)."""
    match = DATA_FILE.fullmatch((entry.index or "").strip())
    if match is None:
        return []
    newest = int(match.group(1))
    return [entry.files[n] for n in sorted(entry.files, reverse=True) if n <= newest]


def _tail(root: Path, entries: Iterable[DataDirFiles], reader: _KeyReader) -> _Tail | None:
    """The newest key over a stream's directories and how many rows carry it (a transaction
    cut by the source may span files, so files are read back while they start at that key)."""
    found: list[tuple[Path, list[str]]] = []
    top: int | None = None
    newest_keys: dict[Path, list[int]] = {}
    for entry in entries:
        names = _indexed_files(entry)
        if not names:
            continue
        directory = root / entry.directory.path()
        keys = reader.keys(directory / names[0])
        newest_keys[directory] = keys
        found.append((directory, names))
        if keys and (top is None or keys[-1] > top):
            top = keys[-1]
    if top is None:
        return None
    rows = 0
    for directory, names in found:
        for position, name in enumerate(names):
            keys = newest_keys[directory] if position == 0 else reader.keys(directory / name)
            rows += keys.count(top)
            if not keys or keys[0] != top:
                break
    return _Tail(top, rows)
