"""The all-types workload played through both DTS Avro protocols into files, then read back:
``tisink verify`` passes, every record decodes with fastavro (the Alibaba stream also with the
Apache ``avro`` package), every partition holds whole transactions, and a stream missing a
BEGIN fails verify. ``tisink schema`` writes each format's ``Record.avsc``."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import avro.io
import avro.schema
import orjson
import pytest

from tests.codec.dts.avro.support import decode
from tisink.codec.dts.avro.schemas import schema_bytes
from tisink.eventsink.file import partition_file, read_file_topic
from tisink.play.run import PlaySpec, run_play
from tisink.verify import render_text, verify

TOPIC = "tidb-cdc"
ROWS = 2000
PROTOCOLS = {
    "alibaba": "protocol=alibaba-dts",
    "tencent": "protocol=tencent-dts&encoding-format=avro",
}
KIND = {"alibaba": "operation", "tencent": "messageType"}


def _play(tmp_path: Path, fmt: str) -> tuple[str, Path]:
    directory = tmp_path / fmt
    uri = f"file://{directory}?{PROTOCOLS[fmt]}&partition-num=3"
    options = PlaySpec(
        workload="all-types",
        rows=ROWS,
        sink_uri=uri,
        engine="inline",
        clock="feed",
        verify_after=False,
    )
    summary = run_play(options)
    assert summary.rows == ROWS
    return uri, directory


def _apache_reader() -> Any:
    union = avro.schema.parse(schema_bytes("alibaba").decode())
    return avro.io.DatumReader(union.schemas[-1])  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_all_types_workload_plays_and_verifies(tmp_path: Path, fmt: str) -> None:
    uri, directory = _play(tmp_path, fmt)
    report = verify(uri)
    assert report.ok, render_text(report)
    assert report.counts["INSERT"] + report.counts["UPDATE"] + report.counts["DELETE"] == ROWS
    assert report.counts["CHECKPOINT"] > 0

    apache = _apache_reader() if fmt == "alibaba" else None
    kinds: Counter[str] = Counter()
    open_gtid: dict[int, str | None] = {}
    for partition, _offset, key, value in read_file_topic(directory, TOPIC):
        assert key is None
        record = decode(fmt, value)
        if apache is not None:
            assert apache.read(avro.io.BinaryDecoder(io.BytesIO(value))) == record
        kind = record[KIND[fmt]]
        kinds[kind] += 1
        gtid = record["tags"].get("GTID") if fmt == "alibaba" else record["gtid"]
        if kind == "BEGIN":
            assert open_gtid.get(partition) is None
            open_gtid[partition] = gtid
        elif kind in ("INSERT", "UPDATE", "DELETE", "COMMIT"):
            assert open_gtid.get(partition) == gtid
            if kind == "COMMIT":
                open_gtid[partition] = None
    assert kinds["BEGIN"] == kinds["COMMIT"] > 0
    assert kinds["INSERT"] + kinds["UPDATE"] + kinds["DELETE"] == ROWS
    assert all(gtid is None for gtid in open_gtid.values())


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_a_missing_begin_fails_verify(tmp_path: Path, fmt: str) -> None:
    uri, directory = _play(tmp_path, fmt)
    for partition in range(3):
        path = partition_file(directory, TOPIC, partition)
        lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        begins = [n for n, line in enumerate(lines) if _kind(fmt, line["value"]) == "BEGIN"]
        if begins:
            del lines[begins[0]]
            renumbered = [{**line, "offset": n} for n, line in enumerate(lines)]
            path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in renumbered))
            break
    report = verify(uri)
    assert not report.ok
    assert report.violation_counts["decodable"] >= 1


def _kind(fmt: str, value: str) -> str:
    return str(decode(fmt, base64.b64decode(value))[KIND[fmt]])


@pytest.mark.parametrize(
    ("args", "fmt"),
    [(["alibaba-dts"], "alibaba"), (["tencent-dts", "--encoding-format", "avro"], "tencent")],
)
def test_tisink_schema_writes_the_record_avsc(tmp_path: Path, args: list[str], fmt: str) -> None:
    tisink = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
    done = subprocess.run(
        [tisink, "schema", *args, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["Record.avsc"]
    assert (tmp_path / "Record.avsc").read_bytes() == schema_bytes(fmt)
