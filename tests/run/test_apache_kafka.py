"""The embedded Apache Kafka: real end offsets, idempotent producers, a clean stop, one-line
errors, and jars resolved once."""

from __future__ import annotations

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
from aiokafka import AIOKafkaProducer
from confluent_kafka import Consumer, KafkaError, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.apache_kafka_fixture import apache_kafka_fixture, external_apache_kafka
from tisink.run import apache_kafka
from tisink.run.apache_kafka import ApacheKafkaError, kafka_jars, start_apache_kafka
from tisink.run.broker import answers_metadata, free_port
from tisink.run.cache import CACHE_ENV

broker = apache_kafka_fixture("module", name="broker")

embedded_only = pytest.mark.skipif(
    external_apache_kafka() is not None, reason="checks the embedded broker's own settings"
)


def _topic(partitions: int, bootstrap: str) -> str:
    name = f"t-{uuid.uuid4().hex[:12]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    new = NewTopic(name, num_partitions=partitions, replication_factor=1)
    admin.create_topics([new])[name].result(30)
    return name


def _produce(bootstrap: str, topic: str, counts: dict[int, int], **config: str) -> list[int]:
    """Send ``counts[p]`` records to each partition ``p``, lingering so that each partition's
    records go in one batch; returns the offsets the broker assigned."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 500, "batch.num.messages": 100_000, **config}
    )
    offsets: list[int] = []
    errors: list[KafkaError] = []

    def delivered(err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            errors.append(err)
        else:
            offsets.append(msg.offset())

    for partition, count in counts.items():
        for i in range(count):
            producer.produce(topic, value=b"v%d" % i, partition=partition, on_delivery=delivered)
    assert producer.flush(30) == 0
    assert errors == []
    return offsets


def _end_offsets(bootstrap: str, topic: str, partitions: int) -> list[tuple[int, int]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "tisink-watermarks"})
    try:
        return [
            consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            for p in range(partitions)
        ]
    finally:
        consumer.close()


def test_end_offset_counts_records_not_batches(broker: str) -> None:
    """Tansu answers 1 here (one batch); Kafka answers the number of records."""
    records = 250
    topic = _topic(1, broker)
    offsets = _produce(broker, topic, {0: records})
    assert sorted(offsets) == list(range(records))
    assert _end_offsets(broker, topic, 1) == [(0, records)]


def test_each_partition_has_its_own_end_offset(broker: str) -> None:
    topic = _topic(3, broker)
    _produce(broker, topic, {0: 7, 1: 0, 2: 31})
    assert _end_offsets(broker, topic, 3) == [(0, 7), (0, 0), (0, 31)]


def test_idempotent_librdkafka_producer(broker: str) -> None:
    topic = _topic(1, broker)
    offsets = _produce(broker, topic, {0: 40}, **{"enable.idempotence": "true", "acks": "all"})
    assert sorted(offsets) == list(range(40))
    assert _end_offsets(broker, topic, 1) == [(0, 40)]


async def test_idempotent_aiokafka_producer(broker: str) -> None:
    """Tansu fails aiokafka's InitProducerId; Kafka must not."""
    topic = _topic(1, broker)
    producer = AIOKafkaProducer(bootstrap_servers=broker, enable_idempotence=True)
    await producer.start()
    try:
        sent = [await producer.send(topic, b"v%d" % i, partition=0) for i in range(25)]
        offsets = [(await future).offset for future in sent]
    finally:
        await producer.stop()
    assert offsets == list(range(25))
    assert _end_offsets(broker, topic, 1) == [(0, 25)]


@embedded_only
def test_a_topic_used_before_it_exists_is_created_with_four_partitions(broker: str) -> None:
    """As Tansu does, so the two brokers are interchangeable for a producer that does not
    create its topics."""
    topic = f"auto-{uuid.uuid4().hex[:12]}"
    _produce(broker, topic, {0: 3})
    metadata = AdminClient({"bootstrap.servers": broker}).list_topics(topic, timeout=10)
    assert len(metadata.topics[topic].partitions) == 4
    assert _end_offsets(broker, topic, 4) == [(0, 3), (0, 0), (0, 0), (0, 0)]


