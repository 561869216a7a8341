"""The embedded schema registry (Apicurio Registry, in memory) as confluent-kafka sees it, its
clean stop, its one-line errors, ``tisink registry``, and the Maven build it needs once."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.schema_registry_fixture import external_schema_registry, schema_registry_fixture
from tisink.run import schema_registry
from tisink.run.broker import free_port
from tisink.run.cache import CACHE_ENV
from tisink.run.errors import SchemaRegistryError
from tisink.run.schema_registry import registry_app, start_schema_registry

registry = schema_registry_fixture("module", name="registry")

embedded_only = pytest.mark.skipif(
    external_schema_registry() is not None, reason="checks the embedded registry itself"
)

ROW_V1 = {
    "type": "record",
    "name": "Row",
    "namespace": "tisink.test",
    "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}],
}
ROW_V2 = {
    **ROW_V1,
    "fields": [*ROW_V1["fields"], {"name": "note", "type": ["null", "string"], "default": None}],
}


def _subject() -> str:
    return f"tisink-{uuid.uuid4().hex[:12]}-value"


def test_register_get_by_id_and_evolve_through_confluent_kafka(registry: str) -> None:
    client = SchemaRegistryClient({"url": registry})
    subject = _subject()
    first = client.register_schema(subject, Schema(json.dumps(ROW_V1), "AVRO"))
    assert json.loads(client.get_schema(first).schema_str) == ROW_V1
    assert client.register_schema(subject, Schema(json.dumps(ROW_V1), "AVRO")) == first
    second = client.register_schema(subject, Schema(json.dumps(ROW_V2), "AVRO"))
    assert second != first
    latest = client.get_latest_version(subject)
    assert (latest.version, latest.schema_id) == (2, second)
    assert json.loads(latest.schema.schema_str) == ROW_V2
    assert client.get_versions(subject) == [1, 2]
    assert subject in client.get_subjects()


def test_avro_serializer_and_deserializer_round_trip(registry: str) -> None:
    client = SchemaRegistryClient({"url": registry})
    topic = f"t-{uuid.uuid4().hex[:12]}"
    context = SerializationContext(topic, MessageField.VALUE)
    old = AvroSerializer(client, json.dumps(ROW_V1))({"id": 1, "name": "a"}, context)
    new = AvroSerializer(client, json.dumps(ROW_V2))({"id": 2, "name": "b", "note": "n"}, context)
    assert old is not None and new is not None
    assert old[0] == 0 and new[0] == 0  # Confluent's wire format: magic byte, schema id, Avro
    ids = [int.from_bytes(data[1:5], "big") for data in (old, new)]
    assert ids[0] != ids[1]
    assert [v.schema_id for v in map(client.get_version, [topic + "-value"] * 2, [1, 2])] == ids
    deserializer = AvroDeserializer(client)
    assert deserializer(old, context) == {"id": 1, "name": "a"}
    assert deserializer(new, context) == {"id": 2, "name": "b", "note": "n"}
    # a reader on the newer schema reads the older record with the new field's default
    reader = AvroDeserializer(client, json.dumps(ROW_V2))
    assert reader(old, context) == {"id": 1, "name": "a", "note": None}


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, is not running)."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@embedded_only
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_stop_leaves_no_process_port_or_files(tmp_path: Path) -> None:
    with start_schema_registry(workdir=tmp_path) as started:
        assert started.url == f"http://127.0.0.1:{started.port}/apis/ccompat/v6"
        assert _alive(started.process.pid) and _listening(started.port)
        assert started.log_path.is_file() and started.workdir.parent == tmp_path
    assert started.process.returncode is not None
    assert not _alive(started.process.pid)
    assert not _listening(started.port)
    assert not started.workdir.exists()


def _log_of(message: str, tmp_path: Path) -> Path:
    log_path = Path(message.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log_path.is_file() and log_path.is_relative_to(tmp_path)
    return log_path


@embedded_only
def test_a_busy_port_is_one_line_with_the_log(tmp_path: Path) -> None:
    """A port given by the caller is not retried: the JVM's bind failure is the error."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SchemaRegistryError) as raised:
            start_schema_registry(port, workdir=tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert f"127.0.0.1:{port}" in message and "in use by another process" in message
    _log_of(message, tmp_path)


@embedded_only
def test_a_bad_setting_is_one_line_with_the_log(tmp_path: Path) -> None:
    with pytest.raises(SchemaRegistryError) as raised:
        start_schema_registry(properties={"quarkus.log.level": "LOUD"}, workdir=tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert "quarkus.log.level" in message and 'Unknown level "LOUD"' in message
    _log_of(message, tmp_path)


def _read_line(stream: object, timeout: float) -> str:
    """A line from a child's stream, or a failure after ``timeout`` seconds."""
    assert hasattr(stream, "readline")
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no line within {timeout:g}s"
    return str(stream.readline())


@embedded_only
@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux-only")
def test_the_registry_dies_with_a_killed_parent(tmp_path: Path) -> None:
    code = (
        "import sys, time; from pathlib import Path; "
        "from tisink.run.schema_registry import start_schema_registry; "
        "r = start_schema_registry(workdir=Path(sys.argv[1])); "
        "print(r.process.pid, r.port, flush=True); time.sleep(120)"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        jvm, port = map(int, _read_line(parent.stdout, 120).split())
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while _alive(jvm) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(jvm), f"the registry's JVM (pid {jvm}) outlived its parent"
    assert not _listening(port)


MAIN = "from tisink.cli import main; main()"


@embedded_only
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_tisink_registry_serves_until_interrupted() -> None:
    """``tisink registry``: says where it listens, serves confluent-kafka there, and exits 0
    on Ctrl-C, leaving no JVM behind."""
    port = free_port()
    cli = subprocess.Popen(
        [sys.executable, "-c", MAIN, "registry", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert cli.stderr is not None
        seen = []
        for line in cli.stderr:
            seen.append(line)
            if "listening on" in line:
                break
        url = f"http://127.0.0.1:{port}/apis/ccompat/v6"
        assert f"listening on {url} " in "".join(seen), seen
        jvms = subprocess.run(
            ["pgrep", "-P", str(cli.pid)], capture_output=True, text=True, check=True
        ).stdout.split()
        assert len(jvms) == 1
        client = SchemaRegistryClient({"url": url})
        assert client.register_schema(_subject(), Schema(json.dumps(ROW_V1), "AVRO")) >= 0
        cli.send_signal(signal.SIGINT)
        cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 0
    assert not _alive(int(jvms[0]))
    assert not _listening(port)


@embedded_only
def test_tisink_registry_on_a_busy_port_says_so_in_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cli = subprocess.run(
            [sys.executable, "-c", MAIN, "registry", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert cli.returncode == 2, cli.stderr
    lines = cli.stderr.strip().splitlines()
    assert len(lines) == 1, cli.stderr
    assert lines[0].startswith("registry failed:"), lines[0]
    assert f"127.0.0.1:{port}" in lines[0] and "in use by another process" in lines[0]


# -- the build: Maven on first use only -----------------------------------------------------

FAKE_MVN = """#!/bin/sh
# records its arguments; "builds" the Quarkus app beside the pom given with -f, or fails
echo "$@" >> "$(dirname "$0")/calls"
for arg in "$@"; do
    if [ -n "$pom_next" ]; then pom="$arg"; pom_next=; fi
    [ "$arg" = "-f" ] && pom_next=1
done
cp "$pom" "$(dirname "$0")/seen-pom.xml"
if [ -n "$FAIL" ]; then
    echo "[ERROR] Failed to execute goal io.quarkus:quarkus-maven-plugin:build: Failed to build"
    echo "[ERROR] "
    echo "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch."
    exit 1
fi
app="$(dirname "$pom")/target/quarkus-app"
mkdir -p "$app/lib" && touch "$app/quarkus-run.jar" "$app/lib/a.jar"
"""


@pytest.fixture
def fake_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``mvn`` on PATH that never touches the network, and an empty cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN)
    mvn.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return bin_dir


def test_first_use_builds_into_a_versioned_folder_at_once(fake_mvn: Path) -> None:
    folder = registry_app("9.9.9")
    assert folder == schema_registry.app_folder("9.9.9")
    assert sorted(p.name for p in folder.iterdir()) == ["lib", "quarkus-run.jar"]
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no staging left
    calls = (fake_mvn / "calls").read_text().splitlines()
    assert len(calls) == 1 and calls[0].endswith(" package")
    assert "-D%prod.quarkus.package.type=fast-jar" in calls[0]
    pom = (fake_mvn / "seen-pom.xml").read_text()
    app = "<artifactId>apicurio-registry-app</artifactId><version>9.9.9</version>"
    assert pom.count(app) == 2  # a dependency, and the jar unpacked as the app's classes
    assert "<artifactId>apicurio-registry</artifactId><version>9.9.9</version>" in pom
    assert (
        f"<artifactId>quarkus-maven-plugin</artifactId><version>{schema_registry.QUARKUS_VERSION}<"
        in pom
    )
    assert "<artifactId>apicurio-registry-ui</artifactId></exclusion>" in pom
    assert "<groupId>com.github.erosb</groupId>" in pom
    assert registry_app("9.9.9") == folder
    assert len((fake_mvn / "calls").read_text().splitlines()) == 1  # the second did not


def test_an_app_already_built_never_runs_maven(
    fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = schema_registry.app_folder("9.9.9")
    built.mkdir(parents=True)
    (built / "quarkus-run.jar").touch()
    monkeypatch.setenv("PATH", "")  # no mvn at all: reaching for it would fail

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"ran {args!r}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    assert registry_app("9.9.9") == built
    assert not (fake_mvn / "calls").exists()


def test_a_failed_build_is_one_line_and_leaves_no_folder(
    fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIL", "1")
    with pytest.raises(SchemaRegistryError) as raised:
        registry_app("9.9.9")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("Maven could not build Apicurio Registry 9.9.9 (exit code 1): ")
    assert "quarkus-maven-plugin:build" in message and "re-run Maven" not in message
    assert list(schema_registry.cache_dir().iterdir()) == []


def test_no_maven_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(SchemaRegistryError, match=r"needs Maven \(mvn\) on PATH$") as raised:
        registry_app("9.9.9")
    assert "\n" not in str(raised.value)
