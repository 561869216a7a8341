"""Reads a storage folder back as TiCDC's storage consumer sees it (``cmd/storage-consumer``):
which files are schema files, data files, indexes, the ``metadata`` checkpoint, leftover
temporary files, and what does not belong to the layout. Pure listing; the checks are
``tisink.verify.storage``'s, the row reading ``rows``'s.

Both architectures' names are read: ``CDC{num}`` with ``meta/CDC.index``, and
``CDC_{dispatcherID}_{num}`` with ``meta/CDC_{dispatcherID}.index`` (each dispatcher's files a
run of their own). With ``by_table_id`` (``use-table-id-as-path``) the directories are
``{table-id}/{version}/...`` and ``{table-id}/meta/schema_*.json``; the schema and table names
are read from those schema files.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from tisink.eventsink.storage.durable import is_temp_name
from tisink.eventsink.storage.paths import (
    INDEX_NAME,
    META_DIR,
    METADATA_FILE,
    SCHEMA_FILE,
    DataDir,
    parse_data_dir,
    parse_data_file_name,
)


@dataclass(frozen=True, slots=True)
class SchemaFileRef:
    """A schema file: its path (relative), database, table ("" for a database's), version
    and the checksum its name carries."""

    path: str
    schema: str
    table: str
    version: int
    checksum: int
    table_id: int = 0
    """The id naming its directory (``use-table-id-as-path``), else 0."""


@dataclass
class DataDirFiles:
    """One data directory: its data files by number, and its index's text (None: none)."""

    directory: DataDir
    files: dict[int, str] = field(default_factory=dict)
    index: str | None = None


@dataclass
class Listing:
    """Everything in a storage folder, classified."""

    metadata: bytes | None = None
    schemas: list[SchemaFileRef] = field(default_factory=list)
    dirs: dict[DataDir, DataDirFiles] = field(default_factory=dict)
    temp_files: list[str] = field(default_factory=list)
    strangers: list[str] = field(default_factory=list)
    unnamed: list[str] = field(default_factory=list)
    """Directories named by a table id no schema file names (``use-table-id-as-path``)."""


def list_layout(
    root: Path, extension: str, date_separator: str, *, by_table_id: bool = False
) -> Listing:
    """Classify every file under ``root`` (relative paths with ``/``)."""
    listing = Listing()
    for directory, _, names in sorted(os.walk(root)):
        base = Path(directory).relative_to(root)
        parts = [] if str(base) == "." else list(base.parts)
        for name in sorted(names):
            relative = "/".join([*parts, name])
            if is_temp_name(name):
                listing.temp_files.append(relative)
            elif not parts and name == METADATA_FILE:
                listing.metadata = (root / relative).read_bytes()
            elif not _classify(listing, root, parts, name, extension, date_separator, by_table_id):
                listing.strangers.append(relative)
    if by_table_id:
        _name_by_table_id(listing)
    return listing


def _classify(
    listing: Listing,
    root: Path,
    parts: list[str],
    name: str,
    extension: str,
    separator: str,
    by_table_id: bool,
) -> bool:
    relative = "/".join([*parts, name])
    if parts and parts[-1] == META_DIR:
        match = SCHEMA_FILE.fullmatch(name)
        if match is not None and len(parts) in (2, 3):
            version, checksum = int(match.group(1)), int(match.group(2))
            if by_table_id and len(parts) == 2 and parts[0].isdigit():
                ref = _table_id_schema(root, relative, int(parts[0]), version, checksum)
            else:
                table = parts[1] if len(parts) == 3 else ""
                ref = SchemaFileRef(relative, parts[0], table, version, checksum)
            listing.schemas.append(ref)
            return True
        index = INDEX_NAME.fullmatch(name)
        if index is not None:
            directory = parse_data_dir(
                parts[:-1], separator, by_table_id=by_table_id, dispatcher=index.group(1) or ""
            )
            if directory is None:
                return False
            entry = listing.dirs.setdefault(directory, DataDirFiles(directory))
            entry.index = (root / relative).read_text(encoding="utf-8")
            return True
        return False
    parsed = parse_data_file_name(name)
    if parsed is None or parsed[2] != extension:
        return False
    dispatcher, number, _ = parsed
    directory = parse_data_dir(parts, separator, by_table_id=by_table_id, dispatcher=dispatcher)
    if directory is None:
        return False
    entry = listing.dirs.setdefault(directory, DataDirFiles(directory))
    entry.files[number] = name
    return True


def _table_id_schema(
    root: Path, relative: str, table_id: int, version: int, checksum: int
) -> SchemaFileRef:
    """A ``{table-id}/meta/`` schema file, with the names its content carries ("" when it
    cannot be read: verify reports the file)."""
    try:
        document = orjson.loads((root / relative).read_bytes())
        schema, table = str(document["Schema"]), str(document["Table"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        schema, table = "", ""
    return SchemaFileRef(relative, schema, table, version, checksum, table_id)


def _name_by_table_id(listing: Listing) -> None:
    """Give the directories named by a table id the names of the schema file of their table
    version (a RENAME TABLE keeps the id: its versions carry different names)."""
    names = {
        (ref.table_id, ref.version): (ref.schema, ref.table)
        for ref in listing.schemas
        if ref.table_id
    }
    named: dict[DataDir, DataDirFiles] = {}
    for directory, entry in listing.dirs.items():
        if directory.table_id:
            found = names.get((directory.table_id, directory.version))
            if found is None or not found[1]:
                listing.unnamed.append(directory.path())
                continue
            directory = dataclasses.replace(directory, schema=found[0], table=found[1])
            entry.directory = directory
        named[directory] = entry
    listing.dirs = named
