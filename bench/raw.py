"""Raw baselines: the serialisation library alone, writing what an encoder wrote, already built.

An encoder's output is read back into the library's own objects (JSON values, Avro datums,
protobuf messages); the baseline then times only the library serialising them again. That is
the floor of any encoder built on the library: it renders no MySQL value, builds no message,
routes nothing.

- ``json``: ``orjson.dumps`` of each record's key and value, or of each event's key and value
  JSON in a batched record (Open Protocol: 8-byte big-endian lengths, the key after a version
  head);
- ``avro``: fastavro's generic ``schemaless_writer`` with the protocol's schema file: the file
  as a whole when that reads the records (a list is a union: Simple's ``message.json``), else
  its last schema (a DTS ``Record.avsc`` ends with the ``Record``, of which each record is a
  bare datum);
- ``protobuf``: classes generated from the protocol's ``.proto`` by grpcio-tools (the ``dev``
  extra). Tencent's ``subscribe.proto`` frames ``Entries`` in an ``Envelope``'s ``data``, so
  both are serialised;
- ``csv``: the standard library's ``csv.writer`` writing each record's rows again, read back
  with ``csv.reader`` (the C module both: the floor of writing delimited text from Python).
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import tempfile
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from tisink.codec.protocol import ProtocolSpec

Record = tuple[bytes | None, bytes]
Run = Callable[[], object]

PROTO_FRAMES = {"subscribe.proto": ("Envelope", "data", "Entries")}
"""Per .proto file: the outer message, its field holding the inner one, and the inner type."""


class BaselineUnavailable(Exception):
    """The library this baseline needs is not installed."""


def raw_baseline(
    spec: ProtocolSpec, encoding_format: str
) -> tuple[str, Callable[[Sequence[Record]], Run]]:
    """(name, prepare) of ``encoding_format``'s baseline: ``prepare(records)`` reads the records
    back and returns the timed run. BaselineUnavailable when it cannot be built here."""
    if encoding_format == "json":
        return "orjson.dumps", _json_run
    if encoding_format == "csv":
        return "csv.writer", _csv_run
    files = spec.schema_files(encoding_format)
    if encoding_format == "avro":
        (text,) = [data for name, data in files.items() if name.endswith((".json", ".avsc"))]
        return "fastavro generic", _avro_preparer(text)
    if encoding_format == "protobuf":
        ((name, text),) = [(n, d) for n, d in files.items() if n.endswith(".proto")]
        return "protobuf generated classes", _protobuf_preparer(name, text)
    raise BaselineUnavailable(f"no raw baseline for encoding format {encoding_format!r}")


def _json_documents(part: bytes) -> list[bytes]:
    """The JSON documents of one key or value: itself, or the events of a batched stream."""
    if part[:1] in (b"{", b"["):
        return [part]
    documents, at = [], 8 if part[:8] == (1).to_bytes(8, "big") else 0
    while at < len(part):
        size = int.from_bytes(part[at : at + 8], "big")
        documents.append(part[at + 8 : at + 8 + size])
        at += 8 + size
    return [document for document in documents if document]


def _json_run(records: Sequence[Record]) -> Run:
    values = [
        orjson.loads(document)
        for record in records
        for part in record
        if part
        for document in _json_documents(part)
    ]
    dumps = orjson.dumps

    def run() -> None:
        for value in values:
            dumps(value)

    return run


def _csv_run(records: Sequence[Record]) -> Run:
    rows = [row for _, value in records for row in csv.reader(io.StringIO(value.decode()))]

    def run() -> None:
        out = io.StringIO()
        csv.writer(out).writerows(rows)
        out.getvalue().encode()

    return run


def _avro_preparer(schema_text: bytes) -> Callable[[Sequence[Record]], Run]:
    import fastavro

    loaded = json.loads(schema_text)
    named: dict[str, Any] = {}
    last: Any = None
    for item in loaded if isinstance(loaded, list) else [loaded]:
        last = fastavro.parse_schema(item, named_schemas=named)
    candidates = [fastavro.parse_schema(loaded), last]

    def read_all(schema: Any, records: Sequence[Record]) -> list[Any] | None:
        datums = []
        for _, value in records:
            buffer = io.BytesIO(value)
            try:
                datums.append(fastavro.schemaless_reader(buffer, schema))
            except (IndexError, ValueError, EOFError, UnicodeDecodeError):
                return None
            if buffer.tell() != len(value):
                return None
        return datums

    def prepare(records: Sequence[Record]) -> Run:
        for schema in candidates:
            datums = read_all(schema, records)
            if datums is not None:
                break
        else:
            raise BaselineUnavailable("the schema file does not read the records back")
        writer = fastavro.schemaless_writer

        def run() -> None:
            for datum in datums:
                writer(io.BytesIO(), schema, datum)

        return run

    return prepare


def _protobuf_preparer(name: str, proto: bytes) -> Callable[[Sequence[Record]], Run]:
    module = generated_module(name, proto)
    outer_name, field, inner_name = PROTO_FRAMES[name]
    outer_type, inner_type = getattr(module, outer_name), getattr(module, inner_name)

    def prepare(records: Sequence[Record]) -> Run:
        pairs = []
        for _, value in records:
            outer = outer_type.FromString(value)
            pairs.append((outer, inner_type.FromString(getattr(outer, field))))

        def run() -> None:
            for outer, inner in pairs:
                setattr(outer, field, inner.SerializeToString())
                outer.SerializeToString()

        return run

    return prepare


@cache
def generated_module(name: str, proto: bytes) -> ModuleType:
    """The Python classes grpcio-tools generates from ``proto`` (named ``name``); once per
    process, as protobuf's descriptor pool takes a file once."""
    try:
        from grpc_tools import protoc
    except ImportError as err:
        raise BaselineUnavailable("needs grpcio-tools (the dev extra)") from err
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / name).write_bytes(proto)
        if protoc.main(["protoc", f"-I{work}", f"--python_out={work}", name]) != 0:
            raise BaselineUnavailable(f"protoc could not compile {name}")
        stem = Path(name).stem + "_pb2"
        spec = importlib.util.spec_from_file_location(stem, work / f"{stem}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module
