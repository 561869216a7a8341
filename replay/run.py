"""``tisink replay``: a capture or file-sink folder, or a Kafka topic, sent again into any
MQ-like sink (Kafka with either client, files), with ``tisink play``'s summary.

A replay that fails (the broker gone, a record the target refuses) ends in ReplayStopped,
whose summary is what was acknowledged until then, as a failed play's; the Kafka clients'
retry lines are held down meanwhile (``client_noise.py``). A Kafka topic is not replayed into
itself: a target that shares a bootstrap server (host and port, the port 9092 when none is
given) and the topic with the source is refused, since the replay would read its own records
back; every pass also stops at the end the source had when the replay started. The target's
partitions are settled against the source's before the producer opens (``replay_target.py``):
a new topic gets the source's count, and a target with too few is refused with nothing created.

The summary counts records as rows (``rows_per_s`` is records a second from the command's
start to the last acknowledgement, as play's; ``writing_rows_per_s`` from the first send);
latency is from a send's hand-over to the producer until its
acknowledgement; the series and ``--report`` chart are play's. Replayed records get new
timestamps and offsets; keys, values, headers and each partition's order are the source's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tisink.core.allocator import keep_large_buffers
from tisink.core.collector import rare_collections
from tisink.core.errors import TisinkError
from tisink.eventsink.kafka.client_noise import quiet_abandoned_sends, quiet_client_retries
from tisink.eventsink.reading import StreamReadError
from tisink.replay.errors import ReplayFailed, ReplayRefused, ReplayStopped
from tisink.replay.kafka_source import KafkaTopicSource
from tisink.replay.pacing import Pacer, RatePacer, SpeedPacer
from tisink.replay.preload import PreloadedSource
from tisink.replay.routing import Routing
from tisink.replay.sender import ReplaySender, ReplayStats
from tisink.replay.sources import FolderSource, KafkaSource, ReplaySource
from tisink.replay.stamps import commit_ts_stamper
from tisink.replay.target import settle_partitions
from tisink.run.measures import Measured, apply_measures
from tisink.run.summary import RunSummary
from tisink.sink import SinkFactory
from tisink.sink.uri import parse_sink_uri
from tisink.tablesink import AckLatency


@dataclass(frozen=True)
class ReplayOptions:
    source: str
    """A folder path, or ``kafka://host:port/topic?...``."""
    sink_uri: str
    topic: str | None = None
    """The source topic of a folder holding several."""
    routing: Routing = Routing.same
    rate: float | None = None
    speed: float | None = None
    """None or ``max``: line rate."""
    loops: int = 1
    timeout_s: float = 30.0
    """A Kafka source: how long reading may go without a record."""
    preload: bool = False
    """Read the whole source into memory before the first send (``preload.py``)."""


def open_source(options: ReplayOptions) -> ReplaySource:
    """The source ``options.source`` names."""
    if "://" in options.source and not options.source.startswith("file://"):
        factory = SinkFactory(options.source)
        uri = factory.uri
        if uri.scheme != "kafka":
            raise ReplayRefused(f"replay reads folders and kafka:// topics, not {uri.scheme}://")
        kafka = factory.config.kafka.for_target(uri.hosts, uri.topic)
        return KafkaSource(KafkaTopicSource(kafka, options.timeout_s))
    path = options.source.removeprefix("file://").split("?", 1)[0]
    return FolderSource(Path(path), options.topic)


def refuse_own_source(source: str, factory: SinkFactory, topic: str) -> None:
    """ReplayRefused when ``source`` is a Kafka topic that the target (``factory``'s, sending
    to ``topic``) shares a bootstrap server and the topic with: it would read its own records
    back without end."""
    if "://" not in source or source.startswith("file://") or factory.scheme != "kafka":
        return
    uri = parse_sink_uri(source)
    if uri.scheme != "kafka" or uri.topic != topic:
        return
    shared = _servers(uri.hosts) & _servers(factory.uri.hosts)
    if shared:
        servers = ",".join(sorted(f"{host}:{port}" for host, port in shared))
        raise ReplayRefused(
            f"the target {factory.uri.redacted()} is the source, topic {topic} on {servers}: "
            "a topic replayed into itself reads its own records back without end; replay "
            "into another topic"
        )


def _servers(hosts: Sequence[str]) -> set[tuple[str, int]]:
    """Bootstrap servers as (host, port): the host's case and a trailing dot dropped, the
    port 9092 when none is given."""
    found = set()
    for host in hosts:
        parts = urlsplit(f"//{host.strip()}")
        try:
            port = parts.port or 9092
        except ValueError:  # not a port: compared as written
            found.add((host.strip().lower(), 0))
            continue
        found.add(((parts.hostname or "").rstrip("."), port))
    return found


def new_pacer(options: ReplayOptions) -> Pacer | None:
    if options.rate is not None and options.speed is not None:
        raise ReplayRefused("give --rate or --speed, not both")
    if options.rate is not None:
        if options.rate <= 0:
            raise ReplayRefused(f"--rate must be positive, got {options.rate:g}")
        return RatePacer(options.rate)
    if options.speed is not None:
        if options.speed <= 0:
            raise ReplayRefused(f"--speed must be positive or max, got {options.speed:g}")
        return SpeedPacer(options.speed)
    return None


