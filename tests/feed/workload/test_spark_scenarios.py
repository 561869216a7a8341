"""A multi-table workload on Spark: ``bank``'s transfers span ``bank.accounts`` and
``bank.transfers``, which Spark generates in different tasks; the partition files must still
be byte for byte the inline engine's (``--clock feed``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tisink.play.run import PlaySpec, run_play


def test_bank_on_spark_writes_the_inline_bytes(tmp_path: Path) -> None:
    outputs = {}
    for engine in ("inline", "spark"):
        out = tmp_path / engine
        summary = run_play(
            PlaySpec(
                workload="bank",
                rows=240,
                sink_uri=f"file://{out}?protocol=simple&partition-num=3",
                engine=engine,
                master="local[2]",
                clock="feed",
            )
        )
        assert summary.verified is True
        outputs[engine] = output_files(out)
    assert len(outputs["inline"]) == 3
    assert outputs["spark"] == outputs["inline"]