def _processes_naming(text: str) -> list[int]:
    """Live processes whose command line mentions ``text`` (a broker's work dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            zombie = "State:\tZ" in (entry / "status").read_text()
        except OSError:
            continue
        if text in cmdline and not zombie:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_stop_leaves_no_process_port_or_files(tmp_path: Path) -> None:
    with start_apache_kafka(workdir=tmp_path) as started:
        assert started.process.poll() is None
        assert _processes_naming(str(started.workdir)) == [started.process.pid]
        assert started.log_path.is_file()
    assert started.process.returncode is not None
    assert _processes_naming(str(started.workdir)) == []
    assert not answers_metadata("127.0.0.1", started.port, timeout=0.5)
    assert not started.workdir.exists()


def _read_all(bootstrap: str, topic: str, partition: int) -> list[tuple[int, bytes | None]]:
    """(offset, value) of every record of one partition, read with confluent-kafka from the
    beginning until a second passes without one (not stopping at the end offset)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"tisink-read-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, 0)])
        found: list[tuple[int, bytes | None]] = []
        quiet_until = time.monotonic() + 10  # the first record may take a while
        while time.monotonic() < quiet_until:
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is None, message.error()
            found.append((int(message.offset() or 0), message.value()))
            quiet_until = time.monotonic() + 1.0
        return found
    finally:
        consumer.close()


@embedded_only
def test_a_killed_broker_restarted_on_its_log_dir_keeps_what_it_acknowledged(
    tmp_path: Path,
) -> None:
    """A crash (SIGKILL) and a start on the same ports and ``log_dir``: every acknowledged
    record is read back at its offset, and the offsets continue after them."""
    first = start_apache_kafka(workdir=tmp_path)
    second = None
    try:
        topic = _topic(1, first.bootstrap)
        before = _produce(first.bootstrap, topic, {0: 30}, acks="all")
        first.process.kill()
        first.process.wait()
        assert not answers_metadata("127.0.0.1", first.port, timeout=0.5)
        second = start_apache_kafka(
            first.port,
            controller_port=first.controller_port,
            log_dir=first.data_dir,
            workdir=tmp_path,
        )
        assert second.data_dir == first.data_dir and second.workdir != first.workdir
        after = _produce(second.bootstrap, topic, {0: 10}, acks="all")
        held = _read_all(second.bootstrap, topic, 0)
    finally:
        if second is not None:
            second.stop()
        first.stop()
    assert sorted(before) == list(range(30)) and sorted(after) == list(range(30, 40))
    assert held == [(n, b"v%d" % n) for n in range(30)] + [(30 + n, b"v%d" % n) for n in range(10)]
    assert not first.data_dir.exists()  # the first broker's stop removed its work dir


def _read_line(stream: object, timeout: float) -> str:
    """A line from a child's stdout, or a failure after ``timeout`` seconds."""
    assert hasattr(stream, "readline")
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no line within {timeout:g}s"
    return str(stream.readline())


