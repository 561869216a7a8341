"""ChangefeedConfig: the changefeed TOML (TiCDC's key names) merged with the sink URI.

A TiCDC user's file works unchanged where the feature exists; keys tisink does not implement
(``[filter]``, ``[mounter]``, ...) are kept in
``ignored_keys`` and logged, never an error. ``output-raw-change-event`` is read under ``[sink]``
(where tiflow's ``SinkConfig`` has it); ``time-zone`` is tisink's own top-level key (TiCDC takes
it from the server), default None for the process's local zone.
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

from tisink.codec.config import DEFAULT_MAX_MESSAGE_BYTES, PROTOCOLS, EncoderConfig
from tisink.codec.errors import ConfigError
from tisink.eventsink.router import DispatchRule
from tisink.model.errors import TisinkError
from tisink.sink.config_keys import KNOWN_TABLES, TOML_KEYS, URI_PARAMS
from tisink.sink.errors import ChangefeedConfigError, SinkURIError
from tisink.sink.uri import SinkURI

log = logging.getLogger(__name__)

KAFKA_CONFIG_TABLE = ("sink", "kafka-config")


@dataclass(frozen=True)
class ChangefeedConfig:
    """Every setting the sinks read. ``protocol`` None means "not set": Kafka then uses
    simple, the file and log sinks the readable ``debug`` protocol."""

    protocol: str | None = None
    encoding_format: str = "json"
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    large_message_handle_option: str = "none"
    large_message_handle_compression: str = "none"
    claim_check_storage_uri: str = ""
    claim_check_raw_value: bool = False
    send_bootstrap_interval_in_sec: int = 120
    send_bootstrap_in_msg_count: int = 10000
    send_bootstrap_to_all_partition: bool = True
    send_all_bootstrap_at_start: bool = False
    output_raw_change_event: bool = False
    #: MQ sinks: encoder processes (0, the default, encodes in the sink's own process)
    encoder_concurrency: int = 0
    integrity_check_level: str = "none"
    case_sensitive: bool = False
    time_zone: str | None = None
    dispatch_rules: tuple[DispatchRule, ...] = ()
    #: Kafka settings: None / defaults mean "not set" (the Kafka sink applies TiCDC's defaults)
    partition_num: int | None = None
    replication_factor: int = 1
    compression: str = "none"
    required_acks: int = -1
    kafka_client_id: str = ""
    auto_create_topic: bool = True
    #: the raw ``[sink.kafka-config]`` table (all keys, incl. TLS/SASL) for the Kafka sink
    kafka_config: Mapping[str, Any] = field(default_factory=dict, repr=False)
    #: dotted keys found in the TOML that tisink does not implement
    ignored_keys: tuple[str, ...] = ()
    #: where the settings came from, for error messages
    source: str = "<defaults>"

    def __post_init__(self) -> None:
        if self.protocol is not None and self.protocol not in PROTOCOLS:
            raise ChangefeedConfigError(
                f"{self.source}: unknown protocol {self.protocol!r}; tisink supports "
                f"{', '.join(PROTOCOLS)}"
            )
        try:
            _ = self.encoder_config  # validates the codec settings early
        except ConfigError as err:
            raise ChangefeedConfigError(f"{self.source}: {err}") from err

    @property
    def encoder_config(self) -> EncoderConfig:
        return EncoderConfig(
            protocol=self.protocol or "simple",
            encoding_format=self.encoding_format,
            time_zone=self.time_zone,
            max_message_bytes=self.max_message_bytes,
            large_message_handle_option=self.large_message_handle_option,
            large_message_handle_compression=self.large_message_handle_compression,
            claim_check_storage_uri=self.claim_check_storage_uri,
            claim_check_raw_value=self.claim_check_raw_value,
            enable_row_checksum=self.integrity_check_level == "correctness",
            send_bootstrap_interval_in_sec=self.send_bootstrap_interval_in_sec,
            send_bootstrap_in_msg_count=self.send_bootstrap_in_msg_count,
            send_bootstrap_to_all_partition=self.send_bootstrap_to_all_partition,
            send_all_bootstrap_at_start=self.send_all_bootstrap_at_start,
        )

    def with_protocol_default(self, protocol: str) -> ChangefeedConfig:
        """This config, with ``protocol`` filled in when the user set none."""
        return self if self.protocol else dataclasses.replace(self, protocol=protocol)

    def with_uri(self, uri: SinkURI) -> ChangefeedConfig:
        """The URI's parameters override the file's values (as in TiCDC)."""
        changes: dict[str, Any] = {}
        for name, value in uri.params.items():
            known = URI_PARAMS.get(name)
            if known is None:
                continue
            attr, convert = known
            try:
                changes[attr] = convert(value)
            except ValueError as err:
                raise SinkURIError(f"sink URI parameter {name}={value!r}: {err}") from None
        if not changes:
            return self
        try:
            return dataclasses.replace(self, **changes, source=f"{self.source} + sink URI")
        except ChangefeedConfigError as err:
            raise SinkURIError(f"sink URI {uri.redacted()}: {err}") from err

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
        values: dict[str, Any] = {}
        ignored: list[str] = []
        _collect(data, (), values, ignored, source)
        sink = data.get("sink")
        if isinstance(sink, Mapping) and "dispatchers" in sink:
            values["dispatch_rules"] = _dispatch_rules(sink["dispatchers"], source, ignored)
        kafka = sink.get("kafka-config") if isinstance(sink, Mapping) else None
        if isinstance(kafka, Mapping):
            values["kafka_config"] = {k: v for k, v in kafka.items() if not isinstance(v, Mapping)}
        for key in ignored:
            log.warning("%s: %s is not supported by tisink and is ignored", source, key)
        return cls(**values, ignored_keys=tuple(ignored), source=source)


def _collect(
    table: Mapping[str, Any],
    path: tuple[str, ...],
    values: dict[str, Any],
    ignored: list[str],
    source: str,
) -> None:
    for key, value in table.items():
        dotted = ".".join((*path, key))
        known = TOML_KEYS.get((path, key))
        if known is not None:
            attr, convert = known
            try:
                values[attr] = convert(value)
            except ValueError as err:
                raise ChangefeedConfigError(f"{source}: {dotted}: {err}") from None
        elif path == ("sink",) and key == "dispatchers":
            continue
        elif isinstance(value, Mapping) and _is_known_prefix((*path, key)):
            _collect(value, (*path, key), values, ignored, source)
        elif path != KAFKA_CONFIG_TABLE or isinstance(value, Mapping):
            # plain keys of [sink.kafka-config] (TLS, SASL...) are the Kafka sink's business
            ignored.append(dotted)


def _is_known_prefix(path: tuple[str, ...]) -> bool:
    return any(known[: len(path)] == path for known in KNOWN_TABLES)


_RULE_KEYS = ("matcher", "partition", "dispatcher", "topic", "index", "columns")


def _dispatch_rules(raw: Any, source: str, ignored: list[str]) -> tuple[DispatchRule, ...]:
    if not isinstance(raw, list):
        raise ChangefeedConfigError(f"{source}: sink.dispatchers must be a list of rules")
    rules = []
    for number, rule in enumerate(raw):
        where = f"{source}: sink.dispatchers[{number}]"
        if not isinstance(rule, Mapping):
            raise ChangefeedConfigError(f"{where}: expected a table, got {rule!r}")
        ignored.extend(f"sink.dispatchers[{number}].{k}" for k in rule if k not in _RULE_KEYS)
        matcher = _str_list(rule.get("matcher"), f"{where}.matcher")
        if not matcher:
            raise ChangefeedConfigError(f"{where}.matcher: needs at least one table filter")
        # TiCDC's deprecated ``dispatcher`` key is used only when ``partition`` is absent.
        partition = rule.get("partition") or rule.get("dispatcher") or "default"
        try:
            rules.append(
                DispatchRule(
                    matcher=matcher,
                    topic=_text(rule.get("topic", ""), f"{where}.topic"),
                    partition=_text(partition, f"{where}.partition"),
                    index=_text(rule.get("index", ""), f"{where}.index"),
                    columns=_str_list(rule.get("columns", []), f"{where}.columns"),
                )
            )
        except TisinkError as err:
            raise ChangefeedConfigError(f"{where}: {err}") from err
    return tuple(rules)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ChangefeedConfigError(f"{where}: expected a string, got {value!r}")
    return value


def _str_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ChangefeedConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)
