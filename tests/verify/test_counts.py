"""The report's total and its parts agree: every record read counts once in ``messages`` and
once in ``kinds``, whatever it is (a message, a copy, an undecodable payload, an empty batch)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from tests.verify.streams import bootstrap, insert, table_schema, watermark
from tisink.codec.open.batch import BATCH_VERSION, LENGTH
from tisink.codec.open.decoder import OpenDecoder
from tisink.codec.protocol import Decoder
from tisink.codec.simple.decoder import SimpleDecoder
from tisink.verify import StreamChecker, VerifyReport

TS = 447984084414103554

Record = tuple[bytes | None, bytes | None]

SIMPLE: list[Record] = [
    (None, bootstrap(table_schema())),
    (None, insert(TS, 1)),
    (None, insert(TS + 1, 2)),
    (None, watermark(TS)),
    (None, b"not json"),
    (None, None),
]


def _open_batch(*events: tuple[bytes, bytes]) -> Record:
    key = LENGTH.pack(BATCH_VERSION) + b"".join(LENGTH.pack(len(k)) + k for k, _ in events)
    return key, b"".join(LENGTH.pack(len(v)) + v for _, v in events)


OPEN: list[Record] = [
    _open_batch(),  # a batch of no events: valid, TiCDC's reader skips it
    _open_batch((b'{"ts":%d,"t":3}' % TS, b"")),
    _open_batch((b'{"ts":%d,"t":3}' % (TS + 1), b""), (b'{"ts":%d,"t":3}' % (TS + 2), b"")),
    (b"short", b""),
    (None, b"x"),
]

DECODERS: dict[str, tuple[Callable[[], Decoder], list[Record]]] = {
    "simple": (lambda: SimpleDecoder("json", "none"), SIMPLE),
    "open": (OpenDecoder, OPEN),
}


@given(
    st.sampled_from(sorted(DECODERS)).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.lists(
                st.tuples(st.integers(0, 1), st.sampled_from(range(len(DECODERS[name][1])))),
                max_size=30,
            ),
        )
    )
)
def test_every_record_counts_once_by_kind(case: tuple[str, list[tuple[int, int]]]) -> None:
    name, picks = case
    new_decoder, pool = DECODERS[name]
    report = VerifyReport(source="test")
    checker = StreamChecker(report, new_decoder)
    offsets = [0, 0]
    for partition, pick in picks:
        key, value = pool[pick]
        checker.check_record("t", partition, offsets[partition], value, key)
        offsets[partition] += 1
    assert report.messages == len(picks)
    assert sum(report.kinds.values()) == report.messages, dict(report.kinds)
    assert report.empty is (not picks)
