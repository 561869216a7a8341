"""ChangefeedConfig: the changefeed TOML (TiCDC's key names) merged with the sink URI.

A TiCDC user's file works unchanged where the feature exists. Keys tisink does not know
(``[filter]``, ``[mounter]``, a misspelt URI parameter...) are reported the same way wherever
they come from: one warning each, with the closest known key, and kept in ``ignored_keys``.
``time-zone`` is tisink's own top-level key (TiCDC takes it from the server), default None for
the process's local zone.

The config is built from the raw values of every key (``settings``: the TOML's, then the
URI's over them), so a URI that changes the protocol re-reads that protocol's own keys.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tisink.codec.config import COMMON_OPTIONS, EncoderConfig
from tisink.codec.registry import get_protocol
from tisink.core.errors import ConfigError
from tisink.core.options import build_options, convert_options
from tisink.eventsink.faults import FaultPlan
from tisink.eventsink.kafka.config import KAFKA_OPTIONS, KafkaConfig
from tisink.eventsink.router import DispatchRule
from tisink.sink.config_keys import CHANGEFEED_OPTIONS, key_index
from tisink.sink.dispatchers import dispatch_rules
from tisink.sink.errors import ChangefeedConfigError, SinkURIError
from tisink.sink.ticdc_keys import is_unimplemented_toml, is_unimplemented_uri
from tisink.sink.uri import MASK, SinkURI, is_secret_param

log = logging.getLogger(__name__)

_warned: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class _Changefeed:
    """The changefeed's own keys, parsed."""

    protocol: str = ""
    case_sensitive: bool = False
    output_raw_change_event: bool = False
    newarch: bool = True
    corruption_handle_level: str = "warn"
    encoder_concurrency: int = 0
    faults: FaultPlan | None = None


@dataclass(frozen=True)
class ChangefeedConfig:
    """Every setting the sinks read: the encoder's (``encoder``), Kafka's (``kafka``, without
    brokers and topic, which the URI gives) and the changefeed's own. ``protocol_set`` False
    means the user named no protocol: Kafka then uses simple, the file and log sinks the
    readable ``debug`` protocol (``with_protocol_default``)."""

    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    kafka: KafkaConfig = field(default_factory=KafkaConfig)
    protocol_set: bool = False
    output_raw_change_event: bool = False
    #: TiCDC's new architecture (pingcap/ticdc) or, false, the classic one (pingcap/tiflow)
    newarch: bool = True
    #: ``[integrity]``: what a row marked corrupted does: "warn" (delivered, flagged) or
    #: "error" (the changefeed stops there); only with row checksums on
    corruption_handle_level: str = "warn"
    #: MQ sinks: encoder processes (0, the default, encodes in the sink's own process)
    encoder_concurrency: int = 0
    #: MQ sinks: the delivery faults to inject (``--faults``, ``[sink] faults``)
    faults: FaultPlan | None = None
    case_sensitive: bool = False
    dispatch_rules: tuple[DispatchRule, ...] = ()
    #: raw values by key, TOML then URI: what the config was built from
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)
    #: how errors name each key: its TOML path or ``key='value'`` of the URI
    labels: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: keys found that tisink does not know
    ignored_keys: tuple[str, ...] = ()
    #: where the settings came from, for error messages
    source: str = "<defaults>"

    @property
    def protocol(self) -> str | None:
        """The protocol the user asked for; None when none was set."""
        return self.encoder.protocol if self.protocol_set else None

    def with_protocol_default(self, protocol: str) -> ChangefeedConfig:
        """This config, with ``protocol`` filled in when the user set none."""
        if self.protocol_set:
            return self
        built = _build(
            {**self.settings, "protocol": protocol}, self.labels, self.source, self.dispatch_rules
        )
        return dataclasses.replace(built, protocol_set=False, ignored_keys=self.ignored_keys)

    def with_setting(self, key: str, value: Any, label: str) -> ChangefeedConfig:
        """This config with one more setting (a command-line flag over the file's value),
        ``label`` naming where it came from in errors."""
        settings = {**self.settings, key: value}
        labels = {**self.labels, key: label}
        built = _build(settings, labels, self.source, self.dispatch_rules)
        return dataclasses.replace(
            built, protocol_set=self.protocol_set, ignored_keys=self.ignored_keys
        )

    def with_uri(self, uri: SinkURI, own_params: tuple[str, ...] | None = ()) -> ChangefeedConfig:
        """The URI's parameters override the file's values (as in TiCDC). ``own_params`` are
        the parameters the sink scheme itself reads; None (a plugin) means any parameter may
        be the scheme's, so unknown ones are not reported."""
        index = key_index()
        settings = dict(self.settings)
        labels = dict(self.labels)
        ignored = list(self.ignored_keys)
        source = f"sink URI {uri.redacted()}"
        for name, value in uri.params.items():
            if name in index.uri:
                settings[name] = value
                labels[name] = f"{name}={MASK}" if is_secret_param(name) else f"{name}={value!r}"
            elif own_params is not None and name not in own_params:
                ignored.append(name)
                _warn_unknown(source, name, index.suggestion(name), uri=True)
        if settings == dict(self.settings):
            return dataclasses.replace(self, ignored_keys=tuple(ignored))
        try:
            built = _build(settings, labels, f"{self.source} + {source}", self.dispatch_rules)
        except ChangefeedConfigError as err:
            raise SinkURIError(str(err)) from err
        return dataclasses.replace(built, ignored_keys=tuple(ignored))

    @classmethod
    def from_toml(cls, text_or_path: str | Path) -> ChangefeedConfig:
        """Read a changefeed file: a Path, a str naming an existing file, or TOML text."""
        source = "<toml>"
        if isinstance(text_or_path, Path) or (
            "\n" not in text_or_path and os.path.isfile(text_or_path)
        ):
            source = str(text_or_path)
            try:
                text = Path(text_or_path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                raise ChangefeedConfigError(f"{source}: cannot read: {err}") from err
        else:
            text = text_or_path
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ChangefeedConfigError(f"{source}: invalid TOML: {err}") from err
        return cls.from_mapping(data, source=source)

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any], *, source: str = "<mapping>"
    ) -> ChangefeedConfig:
        """Build from an already parsed TOML document."""
        settings: dict[str, Any] = {}
        labels: dict[str, str] = {}
        ignored: list[str] = []
        _collect(data, (), settings, labels, ignored)
        rules: tuple[DispatchRule, ...] = ()
        sink = data.get("sink")
        if isinstance(sink, Mapping) and "dispatchers" in sink:
            rules = dispatch_rules(sink["dispatchers"], source, ignored)
        index = key_index()
        for key in ignored:
            _warn_unknown(source, key, index.suggestion(key))
        built = _build(settings, labels, source, rules)
        return dataclasses.replace(built, ignored_keys=tuple(ignored))


