"""Splitting UPDATEs that change a PK or unique key (spec 1.3, 1.6; tiflow and ticdc)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tisink.model.events import RowChangedEvent, RowChecksum, RowOp
from tisink.tablesink.split import (
    changes_unique_key,
    split_row_stream,
    split_txn_rows,
    split_update,
)

Row = Callable[..., RowChangedEvent]
Image = Callable[..., dict[str, Any]]


@pytest.mark.parametrize(
    ("change", "split"),
    [
        ({"id": 2}, True),  # primary key
        ({"email": "new@x"}, True),  # NOT NULL unique key
        # unique but nullable: both architectures split on it too (tiflow's
        # TestTrySplitAndSortUpdateEvent "Update unique key", ticdc IsUKChanged)
        ({"nick": "new"}, True),
        ({"name": "other"}, False),  # not a key column
        ({}, False),  # no change at all
    ],
)
def test_which_updates_split(row: Row, image: Image, change: dict[str, Any], split: bool) -> None:
    before = image(1, nick="old")
    update = row(10, before=before, after={**before, **change})
    assert changes_unique_key(update) is split


def test_inserts_and_deletes_never_split(row: Row, image: Image) -> None:
    assert not changes_unique_key(row(10, after=image(1)))
    assert not changes_unique_key(row(10, before=image(1)))


def test_split_halves_keep_identity_and_zero_checksum_sides(row: Row, image: Image) -> None:
    before, after = image(1), image(2)
    checksum = RowChecksum(version=1, corrupted=False, current=111, previous=222)
    update = row(
        10,
        7,
        before=before,
        after=after,
        split_txn=True,
        physical_table_id=901,
        approximate_size=64,
        checksum=checksum,
    )
    delete, insert = split_update(update)
    assert (delete.op, delete.before, delete.after) == (RowOp.DELETE, before, None)
    assert (insert.op, insert.before, insert.after) == (RowOp.INSERT, None, after)
    for half in (delete, insert):
        assert (half.start_ts, half.commit_ts, half.table) == (7, 10, update.table)
        assert (half.split_txn, half.physical_table_id, half.approximate_size) == (True, 901, 64)
    assert delete.checksum == RowChecksum(1, False, 0, 222)
    assert insert.checksum == RowChecksum(1, False, 111, 0)
    assert update.checksum == checksum  # the original is not touched


def test_txn_rows_resorted_delete_update_insert_after_a_split(row: Row, image: Image) -> None:
    inserted = row(10, after=image(1))
    key_update = row(10, before=image(2), after=image(3))
    plain_update = row(10, before=image(4), after=image(4, name="renamed"))
    deleted = row(10, before=image(5))
    out = split_txn_rows([inserted, key_update, plain_update, deleted])
    assert [(r.op, (r.before or r.after)["id"]) for r in out] == [
        (RowOp.DELETE, 2),
        (RowOp.DELETE, 5),
        (RowOp.UPDATE, 4),
        (RowOp.INSERT, 1),
        (RowOp.INSERT, 3),
    ]


def test_no_split_means_no_resort(row: Row, image: Image) -> None:
    rows = [row(10, after=image(1)), row(10, before=image(2))]
    assert split_txn_rows(rows) is rows
    assert split_row_stream(rows) is rows


def test_row_stream_resorts_only_inside_each_txn(row: Row, image: Image) -> None:
    untouched = [row(8, 7, before=image(9)), row(9, 8, after=image(10))]
    txn_a = [row(10, 9, after=image(1)), row(10, 9, before=image(2), after=image(3))]
    txn_b = [
        row(10, 9, split_txn=True, after=image(6)),
        row(10, 9, before=image(7), after=image(8)),
    ]
    txn_c = [row(11, 10, after=image(4)), row(11, 10, before=image(5))]
    out = split_row_stream([*untouched, *txn_a, *txn_b, *txn_c])
    assert out[:2] == untouched
    assert [(r.op, r.commit_ts, (r.before or r.after)["id"]) for r in out[2:]] == [
        (RowOp.DELETE, 10, 2),  # txn a: its delete half moved first
        (RowOp.INSERT, 10, 1),
        (RowOp.INSERT, 10, 3),
        (RowOp.DELETE, 10, 7),  # txn b, cut by split_txn: sorted apart from txn a
        (RowOp.INSERT, 10, 6),
        (RowOp.INSERT, 10, 8),
        (RowOp.INSERT, 11, 4),  # txn c: nothing split, order kept
        (RowOp.DELETE, 11, 5),
    ]
