"""A Spark standalone cluster on loopback (master and worker from the pyspark package) whose
executors have no tisink: the play ships its environment and both plays verify."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.feed.spark.tasks.test_owned_workload import SELECTED, SELECTED_CONFIG
from tests.output_files import output_files
from tisink.eventsink.file import list_file_topics, read_file_topic_records

pyspark = pytest.importorskip("pyspark")

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java"
)
TISINK = str(Path(sys.executable).with_name("tisink"))
ROWS = 1500


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _environment(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would put tisink on a Python path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "SPARK_LOCAL_IP": "127.0.0.1", **extra}


def _wait_for(path: Path, text: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in path.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.3)
    raise AssertionError(f"{text!r} not in {path}:\n{path.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``(master URL, worker work dir)`` of a one-worker standalone cluster."""
    home = Path(pyspark.__file__).parent
    folder = tmp_path_factory.mktemp("cluster")
    env = _environment(SPARK_HOME=str(home), SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false")
    spark_class = ["bash", str(home / "bin" / "spark-class")]
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    work = folder / "work"
    started: list[subprocess.Popen[bytes]] = []
    try:
        logs = {}
        for role, args in (
            ("master", ["org.apache.spark.deploy.master.Master", "--port", str(port)]),
            (
                "worker",
                [
                    *("org.apache.spark.deploy.worker.Worker", "--cores", "2"),
                    *("--memory", "2g", "--work-dir", str(work), url),
                ],
            ),
        ):
            logs[role] = folder / f"{role}.log"
            with logs[role].open("wb") as log:
                command = [*spark_class, *args, "--host", "127.0.0.1", "--webui-port", "0"]
                started.append(subprocess.Popen(command, stdout=log, stderr=log, env=env))
            if role == "master":
                _wait_for(logs["master"], "I have been elected leader", started[0], 90)
        _wait_for(logs["master"], "Registering worker", started[0], 90)
        yield url, work
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def _play(url: str, tmp_path: Path, *args: str) -> dict[str, object]:
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [
            *(TISINK, "play", "--master", url, "--workload", "demo", "--rows", str(ROWS)),
            *(*args, "--summary-json", str(summary)),
        ],
        env=_environment(TISINK_CACHE_DIR=str(tmp_path.parent / "cache")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return orjson.loads(summary.read_bytes())


def test_executors_without_tisink_play_to_files_and_to_the_broker(
    cluster: tuple[str, Path], tmp_path: Path
) -> None:
    url, work = cluster
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    bare = subprocess.run(
        [base, "-c", "import tisink"], env=_environment(), cwd=tmp_path, capture_output=True
    )
    assert bare.returncode != 0, "the executors' interpreter must not have tisink"
    out = tmp_path / "files" / "out"
    (tmp_path / "files").mkdir()
    files = _play(
        url,
        tmp_path / "files",
        *("--clock", "feed", "--sink-uri", f"file://{out}?protocol=simple&partition-num=3"),
    )
    assert (files["rows"], files["verified"], files["engine"]) == (ROWS, True, "spark")
    (tmp_path / "broker").mkdir()
    broker = _play(url, tmp_path / "broker")
    assert (broker["rows"], broker["verified"]) == (ROWS, True)
    assert str(broker["sink_uri"]).startswith("kafka://127.0.0.1:")
    shipped = list(work.glob("app-*/*/environment/bin/python"))
    assert len(shipped) == 2, "each application unpacked the shipped environment"


def test_a_generated_workload_writes_the_inline_bytes_on_the_cluster(
    cluster: tuple[str, Path], tmp_path: Path
) -> None:
    """Each of the cluster's tasks builds only its partitions' rows (every table selectable:
    the sparse walk, the BOOTSTRAPs planned from the schedule; ``shop.log``, dispatched by a
    column that is no key, built whole in each); the files are inline's."""
    url, _ = cluster
    scenario, config = tmp_path / "selected.toml", tmp_path / "dispatch.toml"
    scenario.write_text(SELECTED, encoding="utf-8")
    config.write_text(SELECTED_CONFIG, encoding="utf-8")
    outputs = {}
    for engine in ("inline", "spark"):
        out = tmp_path / engine / "out"
        done = subprocess.run(
            [
                *(TISINK, "play", "--engine", engine, "--workload", str(scenario), "--seed", "3"),
                *("--config", str(config), "--clock", "feed", "--no-verify"),
                *("--sink-uri", f"file://{out}?protocol=simple&partition-num=5"),
                *(("--master", url) if engine == "spark" else ()),
            ],
            env=_environment(TISINK_CACHE_DIR=str(tmp_path / "cache")),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        outputs[engine] = output_files(out)
    assert len(outputs["inline"]) >= 5
    assert outputs["spark"] == outputs["inline"]
    inline = tmp_path / "inline" / "out"
    values = [r.value for t in list_file_topics(inline) for r in read_file_topic_records(inline, t)]
    assert sum(b'"type":"BOOTSTRAP"' in value for value in values) > 5
