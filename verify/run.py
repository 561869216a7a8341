"""``verify``: read a stream back from a sink and check it.

Any scheme whose provider offers a reader (``sink.capabilities.VerifiableProvider``: Kafka,
files, plugins) can be verified; the reader also says whether offsets must be continuous. A
storage layout (``file://`` with csv or canal-json) is read as files (``verify/storage.py``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from tisink.core.errors import TisinkError
from tisink.eventsink.reading import StreamReadError
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.sink.uri import mask_uri
from tisink.verify.checker import StreamChecker
from tisink.verify.errors import VerifyError
from tisink.verify.report import VerifyReport
from tisink.verify.storage import verify_storage
from tisink.verify.topics import select_topics

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_PROTOCOL = "simple"
"""Read a stream whose URI names no protocol as the Kafka sink writes it by default."""


def verify(
    sink_uri: str,
    *,
    protocol: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    topics: Sequence[str] | None = None,
    topic_pattern: str | None = None,
    config_path: Path | None = None,
    max_violations: int = 20,
    acknowledged: Mapping[tuple[str, int], int] | None = None,
    allow_empty: bool = False,
) -> VerifyReport:
    """Read every partition of the sink's topics from the beginning and decode them with the
    protocol's decoder (its registry entry), checking the rules of ``tisink.verify.checker``.
    The protocol and its settings come from the URI (over ``config_path``, a changefeed TOML
    whose dispatchers also name topics); without one, a Kafka sink's default (simple).
    ``acknowledged`` ((topic, partition) -> end offset the sink saw acknowledged, from the
    play that wrote the stream) adds the check that the partitions still hold all of it. A
    stream with nothing to read fails unless ``allow_empty``: reading nothing proves nothing.
    Raises VerifyError when the stream cannot be read; a broken stream gives ``ok`` False."""
    try:
        config = ChangefeedConfig.from_toml(config_path) if config_path else ChangefeedConfig()
        factory = SinkFactory(sink_uri, config)
    except TisinkError as err:
        raise VerifyError(f"verify {mask_uri(sink_uri)}: {err}") from err
    uri, config = factory.uri, factory.config
    try:
        layout = factory.storage_layout()
    except TisinkError as err:
        raise VerifyError(f"verify {uri.redacted()}: {err}") from err
    if layout is not None:
        if protocol and layout.encoder.protocol != protocol:
            raise VerifyError(
                f"verify {uri.redacted()}: the sink's protocol is {layout.encoder.protocol!r}, "
                f"not {protocol!r}"
            )
        if not layout.root.is_dir():
            raise VerifyError(f"verify {uri.redacted()}: no folder {layout.root}")
        report = VerifyReport(
            source=uri.redacted(),
            encoding_format=layout.encoder.encoding_format,
            max_violations=max_violations,
            allow_empty=allow_empty,
            unit="files",
        )
        return verify_storage(layout, report, acknowledged)
    if not factory.verifiable:
        raise VerifyError(f"verify cannot read {uri.scheme}:// sinks: the scheme has no reader")
    if protocol and config.protocol and protocol != config.protocol:
        raise VerifyError(
            f"verify {uri.redacted()}: the sink's protocol is {config.protocol!r}, not {protocol!r}"
        )
    config = config.with_protocol_default(protocol or DEFAULT_PROTOCOL)
    spec = config.encoder.spec
    if spec.new_decoder is None:
        raise VerifyError(f"verify cannot read protocol {spec.name!r}: it has no decoder")
    new_decoder = spec.new_decoder
    report = VerifyReport(
        source=uri.redacted(),
        encoding_format=config.encoder.encoding_format,
        max_violations=max_violations,
        allow_empty=allow_empty,
    )
    try:
        source = factory.open_record_source(config, timeout_s)
    except TisinkError as err:
        raise VerifyError(f"verify {uri.redacted()}: {err}") from err
    checker = StreamChecker(
        report,
        lambda: new_decoder(config.encoder),
        continuous_offsets=source.continuous_offsets,
    )
    target = factory.mq_target()
    try:
        with contextlib.closing(source):
            existing = source.topics()
            default_topic = target.default_topic if target is not None else ""
            report.topics = select_topics(
                default_topic,
                existing,
                topics=tuple(topics or ()),
                topic_pattern=topic_pattern,
                rules=config.dispatch_rules,
            )
            report.unfinished = source.read(report.topics, checker.check_record)
    except StreamReadError as err:
        raise VerifyError(str(err)) from err
    if acknowledged:
        checker.check_acknowledged(acknowledged)
    log.info(
        "verified %d messages of %s: %s (%d violations, %d partitions unfinished)",
        report.messages,
        ", ".join(report.topics),
        "ok" if report.ok else "failed",
        sum(report.violation_counts.values()),
        len(report.unfinished),
    )
    return report
