"""``tisink play``: wire a source (feed or workload), an engine and a sink into one run, then
read the stream back with verify when the scheme has a reader.

Without a sink URI the embedded broker is started and the run writes Simple JSON to it, so
``tisink play`` alone is a complete demonstration: generate, encode, produce, read back, verify.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from tisink.codec.registry import get_protocol
from tisink.core.allocator import keep_large_buffers
from tisink.core.collector import rare_collections
from tisink.core.errors import TisinkError
from tisink.eventsink.faults.unfired import PlayedStream, not_fired
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.feed.format.reader import check_feed
from tisink.feed.play_spec import PlaySpec
from tisink.feed.stats import PlayStats
from tisink.feed.workload import load_scenario
from tisink.play.engines import play_inline, play_spark, redacted
from tisink.play.errors import PlayFailed, PlayRefused
from tisink.run.embedded import start_embedded_broker
from tisink.run.interrupt import StopRequest
from tisink.run.summary import RunSummary
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.verify import render_text, verify

__all__ = [
    "DEFAULT_TOPIC",
    "PlaySpec",
    "check_play",
    "run_play",
]

log = logging.getLogger(__name__)

DEFAULT_TOPIC = "tidb-cdc"
_JAVA_MAJOR = 17
"""Spark 4's oldest Java."""
_JAVA_VERSION = re.compile(r'version "([^"]+)"')
_JAVA_RELEASE = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
_JAVA_VERSION_S = 30.0
"""``java -version`` takes well under a second; a JVM that hangs is no Java to play with."""


