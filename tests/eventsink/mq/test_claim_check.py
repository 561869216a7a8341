"""Claim-check storage: file:// locations only, written whole."""

from __future__ import annotations

import pytest

from tests.eventsink.limited import run_with_file_limit
from tisink.eventsink.mq.claim_check import ClaimCheckError, claim_check_path, store_claim_check


def test_store_writes_payload_under_nested_folders(tmp_path):
    location = f"file://{tmp_path}/a/b/c.json"
    store_claim_check(location, b"payload")
    assert (tmp_path / "a/b/c.json").read_bytes() == b"payload"
    assert not (tmp_path / "a/b/c.json.part").exists()


@pytest.mark.parametrize(
    ("location", "reason"),
    [("s3://bucket/key.json", "only file://"), ("file:///tmp/dir/", "names no file")],
)
def test_bad_locations(location, reason):
    with pytest.raises(ClaimCheckError, match=reason):
        claim_check_path(location)


def test_unwritable_location_names_it(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    location = f"file://{blocker}/x.json"
    with pytest.raises(ClaimCheckError, match="cannot write") as info:
        store_claim_check(location, b"p")
    assert location in str(info.value)


def test_a_write_refused_part_way_leaves_no_part_file(tmp_path):
    """A full disk (here: a file size limit) stops the payload part way: the error names the
    location, and neither the payload nor its ``.part`` file is left."""
    location = f"file://{tmp_path}/big.json"
    code = (
        "from tisink.eventsink.mq.claim_check import ClaimCheckError, store_claim_check\n"
        "try:\n"
        f"    store_claim_check({location!r}, b'x' * 100_000)\n"
        "except ClaimCheckError as err:\n"
        "    print(err)\n"
    )
    child = run_with_file_limit(code, 10_000)
    assert child.returncode == 0, child.stderr
    assert f"claim-check location {location!r}: cannot write" in child.stdout
    assert "File too large" in child.stdout
    assert list(tmp_path.iterdir()) == []
