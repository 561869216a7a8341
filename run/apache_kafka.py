"""An embedded Apache Kafka broker: a single KRaft node (broker and controller in one JVM).

The Tansu broker (``run/broker.py``) starts in milliseconds but is not Kafka: its high
watermark advances by one per record *batch*, so a reader cannot use ListOffsets to know it has
read everything, and aiokafka's idempotent producer fails against it. This module runs the real
thing beside it, from the official jars, on loopback, without Docker or a Kafka installation:

* The jars (``KAFKA_VERSION``) come from Maven Central on first use: ``mvn`` copies
  ``kafka_2.13`` and ``kafka-tools`` (the command-line tools: ``tisink bench`` runs its
  ``ProducerPerformance``) and their runtime dependencies, plus ``slf4j-simple`` (the jars
  declare only slf4j-api, so without a binding the broker would log nothing), into a folder of
  tisink's cache (``$TISINK_CACHE_DIR`` or ``~/.cache/tisink``), written under a temporary name
  and renamed when complete. A later start finds the folder and never runs Maven.
* Each start formats a fresh temporary log dir (``kafka.tools.StorageTool format --standalone``,
  random cluster id), then runs ``kafka.Kafka`` with a small heap and the serial GC; a start
  given ``log_dir`` (a stopped broker's ``data_dir``, on its two ports) uses it unformatted,
  as the same node restarted with what it held. It is ready
  once it answers Metadata with itself as the only broker, which Kafka does only after the node
  has registered and been unfenced (its broker listener opens last).
* Topics are auto-created on first use with ``num.partitions=4``, as Tansu does; the internal
  topics have one partition and one replica, and a consumer group starts without delay.
* Stopping sends SIGTERM (a controlled shutdown, well under a second) and kills after a grace
  period. On Linux the JVM also gets SIGTERM if the process that started it dies (strictly: the
  thread, so start it from one that outlives the broker); its temporary folder then stays.

Errors are ``ApacheKafkaError`` (a ``BrokerStartError``) with one line: what failed, the last
meaningful lines of the JVM's output, and the path of the full log, which is kept on failure.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from base64 import urlsafe_b64encode
from collections.abc import Mapping
from pathlib import Path

from tisink.run.broker import (
    LOOPBACK,
    BrokerStartError,
    answers_metadata,
    free_port,
    serve_in_foreground,
)
from tisink.run.cache import cache_dir
from tisink.run.jvm import (
    PORT_ATTEMPTS,
    JvmServer,
    PortTaken,
    launch_on_free_ports,
    log_summary,
    log_tail,
    require_java,
    spawn,
    terminate,
)
from tisink.run.maven import Artifact, MavenError, resolve_jars

log = logging.getLogger(__name__)

KAFKA_VERSION = "4.4.0"
"""The Apache Kafka release started; its jars live in a folder named after it."""
SCALA_VERSION = "2.13"
SLF4J_VERSION = "1.7.36"
"""The slf4j-api that ``kafka_2.13`` declares; ``slf4j-simple`` must match it."""
JVM_OPTIONS: tuple[str, ...] = (
    "-Xms64m",
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djava.awt.headless=true",
)
"""A test broker's JVM: a small heap, one GC thread, no stop-the-world surprises from G1's
concurrent threads on a shared machine."""
LOG_OPTIONS: tuple[str, ...] = (
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
    "-Dorg.slf4j.simpleLogger.showDateTime=true",
    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
    # the full KafkaConfig dump, about 2,000 lines a start, buries the lines that matter
    "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.common.config.AbstractConfig=warn",
)
NODE_ID = 1
BROKER_PROPERTIES: dict[str, str] = {
    "auto.create.topics.enable": "true",
    "num.partitions": "4",
    "default.replication.factor": "1",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "share.coordinator.state.topic.num.partitions": "1",
    "group.initial.rebalance.delay.ms": "0",
    "num.network.threads": "2",
    "num.io.threads": "2",
    "num.recovery.threads.per.data.dir": "1",
    # TiCDC's default max-message-bytes (10 MiB): Kafka's own default (about 1 MiB) makes the
    # sink refuse the demo workload's largest rows, as a production TiCDC on such a topic would
    "message.max.bytes": "10485760",
}
"""The settings every embedded broker gets (``properties`` of ``start_apache_kafka`` override
them): a single node's replication, small internal topics, no rebalance delay, few threads,
and room for TiCDC's largest default message."""
RESTART_PROPERTIES: dict[str, str] = {
    "broker.session.timeout.ms": "3000",
    "broker.heartbeat.interval.ms": "500",
}
"""Added for a start on an existing log dir: the restarted controller refuses the node's new
registration until the killed one's session expires (9 s by default)."""

