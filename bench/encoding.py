"""Encoding: every protocol and encoding format of the registry, against its raw baseline.

Each case encodes the same transactions with the protocol's encoder (``encode_rows`` per
transaction, as the MQ sink calls it) and reports rows per CPU second and the bytes of the
records per row; the baseline serialises those very records with the library alone
(``tisink.bench.raw``). Clocks are fixed, so every repeat writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator

from tisink.bench.raw import BaselineUnavailable, raw_baseline
from tisink.bench.results import BenchResult, cpu_rate
from tisink.bench.rows import BASE_MS, Txn
from tisink.codec.config import EncoderConfig
from tisink.codec.protocol import ProtocolSpec
from tisink.codec.registry import protocols
from tisink.core.clock import FixedClock


def protocol_formats() -> Iterator[tuple[ProtocolSpec, str]]:
    """Every (protocol, encoding format) the registry knows, in registry order, but those that
    cannot encode without a server of their own (``required_options``: avro's schema registry),
    whose rate would be the server's as much as the encoder's."""
    for spec in protocols().values():
        if spec.required_options:
            continue
        for encoding_format in spec.encoding_formats:
            yield spec, encoding_format


def encode_case(
    group: str, spec: ProtocolSpec, encoding_format: str, txns: list[Txn], repeat: int
) -> BenchResult:
    """One protocol and encoding format on ``txns``: its rate and its baseline's."""
    config = EncoderConfig(protocol=spec.name, encoding_format=encoding_format, time_zone="UTC")
    encoder = spec.new_encoder(config, FixedClock(BASE_MS))
    rows = sum(map(len, txns))
    records = [record for txn in txns for record in encoder.encode_rows(txn).records]
    size = sum(len(record[1] or b"") + len(record[0] or b"") for record in records)

    def encode_all() -> None:
        encode_rows = encoder.encode_rows
        for txn in txns:
            encode_rows(txn)

    result = BenchResult(
        group,
        f"{spec.name} {encoding_format}",
        cpu_rate(rows, encode_all, repeat),
        bytes_per_row=round(size / rows, 1) if rows else None,
        note=f"{len(records)} records",
    )
    try:
        result.baseline, prepare = raw_baseline(spec, encoding_format)
        # the baselines read no headers (nor tombstones: no measured protocol writes one)
        pairs = [(record[0], record[1] or b"") for record in records]
        result.baseline_rows_per_s = cpu_rate(rows, prepare(pairs), repeat)
    except BaselineUnavailable as err:
        result.note += f"; no baseline: {err}"
    return result


def encoding_group(group: str, txns: list[Txn], repeat: int) -> list[BenchResult]:
    """Every protocol and encoding format; one that fails is reported, not measured."""
    results = []
    for spec, fmt in protocol_formats():
        try:
            results.append(encode_case(group, spec, fmt, txns, repeat))
        except Exception as err:
            case = f"{spec.name} {fmt}"
            results.append(BenchResult(group, case, 0.0, error=f"{type(err).__name__}: {err}"))
    return results
