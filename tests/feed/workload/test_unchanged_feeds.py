"""The ``demo`` and ``all-types`` feeds stay byte for byte what they were before the generator
learnt multi-table transactions, key-changing UPDATEs, templates, storms and profiles.

The hashes were taken from the generator as it was before those features (issue 31); a change
to the schedule's or a table's draws for scenarios that use none of them shows up here.
"""

from __future__ import annotations

import hashlib

import pytest

from tisink.feed.workload import generate_records, record_line

BEFORE = {
    ("demo", 0, None): (100013, "ddaf056088996c0bec7853903acfaddfce4f061e3c6611f60900d2590f908abb"),
    ("demo", 42, 5000): (5013, "fb510f7ba0a53991568fafbaff4d8d697c3097889b164ba86856224ecf359c1d"),
    ("all-types", 0, None): (
        502,
        "5090c0829139b2f363a066d04487d328a3eaf58827c880ca19c233481922bcbb",
    ),
    ("all-types", 9, 2000): (
        2002,
        "a04a11ff3061f9e5a6d4019ba5f8a4b3ed09808422e75dfda005cde0a5aaffda",
    ),
}


@pytest.mark.parametrize(("name", "seed", "rows"), sorted(BEFORE, key=str))
def test_feed_bytes_unchanged(name: str, seed: int, rows: int | None) -> None:
    digest = hashlib.sha256()
    count = 0
    for record in generate_records(name, seed, rows):
        digest.update(record_line(record))
        count += 1
    assert (count, digest.hexdigest()) == BEFORE[(name, seed, rows)]
