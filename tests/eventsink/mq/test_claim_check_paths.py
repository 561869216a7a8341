"""Issue 44 item 3: a claim-check file is one plain name in the configured folder."""

from __future__ import annotations

import pytest

from tisink.eventsink.errors import PathNameError
from tisink.eventsink.mq.claim_check import claim_check_path


@pytest.mark.parametrize("location", ["file:///tmp/cc/..", "file:///tmp/cc/.", "file://.."])
def test_a_location_whose_file_name_leaves_the_folder_is_refused(location: str) -> None:
    with pytest.raises(PathNameError, match=f"claim-check {location!r}"):
        claim_check_path(location)


def test_a_plain_name_stays_in_its_folder() -> None:
    assert str(claim_check_path("file:///tmp/cc/0b1e.json")) == "/tmp/cc/0b1e.json"
    assert str(claim_check_path("file://rel/0b1e.json")) == "rel/0b1e.json"
