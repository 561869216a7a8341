"""The hand-written Protobuf wire primitives against the protobuf runtime's own encoding."""

from __future__ import annotations

from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tisink.codec.dts.tencent.wire import Reader, signed64, varint, varint_run

UINT64 = st.integers(min_value=0, max_value=(1 << 64) - 1)
FIXTURES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


@FIXTURES
@given(n=UINT64)
def test_varint_is_the_runtimes(pb: ModuleType, n: int) -> None:
    encoded = pb.Header(seqId=n).SerializeToString()
    assert encoded == (b"\x58" + varint(n) if n else b"")


@FIXTURES
@given(n=st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1))
def test_negative_int64_is_ten_bytes(pb: ModuleType, n: int) -> None:
    encoded = pb.Header(serverId=n).SerializeToString()
    assert encoded == (b"\x28" + varint(n) if n else b"")
    ((field, wire_type, value),) = list(Reader(encoded)) if n else [(5, 0, 0)]
    assert (field, wire_type, signed64(value)) == (5, 0, n)  # type: ignore[arg-type]


@given(first=st.integers(min_value=0, max_value=(1 << 64) - 200), count=st.integers(1, 150))
def test_varint_run_is_consecutive_varints(first: int, count: int) -> None:
    assert varint_run(first, count) == [varint(first + i) for i in range(count)]


@FIXTURES
@given(seq=UINT64, name=st.text(max_size=300))
def test_reader_walks_runtime_bytes(pb: ModuleType, seq: int, name: str) -> None:
    data = pb.Header(version=1, seqId=seq, tableName=name).SerializeToString()
    fields = {field: value for field, _wire, value in Reader(data)}
    assert fields.get(1) == 1
    assert fields.get(11, 0) == seq
    assert fields.get(10, b"") == name.encode()
