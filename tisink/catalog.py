"""What ``tisink protocols`` and ``tisink schema`` show: the protocol registry, for people.

The registry holds each protocol's formats, options and schema files; this module only lays
them out and writes the files, so a new protocol appears here without a change. The bare
listing is one line a protocol (every parameter of every protocol is hundreds of lines); one
protocol's name shows its parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tisink.codec.config import COMMON_OPTIONS, EncoderConfig
from tisink.codec.protocol import ProtocolSpec
from tisink.codec.registry import get_protocol, protocols
from tisink.core.errors import ConfigError
from tisink.core.options import Option, option_defaults


@dataclass(frozen=True)
class Parameter:
    """One setting as a user writes it: URI parameter and/or TOML key, and its default."""

    key: str
    where: str
    default: object
    help: str


def _where(option: Option) -> str:
    tables = [f"[{'.'.join(t)}]" if t else "top level" for t in option.tables]
    return ", ".join((["URI"] if option.uri else []) + tables)


def parameters(spec: ProtocolSpec) -> list[Parameter]:
    """The protocol's own settings first, then the ones every protocol shares."""
    own = option_defaults(spec.options_type, spec.options)
    shared = option_defaults(EncoderConfig, COMMON_OPTIONS)
    shared["encoding-format"] = spec.default_encoding_format
    shared["time-zone"] = "the process's zone"
    shared["integrity-check-level"] = "none"
    out = [Parameter(o.key, _where(o), own.get(o.key), o.help) for o in spec.options]
    out += [Parameter(o.key, _where(o), shared.get(o.key), o.help) for o in COMMON_OPTIONS]
    return out


def all_protocols() -> list[ProtocolSpec]:
    return list(protocols().values())


def protocol_rows() -> list[tuple[str, str, str]]:
    """One row a protocol for the bare listing: name, encoding formats (default first), what
    it carries."""
    return [(s.name, ", ".join(s.encoding_formats), s.summary) for s in all_protocols()]


def protocol_title(spec: ProtocolSpec) -> str:
    """The heading of one protocol's view."""
    formats = ", ".join(spec.encoding_formats)
    return f"{spec.name} (encoding-format: {formats}, default {spec.default_encoding_format})"


VALUES_ONLY = frozenset({"csv"})
"""Protocols whose files hold values only: the storage sink writes each table's columns and
types beside them, so that is what their consumers read."""


def no_schema_file(protocol: str, encoding_format: str | None) -> str:
    """Why ``tisink schema`` wrote nothing for ``protocol``, and what a consumer reads instead."""
    spec = get_protocol(protocol)
    encoding_format = encoding_format or spec.default_encoding_format
    if spec.name in VALUES_ONLY:
        return (
            f"{spec.name} has no schema file to write: its change files hold values only, and a "
            "consumer reads each table's columns and types from the schema file the storage "
            "sink writes beside them ({schema}/{table}/meta/schema_{version}_{checksum}.json)"
        )
    if "schema-registry" in spec.required_options:
        return (
            f"{spec.name} has no schema file to write: each table's key and value schemas are "
            "registered in the schema registry the sink names (schema-registry=), under the "
            "subjects <topic>-key and <topic>-value, and each message carries its schema's id; "
            "a consumer reads them there (GET /schemas/ids/{id}; tisink registry runs one)"
        )
    return (
        f"{spec.name} ({encoding_format}) has no schema file to write: the stream itself carries "
        "each table's columns and types, so a consumer needs no file"
    )


def write_schema(protocol: str, encoding_format: str | None, out: Path) -> list[Path]:
    """Write the files a consumer needs to decode ``protocol``; [] when its messages carry
    their schema. ConfigError for an unknown protocol or format."""
    spec = get_protocol(protocol)
    fmt = encoding_format or spec.default_encoding_format
    if fmt not in spec.encoding_formats:
        raise ConfigError(
            f"protocol {spec.name} has no encoding-format {fmt!r}; "
            f"expected one of {', '.join(spec.encoding_formats)}"
        )
    files = spec.schema_files(fmt)
    if files:
        out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written