def run_play(
    spec: PlaySpec,
    on_progress: Callable[[PlayStats], None] | None = None,
    stop: StopRequest | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play, then (for a stream in Kafka or files whose protocol has a decoder) read it back
    with verify. ``stop``: a request that ends the source early (the inline engine's Ctrl-C);
    the summary then names the signal and is not verified. ``on_progress`` gets the inline
    player's stats, ``on_phase`` a Spark play's progress line. ``elapsed_s`` is the whole run,
    verify included."""
    stop = stop or StopRequest()
    started, started_at = time.perf_counter(), time.time()
    keep_large_buffers()
    check_play(spec)
    acknowledged: AcknowledgedEnds = {}
    summary: RunSummary | None = None
    played_to = spec.sink_uri or ""
    try:
        with _sink_uri(spec) as sink_uri:
            played_to = sink_uri
            played = replace(spec, sink_uri=sink_uri)  # the embedded broker's, when started
            if spec.engine == "spark":
                summary = play_spark(played, started_at, acknowledged, stop, on_phase)
            else:
                with rare_collections():
                    summary = play_inline(played, on_progress, stop, started_at, acknowledged)
            if stop.signum is None:
                _faults_not_fired(spec, summary, acknowledged)
                with stop.interruptible():  # Ctrl-C while reading back: stop at once
                    _verify(spec, sink_uri, summary, acknowledged, on_phase)
    except PlayFailed as failure:
        _ended(failure.summary, started, stop)
        raise
    except (TisinkError, ValueError) as err:  # a sink that cannot open, a verify that fails
        failed = PlayFailed(_failed(summary, spec, played_to, err))
        _ended(failed.summary, started, stop)
        raise failed from err
    _ended(summary, started, stop)
    return summary


def _failed(
    summary: RunSummary | None, spec: PlaySpec, sink_uri: str, err: Exception
) -> RunSummary:
    """The summary of a play that stopped on ``err`` outside the engines' own accounting:
    what the engine reported when it got that far, else an empty one naming the sink."""
    if summary is None:
        summary = RunSummary(sink_uri=redacted(sink_uri), engine=spec.engine)
    summary.error = str(err)
    return summary


def _ended(summary: RunSummary, started: float, stop: StopRequest) -> None:
    """The whole command's time and the signal that stopped it, on any summary."""
    summary.elapsed_s = round(time.perf_counter() - started, 3)
    if stop.signum is not None:
        summary.stopped_by = signal.Signals(stop.signum).name


def check_play(spec: PlaySpec) -> None:
    """What can be known wrong before anything starts (before a Spark session, which takes
    seconds): PlayRefused naming it."""
    try:
        if spec.engine == "spark":
            check_spark(spec)
        if spec.feed is not None:
            check_feed(spec.feed)
        else:
            scenario = load_scenario(spec.scenario)
            scenario.check_size(spec.workload_rows or scenario.rows)
        config = _config(spec)
        factory = SinkFactory(spec.sink_uri, config) if spec.sink_uri else None
    except (TisinkError, ValueError) as err:
        raise PlayRefused(str(err)) from err
    if factory is None or spec.append:
        return
    if topics := factory.leftover_topics():
        raise PlayRefused(
            f"sink {factory.uri.redacted()} already holds topic(s) {', '.join(topics)} from an "
            "earlier run: a play would continue their offsets and verify would read both runs "
            "as one stream; choose an empty target, or pass --append to continue it (verify "
            "is then skipped)"
        )


def check_spark(spec: PlaySpec) -> None:
    """The master URL (a standalone master must accept a connection) and a packed
    environment to ship (``--spark-archive``, on a cluster)."""
    from tisink.feed.spark.driver.session import AUTO_ARCHIVE, NO_ARCHIVE, check_master, is_local

    check_java()
    check_master(spec.master)
    archive = spec.spark_archive
    shipped = not is_local(spec.master) and archive not in (AUTO_ARCHIVE, NO_ARCHIVE)
    if shipped and not Path(archive).is_file():
        raise ValueError(f"--spark-archive {archive}: no such file")


def check_java() -> None:
    """Spark's driver starts a JVM (``JAVA_HOME/bin/java``, else ``java`` on PATH, as
    ``spark-class`` picks it); without a Java 17 or later that fails with a gateway error
    that names neither Java nor the way out, so say both first."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home, "bin", "java")) if home else shutil.which("java")
    where = f"JAVA_HOME {home} has no bin/java" if home else "there is no java on PATH"
    if java is None or not os.access(java, os.X_OK):
        raise ValueError(_needs_java(where))
    version = _java_version(Path(java))
    if version is None or _java_major(version) < _JAVA_MAJOR:
        raise ValueError(_needs_java(f"{java} is Java {version or 'of unknown version'}"))


def _java_version(java: Path) -> str | None:
    """The ``JAVA_VERSION`` of the JDK's ``release`` file (no JVM started for it), else
    what ``java -version`` says."""
    release = java.resolve().parent.parent / "release"
    with contextlib.suppress(OSError):
        if found := _JAVA_RELEASE.search(release.read_text(errors="replace")):
            return found[1]
    try:
        shown = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=_JAVA_VERSION_S
        ).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _JAVA_VERSION.search(shown)
    return found[1] if found else None


def _needs_java(why: str) -> str:
    return (
        f"the Spark engine needs Java {_JAVA_MAJOR} or later and {why} (Debian/Ubuntu: "
        f"apt-get install openjdk-{_JAVA_MAJOR}-jre-headless); --engine inline needs no Java"
    )


def _java_major(version: str) -> int:
    """``17.0.15`` is 17, ``1.8.0_392`` (the old scheme) is 8."""
    parts = version.split(".")
    major = parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0]
    digits = re.match(r"\d+", major)
    return int(digits[0]) if digits else 0


def _config(spec: PlaySpec) -> ChangefeedConfig | None:
    """The changefeed file's config with ``--faults`` over it, as the engines build it."""
    config = ChangefeedConfig.from_toml(spec.config_path) if spec.config_path else None
    if spec.faults is not None:
        config = (config or ChangefeedConfig()).with_setting("faults", spec.faults, "--faults")
    return config


def _faults_not_fired(spec: PlaySpec, summary: RunSummary, acknowledged: AcknowledgedEnds) -> None:
    """The listed faults that fired 0 times, with why (either engine: from the summary)."""
    config = _config(spec)
    if config is None or not config.faults:
        return
    fired = {fault["kind"] for fault in summary.faults}
    stream = PlayedStream(set(acknowledged), summary.messages, summary.checkpoint_ts)
    summary.faults_not_fired = not_fired(config.faults, fired, stream) or None


def _verify(
    spec: PlaySpec,
    sink_uri: str,
    summary: RunSummary,
    acknowledged: AcknowledgedEnds,
    on_phase: Callable[[str], None] | None,
) -> None:
    """Read the stream back; ``acknowledged`` (the producers' ends, either engine) adds the
    check that the partitions still hold everything the broker acknowledged. An empty stream
    verifies only a play that read and delivered nothing: else what it wrote is gone."""
    if spec.append:
        log.warning("verify skipped: --append continued an earlier run's stream")
        return
    factory = SinkFactory(sink_uri, _config(spec))
    if spec.verify_after and _verifiable(factory):
        log.info("verifying %s", factory.uri.redacted())
        if on_phase is not None:
            on_phase(f"verifying {factory.uri.redacted()}")
        delivered = summary.rows or summary.ddl or any(summary.messages.values()) or acknowledged
        report = verify(
            sink_uri,
            config_path=spec.config_path,
            acknowledged=acknowledged or None,
            allow_empty=not delivered,
        )
        summary.verified = report.ok
        if not report.ok:
            log.error("verify found problems:\n%s", render_text(report))


@contextlib.contextmanager
def _sink_uri(spec: PlaySpec) -> Iterator[str]:
    if spec.sink_uri is not None:
        yield spec.sink_uri
        return
    with start_embedded_broker(spec.broker) as broker:
        log.info("embedded broker on %s (%s)", broker.bootstrap, spec.broker)
        yield f"kafka://{broker.bootstrap}/{DEFAULT_TOPIC}?protocol=simple&partition-num=3"


def _verifiable(factory: SinkFactory) -> bool:
    """A scheme whose stream can be read back, with a protocol that has a decoder."""
    if factory.storage_layout() is not None:
        return True
    protocol = factory.protocol
    return (
        factory.verifiable
        and protocol is not None
        and get_protocol(protocol).new_decoder is not None
    )
