"""Issue 44 item 3: capture refuses a topic that is no plain folder name before it reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from tisink.eventsink.errors import PathNameError
from tisink.replay.capture import capture_topic
from tisink.replay.kafka_source import KafkaTopicSource


class _Source:
    def __init__(self, topic: str) -> None:
        self.topic = topic

    def plan(self, *_: Any) -> list[Any]:
        raise AssertionError("the topic should be refused before the broker is asked")


@pytest.mark.parametrize("topic", ["..", "../up", "/abs"])
def test_a_topic_outside_the_folder_is_refused(tmp_path: Path, topic: str) -> None:
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(PathNameError, match="topic "):
        capture_topic(cast(KafkaTopicSource, _Source(topic)), out)
    assert not any(tmp_path.iterdir())
