"""Helpers of the Tencent DTS Protobuf tests: protoc through grpcio-tools, times, the spec's
example row and encoders."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.tencent.encoder import TencentProtobufEncoder
from tisink.core.clock import FixedClock
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts

COMMIT_MS = 1_715_930_562_000  # 2024-05-17 07:22:42 UTC


def generate(proto: Path, out: Path, module: str) -> ModuleType:
    """Run protoc (grpcio-tools) on ``proto`` and import the ``_pb2`` module it writes."""
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(proto, out / proto.name)
    code = protoc.main(["protoc", f"-I{out}", f"--python_out={out}", str(out / proto.name)])
    assert code == 0, f"protoc failed on {proto}"
    spec = importlib.util.spec_from_file_location(module, out / f"{proto.stem}_pb2.py")
    assert spec and spec.loader
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded


def ts_at(ms_offset: int = 0, logical: int = 0) -> int:
    return compose_ts(COMMIT_MS + ms_offset, logical)


def example_table() -> TableInfo:
    """The spec's example row (spec/dts-formats.md 2.5) as a table."""
    return make_table(
        "db",
        "t",
        42,
        7,
        [
            ColumnInfo("id", "int", nullable=False),
            ColumnInfo("u", "int", unsigned=True),
            ColumnInfo("name", "varchar", charset="utf8mb4", collate="utf8mb4_bin", length=20),
            ColumnInfo("amt", "decimal", length=10, decimal=2),
            ColumnInfo("f", "double"),
            ColumnInfo("dt", "datetime"),
            ColumnInfo("ts", "timestamp"),
            ColumnInfo("j", "json"),
            ColumnInfo("b", "blob"),
            ColumnInfo("n", "varchar", charset="utf8mb4", length=5),
        ],
        [IndexInfo("PRIMARY", ("id",), unique=True, primary=True)],
    )


def example_row(id_: int = 42) -> dict[str, object]:
    return {
        "id": id_,
        "u": 4294967295,
        "name": "héllo",
        "amt": "12.50",
        "f": 1.5,
        "dt": "2024-01-31 12:34:56",
        "ts": "2021-05-17 07:22:42",
        "j": {"k": 1},
        "b": "AAH/",
        "n": None,
    }


def new_encoder(
    max_message_bytes: int = 1 << 20, time_zone: str = "UTC", clock: FixedClock | None = None
) -> TencentProtobufEncoder:
    config = EncoderConfig(
        protocol="tencent-dts", time_zone=time_zone, max_message_bytes=max_message_bytes
    )
    return TencentProtobufEncoder(config, clock or FixedClock(COMMIT_MS))