@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux-only")
def test_broker_dies_with_a_killed_parent(tmp_path: Path) -> None:
    code = (
        "import sys, time; from pathlib import Path; "
        "from tisink.run.apache_kafka import start_apache_kafka; "
        "b = start_apache_kafka(workdir=Path(sys.argv[1])); "
        "print(b.process.pid, flush=True); time.sleep(120)"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        jvm = int(_read_line(parent.stdout, 120))
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while _processes_naming(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_naming(str(tmp_path)) == [], f"the JVM (pid {jvm}) outlived its parent"


def test_an_impossible_setting_is_one_line_with_the_log(tmp_path: Path) -> None:
    with pytest.raises(ApacheKafkaError) as raised:
        start_apache_kafka(properties={"num.partitions": "0"}, workdir=tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert "Invalid value 0 for configuration num.partitions" in message
    log_path = Path(message.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log_path.is_file() and log_path.is_relative_to(tmp_path)
    assert _processes_naming(str(tmp_path)) == []


def test_a_busy_port_is_one_line_with_the_log(tmp_path: Path) -> None:
    """A port given by the caller is not retried: the JVM's bind failure is the error."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ApacheKafkaError) as raised:
            start_apache_kafka(port, workdir=tmp_path, startup_timeout=60)
    message = str(raised.value)
    assert "\n" not in message
    assert f"127.0.0.1:{port}" in message and "Address already in use" in message
    assert "(log: " in message
    assert _processes_naming(str(tmp_path)) == []


# -- the jars: Maven on first use only ------------------------------------------------------

FAKE_MVN = """#!/bin/sh
# records its arguments; "copies" a jar into -DoutputDirectory, or fails like Maven
echo "$@" >> "$(dirname "$0")/calls"
for arg in "$@"; do
    case "$arg" in
        -DoutputDirectory=*) out="${arg#-DoutputDirectory=}" ;;
        -f) pom_next=1; continue ;;
    esac
    if [ -n "$pom_next" ]; then cp "$arg" "$(dirname "$0")/seen-pom.xml"; pom_next=; fi
done
if [ -n "$FAIL" ]; then
    echo "[ERROR] Failed to execute goal on project x: Could not resolve dependencies"
    echo "[ERROR] "
    echo "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch."
    exit 1
fi
mkdir -p "$out" && touch "$out/kafka_2.13-$VERSION.jar" "$out/kafka-clients-$VERSION.jar"
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
    monkeypatch.setenv("VERSION", "9.9.9")
    return bin_dir


def test_jars_already_cached_never_run_maven(
    fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = apache_kafka.jars_folder("9.9.9")
    cached.mkdir(parents=True)
    (cached / "kafka_2.13-9.9.9.jar").touch()
    monkeypatch.setenv("PATH", "")  # no mvn at all: reaching for it would fail

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"ran {args!r}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    assert kafka_jars("9.9.9") == cached
    assert not (fake_mvn / "calls").exists()


def test_first_use_resolves_into_a_versioned_folder_at_once(fake_mvn: Path) -> None:
    folder = kafka_jars("9.9.9")
    assert folder == apache_kafka.jars_folder("9.9.9")
    assert sorted(p.name for p in folder.iterdir()) == [
        "kafka-clients-9.9.9.jar",
        "kafka_2.13-9.9.9.jar",
    ]
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no staging left
    pom = (fake_mvn / "seen-pom.xml").read_text()
    assert "<artifactId>kafka_2.13</artifactId><version>9.9.9</version>" in pom
    assert "<artifactId>kafka-tools</artifactId><version>9.9.9</version>" in pom
    assert "<artifactId>slf4j-simple</artifactId>" in pom
    assert kafka_jars("9.9.9") == folder
    assert len((fake_mvn / "calls").read_text().splitlines()) == 1  # the second did not


def test_a_folder_of_the_broker_alone_is_not_taken_for_broker_and_tools(fake_mvn: Path) -> None:
    """A cache from before the tools were added (its folder named for the broker alone) does
    not stand for the jars: Maven resolves the new folder beside it, which it leaves alone."""
    old = apache_kafka.cache_dir() / "apache-kafka-9.9.9-jars"
    old.mkdir(parents=True)
    (old / "kafka_2.13-9.9.9.jar").touch()
    folder = kafka_jars("9.9.9")
    assert folder != old and "tools" in folder.name
    assert len((fake_mvn / "calls").read_text().splitlines()) == 1
    assert [p.name for p in old.iterdir()] == ["kafka_2.13-9.9.9.jar"]


def test_a_failed_resolution_is_one_line_and_leaves_no_folder(
    fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIL", "1")
    with pytest.raises(ApacheKafkaError) as raised:
        kafka_jars("9.9.9")
    message = str(raised.value)
    assert "\n" not in message
    assert "exit code 1" in message and "Could not resolve dependencies" in message
    assert "re-run Maven" not in message
    assert list(apache_kafka.cache_dir().iterdir()) == []


def test_no_maven_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ApacheKafkaError, match=r"needs Maven \(mvn\) on PATH$") as raised:
        kafka_jars("9.9.9")
    assert "\n" not in str(raised.value)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_tisink_broker_kind_apache_serves_until_interrupted(tmp_path: Path) -> None:
    """``tisink broker --kind apache``: says where it listens, holds what is produced with the
    right end offset, and exits 0 on Ctrl-C, leaving no JVM behind."""
    port = free_port()
    main = "from tisink.cli import main; main()"
    cli = subprocess.Popen(
        [sys.executable, "-c", main, "broker", "--kind", "apache", "--port", str(port)],
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
        bootstrap = f"127.0.0.1:{port}"
        assert f"(one KRaft node) listening on {bootstrap}" in "".join(seen), seen
        workdir = "".join(seen).split("(data in ", 1)[1].split(";", 1)[0]
        assert len(_processes_naming(workdir)) == 1
        topic = _topic(1, bootstrap)
        _produce(bootstrap, topic, {0: 40})
        assert _end_offsets(bootstrap, topic, 1) == [(0, 40)]
        cli.send_signal(signal.SIGINT)
        cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 0
    assert _processes_naming(workdir) == []


def test_a_cluster_id_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """The storage tool reads an id starting with "-" as an option and fails (seen in CI)."""
    drawn = iter([bytes([0xF8]) + bytes(15), bytes(16)])  # base64 "-A...", then "AAAA..."
    monkeypatch.setattr(apache_kafka.uuid, "uuid4", lambda: uuid.UUID(bytes=next(drawn)))
    cluster_id = apache_kafka.new_cluster_id()
    assert cluster_id == "A" * 22
