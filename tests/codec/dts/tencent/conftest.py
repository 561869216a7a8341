"""Fixtures for the Tencent DTS Protobuf tests: classes generated from the copied
``subscribe.proto`` by grpcio-tools at test time (never the encoder's own code path), and a
small table with the columns of the spec's example row."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.codec.dts.tencent.support import example_table, generate
from tisink.model.table import TableInfo


@pytest.fixture(scope="session")
def pb(reference_data: Path, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """``subscribe_pb2`` from ``formats/tencent-dts/subscribe.proto``."""
    proto = reference_data / "formats" / "tencent-dts" / "subscribe.proto"
    return generate(proto, tmp_path_factory.mktemp("pb"), "tdts_subscribe_pb2")


@pytest.fixture(scope="session")
def pb_presence(reference_data: Path, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The same schema with ``optional`` on the enum fields whose zero value matters, so
    ``HasField`` tells a written BEGIN/NIL/INSERT from a missing one (same wire format)."""
    text = (reference_data / "formats" / "tencent-dts" / "subscribe.proto").read_text()
    for field in (
        "MessageType messageType = 3;",
        "DataType dataType = 1;",
        "DMLType dmlEventType = 1;",
    ):
        assert field in text
        text = text.replace(field, "optional " + field)
    # another file and package name: the default descriptor pool holds both schemas
    text = text.replace("package subscribe;", "package subscribe_presence;")
    out = tmp_path_factory.mktemp("pb_presence")
    source = out / "src" / "subscribe_presence.proto"
    source.parent.mkdir()
    source.write_text(text)
    return generate(source, out / "gen", "tdts_subscribe_presence_pb2")


@pytest.fixture
def table() -> TableInfo:
    return example_table()
