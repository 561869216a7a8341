"""Route and encode transactions: the one encoding interface inside the MQ DML sink.

``TxnEncoder`` takes runs of transactions and returns, in order, each one's records grouped by
partition; it never calls back into the sink. Two implement it: ``InlineEncoder`` here (in the
sink's own process) and ``encoder_group.EncoderGroup`` (TiCDC's ``encoder-concurrency``, in
other processes). Both run ``encode_txns``, so their bytes are the same.

A protocol with one message per row is routed and encoded a whole request at a time (every
txn's rows in one call: the per-call cost then falls on a request, not on each txn, which
matters where transactions are small, as a partition owner's share of them is) and split back
per txn and partition; one that frames rows together (``message_per_row`` False, e.g.
BEGIN/COMMIT around a partition's share) is routed first and encoded once per partition of
each txn, as TiCDC's MQ worker groups events by partition before it calls the encoder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from tisink.codec.encoder import RowEventEncoder
from tisink.codec.message import Record
from tisink.eventsink.mq.partition_sender import group_by_partition
from tisink.eventsink.router import EventRouter
from tisink.model.events import RowChangedEvent

Txn = tuple[Sequence[RowChangedEvent], int]
"""The rows of one transaction and the partition count of its topic."""


class EncodedTxn(NamedTuple):
    """A transaction's records by partition (each list in order), their total size, and the
    claim-check payloads to store before sending."""

    groups: list[tuple[int, list[Record]]]
    size: int
    claim_checks: list[tuple[str, bytes]]


@dataclass(frozen=True, slots=True)
class FailedTxn:
    """Why the transaction at ``index`` of a request could not be routed or encoded."""

    index: int
    reason: str


Result = list[EncodedTxn] | FailedTxn


def encode_txn(
    encoder: RowEventEncoder, router: EventRouter, rows: Sequence[RowChangedEvent], partitions: int
) -> EncodedTxn:
    targets = router.partitions_for_rows(rows, partitions)
    if encoder.message_per_row:
        encoded = encoder.encode_rows(rows)
        groups = group_by_partition(targets, encoded.records, partitions)
        return EncodedTxn(groups, encoded.size, encoded.claim_checks)
    groups = []
    size = 0
    claim_checks: list[tuple[str, bytes]] = []
    for partition, share in group_by_partition(targets, list(rows), partitions):
        encoded = encoder.encode_rows(share)
        if encoded.records:
            groups.append((partition, encoded.records))
        size += encoded.size
        claim_checks += encoded.claim_checks
    return EncodedTxn(groups, size, claim_checks)


def encode_txns(encoder: RowEventEncoder, router: EventRouter, txns: Sequence[Txn]) -> Result:
    """Each txn encoded, or the first that failed."""
    if encoder.message_per_row and len(txns) > 1:
        merged = _encode_merged(encoder, router, txns)
        if merged is not None:
            return merged
    out: list[EncodedTxn] = []
    for index, (rows, partitions) in enumerate(txns):
        try:
            out.append(encode_txn(encoder, router, rows, partitions))
        except Exception as err:
            return FailedTxn(index, f"{type(err).__name__}: {err}")
    return out


def _encode_merged(
    encoder: RowEventEncoder, router: EventRouter, txns: Sequence[Txn]
) -> list[EncodedTxn] | None:
    """The rows of every txn routed and encoded in one call each, then split back per txn.
    With one message per row a row's bytes do not depend on the rows encoded beside it (the
    clock is read once per call, and nothing changes it while a request is encoded), so this
    gives each txn the records ``encode_txn`` would, without the per-call cost for each txn (a
    partition owner sees about one row a transaction). None where it does not apply, and the
    caller then goes txn by txn: txns of topics with other partition counts, claim-check
    payloads (stored per txn), or an error (the caller finds which txn)."""
    partitions = txns[0][1]
    rows: list[RowChangedEvent] = []
    for txn_rows, count in txns:
        if count != partitions or not txn_rows:
            return None
        rows += txn_rows
    try:
        targets = router.partitions_for_rows(rows, partitions)
        encoded = encoder.encode_rows(rows)
    except Exception:
        return None
    if encoded.claim_checks:
        return None
    records = encoded.records
    sizes = [len(record[1] or b"") + len(record[0] or b"") for record in records]
    first = targets[0]
    one = first if targets.count(first) == len(targets) else None  # a partition owner's case
    out: list[EncodedTxn] = []
    start = 0
    for txn_rows, _ in txns:
        end = start + len(txn_rows)
        part = records[start:end]
        size = sizes[start] if end - start == 1 else sum(sizes[start:end])
        if one is None:
            groups = group_by_partition(targets[start:end], part, partitions)
        else:
            groups = [(one, part)]
        out.append(EncodedTxn(groups, size, []))
        start = end
    return out


class TxnEncoder(Protocol):
    """What the MQ DML sink encodes through. ``chunk_rows``: rows per request; ``window``:
    requests it keeps in flight."""

    chunk_rows: int
    window: int

    async def start(self) -> None: ...

    def submit(self, txns: Sequence[Txn]) -> asyncio.Future[Result]: ...

    async def close(self) -> None: ...


class InlineEncoder:
    """Encodes in the sink's process, at once. Requests of a few hundred rows keep the
    per-request cost off each txn while the bytes in flight still get checked often."""

    chunk_rows = 256
    window = 1

    def __init__(self, encoder: RowEventEncoder, router: EventRouter) -> None:
        self._encoder = encoder
        self._router = router

    async def start(self) -> None:
        return None

    def submit(self, txns: Sequence[Txn]) -> asyncio.Future[Result]:
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        future.set_result(encode_txns(self._encoder, self._router, txns))
        return future

    async def close(self) -> None:
        return None