_FORMAT_TIMEOUT_S = 60.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_BIND_FAILED = "Address already in use"


class ApacheKafkaError(BrokerStartError):
    """The embedded Apache Kafka could not be resolved or started; the message is one line."""


class ApacheKafkaBroker(JvmServer):
    """A running single-node Apache Kafka; a context manager that stops it on exit."""

    what = "Apache Kafka"

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        port: int,
        controller_port: int,
        workdir: Path,
        version: str,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__(process, port, workdir, version)
        self.controller_port = controller_port
        self.data_dir = data_dir or workdir / "data"
        """The log dir (topics and the KRaft metadata log); removed by ``stop`` only when it is
        in ``workdir``."""

    @property
    def bootstrap(self) -> str:
        """The ``host:port`` of the PLAINTEXT listener clients connect to."""
        return f"{LOOPBACK}:{self.port}"


def jars_folder(version: str = KAFKA_VERSION) -> Path:
    """Where the jars of ``version`` are kept (whether or not they are there yet). The name
    says what the folder holds: a folder of the broker's jars alone (``apache-kafka-V-jars``,
    from before the tools were added) is never taken for it."""
    return cache_dir() / f"apache-kafka-{version}-broker-tools-jars"


def kafka_artifacts(version: str = KAFKA_VERSION) -> tuple[Artifact, ...]:
    """What the folder holds: the broker, the command-line tools, a binding so that they
    log."""
    return (
        Artifact("org.apache.kafka", f"kafka_{SCALA_VERSION}", version),
        Artifact("org.apache.kafka", "kafka-tools", version),
        Artifact("org.slf4j", "slf4j-simple", SLF4J_VERSION),
    )


def kafka_jars(version: str = KAFKA_VERSION) -> Path:
    """The folder holding Apache Kafka ``version``'s jars, resolved with Maven on first use."""
    try:
        return resolve_jars(
            jars_folder(version),
            kafka_artifacts(version),
            what=f"Apache Kafka {version}'s jars",
            marker=kafka_artifacts(version)[0].jar(),
        )
    except MavenError as exc:
        raise ApacheKafkaError(str(exc)) from exc


def java_binary() -> str:
    """``$JAVA_HOME/bin/java`` or the ``java`` on PATH."""
    return require_java(ApacheKafkaError, "the embedded Apache Kafka", 17)


def start_apache_kafka(
    port: int | None = None,
    *,
    controller_port: int | None = None,
    properties: Mapping[str, str] | None = None,
    startup_timeout: float = 60.0,
    workdir: Path | None = None,
    version: str = KAFKA_VERSION,
    log_dir: Path | None = None,
) -> ApacheKafkaBroker:
    """Start a single-node Apache Kafka on ``127.0.0.1:port`` (free ports when None).

    ``properties`` add to or override ``BROKER_PROPERTIES`` (not the listeners, node id or log
    dir). The broker's files go to a new folder under ``workdir`` (the system's temporary
    folder by default). ``log_dir``: the ``data_dir`` of a broker that was stopped (killed,
    not ``stop``-ped, which removes it), used as it is, to restart that node with its topics;
    give its ``port`` and ``controller_port`` too (the controller's address is in the
    metadata log). Returns once the broker answers Metadata as the cluster's only broker.
    """
    jars = kafka_jars(version)
    java = java_binary()
    chosen_ports = port is None and controller_port is None

    def launch() -> ApacheKafkaBroker:
        broker_port = port if port is not None else free_port()
        quorum_port = controller_port if controller_port is not None else free_port()
        while quorum_port == broker_port:
            quorum_port = free_port()
        return _launch(
            java,
            jars,
            broker_port,
            quorum_port,
            properties or {},
            startup_timeout,
            workdir,
            version,
            log_dir,
        )

    return launch_on_free_ports(launch, PORT_ATTEMPTS if chosen_ports else 1)


def new_cluster_id() -> str:
    """A random cluster id as Kafka makes one (``Uuid.randomUuid``): 16 bytes in URL-safe
    base64 without padding, never starting with "-", which the storage tool's argument parser
    would take for an option (one id in 64 did)."""
    while True:
        cluster_id = urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cluster_id.startswith("-"):
            return cluster_id


def run_apache_kafka_foreground(port: int = 9092) -> int:
    """Run the embedded Apache Kafka until SIGINT/SIGTERM (``tisink broker --kind apache``);
    returns an exit code."""
    broker = start_apache_kafka(port)
    log.info(
        "Apache Kafka %s (one KRaft node) listening on %s (data in %s; Ctrl-C stops it)",
        broker.version,
        broker.bootstrap,
        broker.workdir,
    )
    return serve_in_foreground(broker)