def _build(
    settings: Mapping[str, Any],
    labels: Mapping[str, str],
    source: str,
    rules: tuple[DispatchRule, ...],
) -> ChangefeedConfig:
    try:
        own = build_options(_Changefeed, CHANGEFEED_OPTIONS, settings, source, labels)
        spec = get_protocol(own.protocol or "simple")
        encoder = EncoderConfig(
            protocol=spec.name,
            options=build_options(spec.options_type, spec.options, settings, source, labels),
            **convert_options(COMMON_OPTIONS, settings, source, labels),
        )
        kafka = build_options(KafkaConfig, KAFKA_OPTIONS, settings, source, labels)
    except ConfigError as err:
        message = str(err)
        raise ChangefeedConfigError(
            message if message.startswith(source) else f"{source}: {message}"
        ) from err
    return ChangefeedConfig(
        encoder=encoder,
        kafka=kafka,
        protocol_set=bool(own.protocol),
        output_raw_change_event=own.output_raw_change_event,
        newarch=own.newarch,
        corruption_handle_level=own.corruption_handle_level,
        encoder_concurrency=own.encoder_concurrency,
        faults=own.faults,
        case_sensitive=own.case_sensitive,
        dispatch_rules=rules,
        settings=dict(settings),
        labels=dict(labels),
        source=source,
    )


def _collect(
    table: Mapping[str, Any],
    path: tuple[str, ...],
    settings: dict[str, Any],
    labels: dict[str, str],
    ignored: list[str],
) -> None:
    index = key_index()
    for key, value in table.items():
        dotted = ".".join((*path, key))
        if (path, key) in index.toml and not isinstance(value, Mapping):
            settings[key] = value
            labels[key] = dotted
        elif path == ("sink",) and key == "dispatchers":
            continue
        elif isinstance(value, Mapping) and (*path, key) in index.tables:
            _collect(value, (*path, key), settings, labels, ignored)
        else:
            ignored.append(dotted)


def _warn_unknown(source: str, key: str, suggestion: str, *, uri: bool = False) -> None:
    """Once per source and key, however often the same config is read in one process; a
    TiCDC setting tisink does not implement is named as such, not as a typo."""
    if (source, key) in _warned:
        return
    _warned.add((source, key))
    if is_unimplemented_uri(key) if uri else is_unimplemented_toml(key):
        log.warning("%s: %s is a TiCDC setting tisink does not implement; ignored", source, key)
        return
    log.warning("%s: %s is not a setting tisink knows and is ignored%s", source, key, suggestion)
