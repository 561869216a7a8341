"""A SparkSession tuned for short plays: quiet, no UI; on a cluster, with tisink's environment.

``archive`` says what Python the executors of a non-local master run: ``"auto"`` packs this
environment (``environment.py``), ``"none"`` ships nothing (the executors have tisink),
anything else is the path of a packed venv (for example made by ``venv-pack``). A local master
runs its executors with this interpreter.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
from typing import Any
from urllib.parse import urlsplit

from tisink.feed.spark.driver.class_archive import class_archive_option
from tisink.feed.spark.driver.environment import (
    ARCHIVE_DIR,
    EXECUTOR_PYTHON,
    executor_archive,
    tisink_zip,
)
from tisink.feed.spark.driver.jvm_output import launch_logged_gateway, log4j_level

log = logging.getLogger(__name__)

AUTO_ARCHIVE = "auto"
NO_ARCHIVE = "none"


LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The JVM of a local master only moves shuffle bytes between Python workers and lives for
one play: C1 alone (no C2 recompiles) and the serial collector halve its start-up CPU (about
24 -> 11 CPU-s on two cores, ``bench/bench_spark_efficiency.py``) and cost the job nothing
measurable. A cluster's driver and executors keep Spark's defaults."""

ARROW_BATCH_RECORDS = 64
"""Records in an Arrow batch between the JVM and Python (Spark's default is 10,000): a feed's
exchange record is a chunk of up to 64 KB of packed rows (``exchange.CHUNK_ROWS``), so a batch
holds at most 4 MB instead of up to 640 MB on both sides. Every other record the plays hand
over is one per split or task."""

LOCAL_DRIVER_MEMORY = "512m"
"""The heap of a local master's JVM. It holds no line of a feed (the tasks read the files:
``feed_lines.py``), only the packed chunks of the feed's exchange while it sorts them, and
Spark spills a sort that outgrows it to disk. Spark's default (1g) let the heap grow to about 800 MB
at 2M rows; 512m kept it to about 600 MB for the same CPU (``bench_spark_efficiency.py``)."""

INTERPRETED_PLANS = (
    ("spark.sql.codegen.wholeStage", "false"),
    ("spark.sql.codegen.factoryMode", "NO_CODEGEN"),
)
"""The plays' DataFrame plans move a few thousand Arrow records (a split's index, a feed's
chunk of packed rows, a task's result), so the Java that Catalyst generates and compiles
(Janino) for each plan costs more than it saves: interpreted, a 400k-row feed at ``local[1]``
used 12.8-12.9 machine CPU-s against 13.3 (same run, alternating) and started 0.4 s sooner.
``factoryMode`` is an internal setting of Spark's, read as it builds each expression."""

WORKER_DAEMON = "tisink.feed.spark.tasks.worker_daemon"
"""A local master's Python daemon: PySpark's, with the tasks' modules imported before it forks
the workers."""

MASTER_KINDS = ("local", "spark://", "yarn", "k8s://", "mesos://")
"""How a Spark master URL starts (``local`` covers ``local[N]`` and ``local-cluster[...]``)."""
MASTER_CONNECT_TIMEOUT_S = 3.0
"""How long a standalone master may take to accept a connection before the play is refused:
without this check, Spark retries for about 70 s and then fails with a Py4J traceback."""


def is_local(master: str) -> bool:
    return master.startswith("local")


def check_master(master: str, timeout_s: float = MASTER_CONNECT_TIMEOUT_S) -> None:
    """Raise ValueError, in one line, for a master URL Spark cannot use or a standalone
    master (``spark://h1:7077[,h2:7077]``) none of whose hosts accepts a TCP connection."""
    if not master.startswith(MASTER_KINDS):
        kinds = ", ".join(MASTER_KINDS)
        raise ValueError(f"--master {master!r} is no Spark master URL (starts with one of {kinds})")
    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master.removeprefix("spark://").split(","):
        parts = urlsplit(f"//{address}")
        try:
            host, port = parts.hostname, parts.port or 7077
        except ValueError as err:  # a port that is no number
            raise ValueError(f"--master {master!r}: {err}") from err
        if not host:
            raise ValueError(f"--master {master!r} names no host")
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
            return
        except OSError as err:
            reasons.append(f"{host}:{port}: {err.strerror or err}")
    raise ValueError(f"cannot reach the Spark master {master} ({'; '.join(reasons)})")


def spark_session(
    master: str = "local[*]", app_name: str = "tisink-play", archive: str = AUTO_ARCHIVE
) -> Any:
    """The active SparkSession, or a new one for ``master`` (``local[*]`` or a cluster URL)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.python.worker.reuse", "true")
        .config("spark.task.maxFailures", "1")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(ARROW_BATCH_RECORDS))
    )
    for key, value in INTERPRETED_PLANS:
        builder = builder.config(key, value)
    executor_python = os.environ.get("PYSPARK_PYTHON") or sys.executable
    if is_local(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (
            builder.config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.driver.extraJavaOptions", _local_jvm_options())
            .config("spark.python.daemon.module", WORKER_DAEMON)
            .config("spark.driver.memory", LOCAL_DRIVER_MEMORY)
        )
    elif archive != NO_ARCHIVE:
        path = executor_archive() if archive == AUTO_ARCHIVE else archive
        log.info("executors run %s from %s", EXECUTOR_PYTHON, path)
        builder = builder.config("spark.archives", f"{path}#{ARCHIVE_DIR}").config(
            "spark.submit.pyFiles", str(tisink_zip())
        )
        executor_python = EXECUTOR_PYTHON
    # PySpark takes the executors' Python from PYSPARK_PYTHON when the context starts
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = executor_python
    interrupt = signal.getsignal(signal.SIGINT)
    try:
        _start_logged_jvm(builder)
        session = builder.getOrCreate()
    finally:
        if previous is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = previous
        _keep_interrupt_handler(interrupt)
    session.sparkContext.setLogLevel(log4j_level())
    return session


def _local_jvm_options() -> str:
    archive = class_archive_option(LOCAL_JVM_OPTIONS)
    return f"{LOCAL_JVM_OPTIONS} {archive}".strip()


def _start_logged_jvm(builder: Any) -> None:
    """Start the JVM (once per process; later sessions reuse it) with its console output sent
    through logging, and the SparkContext the builder's session then takes."""
    from pyspark import SparkConf, SparkContext

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    conf = SparkConf()
    for key, value in builder._options.items():
        conf.set(key, value)
    SparkContext(conf=conf, gateway=launch_logged_gateway(conf))


def _keep_interrupt_handler(handler: Any) -> None:
    """A new SparkContext makes SIGINT cancel every job at once; a caller that installed its
    own handler (``tisink play``'s clean stop) keeps it."""
    custom = callable(handler) and handler is not signal.default_int_handler
    if custom and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)