def _launch(
    java: str,
    jars: Path,
    port: int,
    controller_port: int,
    extra: Mapping[str, str],
    startup_timeout: float,
    parent: Path | None,
    version: str,
    log_dir: Path | None = None,
) -> ApacheKafkaBroker:
    workdir = Path(tempfile.mkdtemp(prefix="tisink-kafka-", dir=parent))
    config = workdir / "server.properties"
    data = log_dir or workdir / "data"
    if log_dir is not None:
        extra = {**RESTART_PROPERTIES, **extra}
    config.write_text(_server_properties(port, controller_port, data, extra))
    log_path = workdir / "server.log"
    classpath = ["-cp", str(jars / "*")]
    started = time.monotonic()
    deadline = started + startup_timeout
    cluster_id = new_cluster_id()
    storage_tool = [java, *JVM_OPTIONS, "-XX:TieredStopAtLevel=1", *LOG_OPTIONS, *classpath]
    storage_tool += ["kafka.tools.StorageTool", "format", "--standalone"]
    storage_tool += ["--cluster-id", cluster_id, "--config", str(config)]
    if log_dir is None:
        with log_path.open("wb") as out:
            formatter = spawn(storage_tool, out)
        try:
            code = formatter.wait(max(1.0, min(_FORMAT_TIMEOUT_S, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            terminate(formatter, 5.0)
            raise _failure(version, "did not format its log dir in time", workdir) from None
        if code != 0:
            raise _failure(version, f"storage format exited with code {code}", workdir)
    server = [java, *JVM_OPTIONS, *LOG_OPTIONS, *classpath, "kafka.Kafka", str(config)]
    with log_path.open("ab") as out:
        process = spawn(server, out)
    broker = ApacheKafkaBroker(process, port, controller_port, workdir, version, data)
    while time.monotonic() < deadline:
        if process.poll() is not None:
            what = f"exited with code {process.returncode} while starting on {broker.bootstrap}"
            error = _failure(version, what, workdir)
            if _BIND_FAILED in log_tail(log_path):
                raise PortTaken(error, workdir)
            raise error
        if answers_metadata(LOOPBACK, port, timeout=0.5) and _only_broker_is_us(port):
            log.info(
                "Apache Kafka %s ready on %s in %.1fs (files in %s)",
                version,
                broker.bootstrap,
                time.monotonic() - started,
                workdir,
            )
            return broker
        time.sleep(0.05)
    terminate(process, 10.0)
    raise _failure(
        version,
        f"did not answer Metadata on {broker.bootstrap} within {startup_timeout:g}s",
        workdir,
    )


def _server_properties(
    port: int, controller_port: int, data: Path, extra: Mapping[str, str]
) -> str:
    """The node's settings: the fixed topology, then ``BROKER_PROPERTIES`` and ``extra``."""
    settings = dict(BROKER_PROPERTIES)
    settings.update(extra)
    settings.update(
        {
            "process.roles": "broker,controller",
            "node.id": str(NODE_ID),
            "listeners": f"PLAINTEXT://{LOOPBACK}:{port},CONTROLLER://{LOOPBACK}:{controller_port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "controller.quorum.bootstrap.servers": f"{LOOPBACK}:{controller_port}",
            "log.dirs": str(data),
        }
    )
    return "".join(f"{key}={_escape(value)}\n" for key, value in settings.items())


def _escape(value: str) -> str:
    """A value as java.util.Properties reads it back (backslashes are escapes there)."""
    return value.replace("\\", "\\\\").replace("\n", "\\n")


def _only_broker_is_us(port: int) -> bool:
    """True when a real client sees exactly this node at its advertised address."""
    from confluent_kafka.admin import AdminClient

    # log_level 0: a node still registering is a False here, not librdkafka lines on stderr
    client = AdminClient({"bootstrap.servers": f"{LOOPBACK}:{port}", "log_level": 0})
    try:
        metadata = client.list_topics(timeout=2.0)
    except Exception:  # KafkaException while the node is still registering
        return False
    brokers = {b.id: (b.host, b.port) for b in metadata.brokers.values()}
    return brokers == {NODE_ID: (LOOPBACK, port)}


def _failure(version: str, what: str, workdir: Path) -> ApacheKafkaError:
    """The one-line error for a start that failed; the log stays, the data goes."""
    shutil.rmtree(workdir / "data", ignore_errors=True)
    log_path = workdir / "server.log"
    return ApacheKafkaError(
        f"embedded Apache Kafka {version} {what}: {log_summary(log_path)} (log: {log_path})"
    )
