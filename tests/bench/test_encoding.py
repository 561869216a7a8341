"""The encoding group on a few rows: every protocol and encoding format of the registry, each
against a raw baseline that reads its records back."""

from __future__ import annotations

from tisink.bench.encoding import encoding_group, protocol_formats
from tisink.bench.raw import raw_baseline
from tisink.bench.rows import TXN_ROWS, demo_txns, ten_column_txns
from tisink.codec.config import EncoderConfig
from tisink.codec.registry import protocols
from tisink.core.clock import FixedClock


def test_every_protocol_and_format_is_measured_with_its_baseline() -> None:
    for txns in (ten_column_txns(30), demo_txns(40)):
        results = encoding_group("g", txns, 1)
        expected = [f"{spec.name} {fmt}" for spec, fmt in protocol_formats()]
        assert [r.case for r in results] == expected
        for result in results:
            assert not result.error, result
            assert result.rows_per_s > 0 and result.bytes_per_row and result.bytes_per_row > 0
            assert result.baseline and result.baseline_rows_per_s, result
            assert result.ratio == result.rows_per_s / result.baseline_rows_per_s


def test_the_registry_is_what_is_measured() -> None:
    measured = {spec.name for spec, _ in protocol_formats()}
    assert measured == {name for name, spec in protocols().items() if not spec.required_options}
    assert "simple" in measured and "avro" not in measured


def test_ten_column_transactions_have_real_tsos() -> None:
    txns = ten_column_txns(25)
    assert [len(t) for t in txns] == [TXN_ROWS, TXN_ROWS, 5]
    assert all(len({r.commit_ts for r in t}) == 1 for t in txns)
    assert txns[0][0].commit_ts > 1 << 40


def test_each_baseline_reads_every_record_back() -> None:
    """A baseline that could not read the encoder's records would time nothing real."""
    txns = ten_column_txns(20)
    for spec, fmt in protocol_formats():
        encoder = spec.new_encoder(
            EncoderConfig(protocol=spec.name, encoding_format=fmt, time_zone="UTC"),
            FixedClock(1_715_930_562_000),
        )
        records = [r for txn in txns for r in encoder.encode_rows(txn).records]
        _, prepare = raw_baseline(spec, fmt)
        prepare(records)()
