"""``tisink play``: wire a source (feed or workload), an engine and a sink into one run, then
read the stream back with verify when the scheme has a reader.

Without a sink URI the embedded broker is started and the run writes Simple JSON to it, so
``tisink play`` alone is a complete demonstration: generate, encode, produce, read back, verify.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tisink.broker import start_broker
from tisink.codec.registry import get_protocol
from tisink.core.allocator import keep_large_buffers
from tisink.core.collector import rare_collections
from tisink.core.errors import TisinkError
from tisink.errors import PlayFailed, PlayRefused
from tisink.eventsink.faults.unfired import PlayedStream, not_fired
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.feed.reader import check_feed
from tisink.feed.stats import PlayStats
from tisink.feed.workload import load_scenario
from tisink.interrupt import StopRequest
from tisink.play_engines import play_inline, play_spark
from tisink.play_options import DEFAULT_WORKLOAD, PlayOptions
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.summary import RunSummary
from tisink.verify import render_text, verify

__all__ = [
    "DEFAULT_TOPIC",
    "DEFAULT_WORKLOAD",
    "PlayOptions",
    "check_play",
    "run_play",
]

log = logging.getLogger(__name__)

DEFAULT_TOPIC = "tidb-cdc"


def run_play(
    options: PlayOptions,
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
    check_play(options)
    acknowledged: AcknowledgedEnds = {}
    try:
        with _sink_uri(options.sink_uri) as sink_uri:
            if options.engine == "spark":
                summary = play_spark(options, sink_uri, started_at, acknowledged, stop, on_phase)
            else:
                with rare_collections():
                    summary = play_inline(
                        options, sink_uri, on_progress, stop, started_at, acknowledged
                    )
            if stop.signum is None:
                _faults_not_fired(options, summary, acknowledged)
                with stop.interruptible():  # Ctrl-C while reading back: stop at once
                    _verify(options, sink_uri, summary, acknowledged, on_phase)
    except PlayFailed as failure:
        _ended(failure.summary, started, stop)
        raise
    _ended(summary, started, stop)
    return summary


def _ended(summary: RunSummary, started: float, stop: StopRequest) -> None:
    """The whole command's time and the signal that stopped it, on any summary."""
    summary.elapsed_s = round(time.perf_counter() - started, 3)
    if stop.signum is not None:
        summary.stopped_by = signal.Signals(stop.signum).name


def check_play(options: PlayOptions) -> None:
    """What can be known wrong before anything starts (before a Spark session, which takes
    seconds): PlayRefused naming it."""
    try:
        if options.engine == "spark":
            check_spark(options)
        if options.feed is not None:
            check_feed(options.feed)
        else:
            scenario = load_scenario(options.workload or DEFAULT_WORKLOAD)
            scenario.check_size(options.workload_rows or scenario.rows)
        config = _config(options)
        factory = SinkFactory(options.sink_uri, config) if options.sink_uri else None
    except (TisinkError, ValueError) as err:
        raise PlayRefused(str(err)) from err
    if factory is None or options.append:
        return
    if topics := factory.leftover_topics():
        raise PlayRefused(
            f"sink {factory.uri.redacted()} already holds topic(s) {', '.join(topics)} from an "
            "earlier run: a play would continue their offsets and verify would read both runs "
            "as one stream; choose an empty target, or pass --append to continue it (verify "
            "is then skipped)"
        )


def check_spark(options: PlayOptions) -> None:
    """The master URL (a standalone master must accept a connection) and a packed
    environment to ship (``--spark-archive``, on a cluster)."""
    from tisink.feed.spark.session import AUTO_ARCHIVE, NO_ARCHIVE, check_master, is_local

    check_master(options.master)
    archive = options.spark_archive
    shipped = not is_local(options.master) and archive not in (AUTO_ARCHIVE, NO_ARCHIVE)
    if shipped and not Path(archive).is_file():
        raise ValueError(f"--spark-archive {archive}: no such file")


def _config(options: PlayOptions) -> ChangefeedConfig | None:
    """The changefeed file's config with ``--faults`` over it, as the engines build it."""
    config = ChangefeedConfig.from_toml(options.config_path) if options.config_path else None
    if options.faults is not None:
        config = (config or ChangefeedConfig()).with_setting("faults", options.faults, "--faults")
    return config


def _faults_not_fired(
    options: PlayOptions, summary: RunSummary, acknowledged: AcknowledgedEnds
) -> None:
    """The listed faults that fired 0 times, with why (either engine: from the summary)."""
    config = _config(options)
    if config is None or not config.faults:
        return
    fired = {fault["kind"] for fault in summary.faults}
    stream = PlayedStream(set(acknowledged), summary.messages, summary.checkpoint_ts)
    summary.faults_not_fired = not_fired(config.faults, fired, stream) or None


def _verify(
    options: PlayOptions,
    sink_uri: str,
    summary: RunSummary,
    acknowledged: AcknowledgedEnds,
    on_phase: Callable[[str], None] | None,
) -> None:
    """Read the stream back; ``acknowledged`` (the producers' ends, either engine) adds the
    check that the partitions still hold everything the broker acknowledged."""
    if options.append:
        log.warning("verify skipped: --append continued an earlier run's stream")
        return
    factory = SinkFactory(sink_uri, _config(options))
    if options.verify_after and _verifiable(factory):
        log.info("verifying %s", factory.uri.redacted())
        if on_phase is not None:
            on_phase(f"verifying {factory.uri.redacted()}")
        report = verify(
            sink_uri, config_path=options.config_path, acknowledged=acknowledged or None
        )
        summary.verified = report.ok
        if not report.ok:
            log.error("verify found problems:\n%s", render_text(report))


@contextlib.contextmanager
def _sink_uri(sink_uri: str | None) -> Iterator[str]:
    if sink_uri is not None:
        yield sink_uri
        return
    with start_broker() as broker:
        log.info("embedded broker on %s", broker.bootstrap)
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