def run_replay(
    options: ReplayOptions, on_progress: Callable[[ReplayStats], None] | None = None
) -> RunSummary:
    """Replay ``options.source`` into ``options.sink_uri``; the summary of what was
    acknowledged. ReplayFailed when it cannot start (ReplayRefused: options it will not take,
    a target that is the source or has fewer partitions than ``--routing same`` needs),
    ReplayStopped with that summary when it fails once started."""
    started, started_at = time.perf_counter(), time.time()
    if options.loops < 1:
        raise ReplayRefused(f"--loop must be at least 1, got {options.loops}")
    pacer = new_pacer(options)
    keep_large_buffers()
    try:
        factory = SinkFactory(options.sink_uri)
        target = factory.mq_target()
        if target is None:
            raise ReplayRefused(
                f"replay sends topics and partitions; {factory.scheme}:// has none "
                "(use kafka:// or file://)"
            )
        refuse_own_source(options.source, factory, target.default_topic)
        source = open_source(options)
        if options.preload:
            source = PreloadedSource(source)
    except StreamReadError as err:
        raise ReplayFailed(f"replay {options.source}: {err}") from err
    latency = AckLatency()
    stats = ReplayStats()
    failure: TisinkError | None = None
    try:
        source.start(options.loops)  # reading begins while the target opens
        with rare_collections(), quiet_client_retries():
            asyncio.run(
                _replay(
                    factory,
                    target.default_topic,
                    source,
                    options,
                    pacer,
                    latency,
                    on_progress,
                    stats,
                )
            )
    except ReplayRefused:
        raise  # nothing was sent or created: no summary
    except TisinkError as err:
        failure = err
    finally:
        source.close()
    summary = RunSummary(
        rows=stats.records,
        messages={"records": stats.records},
        bytes=stats.bytes,
        sink_uri=factory.uri.redacted(),
        engine="replay",
    )
    sending_s = stats.last_acked - stats.first_sent if stats.records else 0.0
    summary.set_timing(
        startup_s=stats.first_sent - started if stats.records else 0.0, sending_s=sending_s
    )
    apply_measures(
        summary,
        Measured(
            latency.report(),
            stats.seconds,
            started_at,
            sending_s,
            rate=options.rate,
            behind_s=pacer.behind_s(stats.last_acked) if pacer is not None else 0.0,
        ),
    )
    summary.elapsed_s = round(time.perf_counter() - started, 3)
    if failure is not None:
        summary.error = str(failure)
        raise ReplayStopped(summary) from failure
    return summary


async def _replay(
    factory: SinkFactory,
    topic: str,
    source: ReplaySource,
    options: ReplayOptions,
    pacer: Pacer | None,
    latency: AckLatency,
    on_progress: Callable[[ReplayStats], None] | None,
    stats: ReplayStats,
) -> None:
    quiet_abandoned_sends(asyncio.get_running_loop())
    target = factory.mq_target()
    assert target is not None
    partitions = await asyncio.to_thread(source.partition_count)  # before the load uses it
    loading = (
        asyncio.ensure_future(asyncio.to_thread(source.load))
        if isinstance(source, PreloadedSource)
        else None
    )  # the source loads while the target opens
    try:
        target = await settle_partitions(factory, target, source.topic, partitions, options.routing)
        opened = await factory.open_producer(target)
    except BaseException:
        if loading is not None:
            source.close()  # ends the readers, so the loading thread ends too
            await asyncio.gather(loading, return_exceptions=True)
        raise
    sender = ReplaySender(
        opened.producer,
        topic,
        routing=options.routing,
        pacer=pacer,
        on_handed=latency.batch_callback,
        stamp=commit_ts_stamper(options.source) if options.speed is not None else None,
        stats=stats,
    )
    preloaded = source if isinstance(source, PreloadedSource) else None
    ticker = asyncio.create_task(_tick(sender, on_progress, preloaded)) if on_progress else None
    try:
        if loading is not None:
            await loading
        await sender.run(source, options.loops)
    finally:
        if ticker is not None:
            ticker.cancel()
        await opened.producer.close()


async def _tick(
    sender: ReplaySender,
    on_progress: Callable[[ReplayStats], None],
    preloaded: PreloadedSource | None,
) -> None:
    """The progress every quarter second: what the load has read until the first send."""
    while True:
        await asyncio.sleep(0.25)
        stats = sender.stats
        stats.loading = preloaded.loaded if preloaded is not None and not stats.first_sent else None
        on_progress(stats)


def replay_progress(stats: ReplayStats) -> str:
    """The progress line's text."""
    if stats.loading is not None:
        records, size = stats.loading
        return f"loading the source: {records:,} records, {size / 1e6:,.1f} MB"
    return f"replayed {stats.records:,} records, {stats.bytes / 1e6:,.1f} MB"
