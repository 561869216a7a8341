"""Reads a storage folder back as TiCDC's storage consumer sees it (``cmd/storage-consumer``):
which files are schema files, data files, indexes, the ``metadata`` checkpoint, leftover
temporary files, and what does not belong to the layout. Pure listing; the checks are
``tisink.verify.storage``'s, the row reading ``rows``'s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tisink.eventsink.storage.durable import is_temp_name
from tisink.eventsink.storage.paths import (
    DATA_FILE,
    INDEX_FILE,
    META_DIR,
    METADATA_FILE,
    SCHEMA_FILE,
    DataDir,
    parse_data_dir,
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


def list_layout(root: Path, extension: str, date_separator: str) -> Listing:
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
            elif not _classify(listing, root, parts, name, extension, date_separator):
                listing.strangers.append(relative)
    return listing


def _classify(
    listing: Listing, root: Path, parts: list[str], name: str, extension: str, separator: str
) -> bool:
    relative = "/".join([*parts, name])
    if parts and parts[-1] == META_DIR:
        match = SCHEMA_FILE.fullmatch(name)
        if match is not None and len(parts) in (2, 3):
            table = parts[1] if len(parts) == 3 else ""
            version, checksum = int(match.group(1)), int(match.group(2))
            listing.schemas.append(SchemaFileRef(relative, parts[0], table, version, checksum))
            return True
        if name == INDEX_FILE:
            directory = parse_data_dir(parts[:-1], separator)
            if directory is None:
                return False
            entry = listing.dirs.setdefault(directory, DataDirFiles(directory))
            entry.index = (root / relative).read_text(encoding="utf-8")
            return True
        return False
    match = DATA_FILE.fullmatch(name)
    if match is None or match.group(2) != extension:
        return False
    directory = parse_data_dir(parts, separator)
    if directory is None:
        return False
    entry = listing.dirs.setdefault(directory, DataDirFiles(directory))
    entry.files[int(match.group(1))] = name
    return True
