"""The worked consumers on a source that is not there: one line naming it and a non-zero exit,
not a traceback (``min() arg is an empty sequence``) or a silent success."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "consumers"


@pytest.fixture
def consumers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))


@pytest.mark.parametrize(
    "script", ["simple_consumer.py", "naive_consumer.py", "high_water_consumer.py"]
)
@pytest.mark.parametrize("layout", ["missing", "empty"])
def test_a_file_topic_that_is_not_there_is_named_and_exits_non_zero(
    consumers: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, script: str, layout: str
) -> None:
    topic = tmp_path / "t"
    if layout == "empty":
        topic.mkdir()  # a folder with no partition files is a topic nothing was written to
    source = f"file://{topic}"
    module = importlib.import_module(script.removesuffix(".py"))
    consumer_type = getattr(module, "NaiveConsumer", None) or getattr(
        module, "HighWaterConsumer", None
    )
    main = importlib.import_module("simple_consumer").main
    monkeypatch.setattr(sys, "argv", [str(EXAMPLES / script), source, "out.db"])
    with pytest.raises(SystemExit) as exited:
        main([source, str(tmp_path / "out.db")], *([consumer_type] if consumer_type else []))
    said = exited.value.code
    assert isinstance(said, str), said  # sys.exit(message): printed to stderr, exit status 1
    assert said.startswith(f"{script}: {source}: ") and "\n" not in said
    assert not (tmp_path / "out.db").exists()
