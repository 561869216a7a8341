"""Kafka's own producer benchmark as an anchor: ``org.apache.kafka.tools.ProducerPerformance``
(what ``kafka-producer-perf-test.sh`` runs), from the embedded Apache Kafka's jars.

The tool sends values of ``record_size`` random letters, without keys, to a topic (the
producer's own partitioner spreads them over its partitions) as fast as it can (``--throughput
-1``), then prints a summary line: records acknowledged, records/s and MB/s from before the
first send to the producer closed (JVM start-up and the producer's construction not included),
the average and maximum latency and four percentiles. Its first sends also wait for the
topic's metadata and the connection, and run in a JVM that has not compiled its hot paths yet,
while the raw senders beside it connect before their clock starts (and Python compiles
nothing): so ``WARMUP_RECORDS`` more records go first (``--warmup-records``) and the figure is
the tool's "steady state" line over exactly ``records``, its whole-run line kept beside it.
Measured on two shared cores, 20,000 records of 419 bytes: 15,000-22,000 records/s over the
whole run, 50,000-57,000 after 1,000 records of warm-up, 70,000-110,000 after 20,000. Its JVM
starts with the script's options (``-Xmx512M``, G1) and logs warnings only, as the script's
``tools-log4j`` configuration does.

Its producer is set as close to the raw senders of the Kafka group as the tool allows
(``PRODUCER_SETTINGS``): acks from every replica, no compression, no idempotence (neither raw
sender has it), batches of up to 1 MiB (aiokafka's ``max_batch_size`` there; librdkafka's
default ``batch.size`` is 1,000,000 bytes) and 5 ms linger (librdkafka's default, as the raw
confluent-kafka sender has it, and the Java client's since Kafka 4.0; aiokafka's batches are
built whole before they are sent, so linger does not apply to them). What cannot be matched:
the Java producer keeps up to 5 requests in flight per connection (aiokafka there waits on one
batch per partition, librdkafka allows many), and its payloads are random letters of the mean
size of the group's values, not the values themselves.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

TOOL = "org.apache.kafka.tools.ProducerPerformance"
JVM_OPTIONS: tuple[str, ...] = (
    "-Xmx512M",
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:MaxInlineLevel=15",
    "-Djava.awt.headless=true",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
)
"""``kafka-producer-perf-test.sh``'s heap, ``kafka-run-class.sh``'s performance options, and
warnings only (the script's log configuration)."""
PRODUCER_SETTINGS: dict[str, str] = {
    "acks": "all",
    "compression.type": "none",
    "enable.idempotence": "false",
    "batch.size": str(1 << 20),
    "linger.ms": "5",
}
"""The tool's producer, as close to the raw senders as it goes (see the module's text)."""
WARMUP_RECORDS = 20_000
"""Records sent before the measured ones, for the JVM to compile the sending path (see the
module's text); a few tenths of a second."""
NAME = "Kafka ProducerPerformance (Java)"
"""The anchor's name in the bench's tables."""

_NUMBER = r"(\d+(?:\.\d+)?|NaN|Infinity)"
"""A figure as Java's ``%f`` prints it (an average over no records is NaN)."""
_SUMMARY = re.compile(
    rf"^(\d+)( steady state)? records sent, {_NUMBER} records/sec \({_NUMBER} MB/sec\), "
    rf"{_NUMBER} ms avg latency, {_NUMBER} ms max latency, (\d+) ms 50th, (\d+) ms 95th, "
    r"(\d+) ms 99th, (\d+) ms 99\.9th\.$"
)
_ERROR_LINE = re.compile(r"Exception|Error|error:|ERROR")
_QUOTE_CHARS = 300


class ProducerPerfError(RuntimeError):
    """The tool failed, or did not say what it sent; the message is one line."""


class ProducerPerfUnavailable(RuntimeError):
    """The tool cannot run here (no Java, no jars); the message is one line saying why."""


@dataclass(frozen=True)
class PerfSummary:
    """The tool's final line: over the whole run, or its steady state after warm-up records."""

    records: int
    records_per_s: float
    mb_per_s: float
    avg_ms: float
    max_ms: float
    p50_ms: int
    p95_ms: int
    p99_ms: int
    p999_ms: int
    steady_state: bool = False


@dataclass(frozen=True)
class PerfRun:
    """One run of the tool: its whole-run summary, its steady-state one (after the warm-up
    records; None without them) and the wall time of its whole JVM."""

    whole: PerfSummary
    steady: PerfSummary | None
    wall_s: float

    @property
    def measured(self) -> PerfSummary:
        """The figure the anchor is: the steady state when there was a warm-up."""
        return self.steady or self.whole

    @property
    def startup_s(self) -> float:
        """What the JVM spent outside its sending: starting, building the producer, exiting."""
        rate = self.whole.records_per_s
        return max(0.0, self.wall_s - (self.whole.records / rate if rate > 0 else 0.0))


def parse_summaries(output: str) -> list[PerfSummary]:
    """Every summary line in the tool's standard output, in order (its progress lines every
    few seconds and its notices are skipped)."""
    found = []
    for line in output.splitlines():
        match = _SUMMARY.match(line.strip())
        if match is None:
            continue
        groups = match.groups()
        found.append(
            PerfSummary(
                records=int(groups[0]),
                records_per_s=float(groups[2]),
                mb_per_s=float(groups[3]),
                avg_ms=float(groups[4]),
                max_ms=float(groups[5]),
                p50_ms=int(groups[6]),
                p95_ms=int(groups[7]),
                p99_ms=int(groups[8]),
                p999_ms=int(groups[9]),
                steady_state=groups[1] is not None,
            )
        )
    return found


def parse_summary(output: str, *, steady_state: bool = False) -> PerfSummary:
    """The tool's last summary of the whole run (``steady_state``: of the records after the
    warm-up); ProducerPerfError when the output has none."""
    chosen = [s for s in parse_summaries(output) if s.steady_state == steady_state]
    if not chosen:
        line = "'N steady state records sent, ...'" if steady_state else "'N records sent, ...'"
        raise ProducerPerfError(
            f"{TOOL} printed no summary line ({line} ending '... ms 99.9th.'): "
            f"{_quote(output) or '(no output)'}"
        )
    return chosen[-1]


def tool_command(
    java: str,
    jars: Path,
    bootstrap: str,
    topic: str,
    records: int,
    record_size: int,
    settings: dict[str, str] | None = None,
    warmup: int = 0,
) -> list[str]:
    """The tool's command line: ``warmup`` then ``records`` records of ``record_size`` bytes to
    ``topic``, unthrottled, with ``PRODUCER_SETTINGS`` (``settings`` added to or overriding
    them)."""
    properties = {**PRODUCER_SETTINGS, **(settings or {})}
    warming = ["--warmup-records", str(warmup)] if warmup else []
    return [
        java,
        *JVM_OPTIONS,
        "-cp",
        str(jars / "*"),
        TOOL,
        "--bootstrap-server",
        bootstrap,
        "--topic",
        topic,
        "--num-records",
        str(records + warmup),
        *warming,
        "--record-size",
        str(record_size),
        "--throughput",
        "-1",
        "--command-property",
        *(f"{key}={value}" for key, value in properties.items()),
    ]


def tool_runtime() -> tuple[str, Path]:
    """The ``java`` and the jars folder (resolved with Maven on first use) the tool runs from;
    ProducerPerfUnavailable saying which is missing."""
    from tisink.run.apache_kafka import ApacheKafkaError, java_binary, kafka_jars

    try:
        return java_binary(), kafka_jars()
    except ApacheKafkaError as exc:
        raise ProducerPerfUnavailable(str(exc)) from exc


def producer_performance(
    bootstrap: str,
    topic: str,
    records: int,
    record_size: int,
    *,
    warmup: int = WARMUP_RECORDS,
    settings: dict[str, str] | None = None,
    timeout: float | None = None,
) -> PerfRun:
    """Run the tool once against ``bootstrap``: ``warmup`` records, then ``records`` measured;
    its summaries must count them all as acknowledged. ProducerPerfUnavailable without Java or
    the jars, ProducerPerfError when the tool fails, times out (``timeout``: by default a
    minute plus a second per thousand records) or says it sent fewer records."""
    java, jars = tool_runtime()
    command = tool_command(java, jars, bootstrap, topic, records, record_size, settings, warmup)
    total = records + warmup
    limit = timeout if timeout is not None else 60.0 + total / 1000
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ProducerPerfError(f"{TOOL} did not finish within {limit:g}s") from exc
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise ProducerPerfError(
            f"{TOOL} exited with code {done.returncode}: "
            f"{_quote(done.stderr) or _quote(done.stdout) or '(no output)'}"
        )
    whole = parse_summary(done.stdout)
    steady = parse_summary(done.stdout, steady_state=True) if warmup else None
    for summary, expected in ((whole, total), (steady, records)):
        if summary is not None and summary.records != expected:
            raise ProducerPerfError(
                f"{TOOL} had {summary.records:,} of {expected:,} records acknowledged"
                f"{' after the warm-up' if summary.steady_state else ''}: "
                f"{_quote(done.stderr) or '(nothing on stderr)'}"
            )
    return PerfRun(whole, steady, wall)


def _quote(output: str) -> str:
    """The first line of ``output`` naming an error (else its last line), shortened."""
    lines = [" ".join(line.split()) for line in output.splitlines()]
    lines = [line for line in lines if line]
    chosen = next((line for line in lines if _ERROR_LINE.search(line)), lines[-1] if lines else "")
    return chosen if len(chosen) <= _QUOTE_CHARS else chosen[: _QUOTE_CHARS - 1] + "…"
