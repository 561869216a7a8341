"""What a protocol declares to the registry (TiCDC's ``pkg/sink/codec/builder`` switch, as data).

Each protocol sub-package has a ``protocol.py`` whose ``PROTOCOL`` is one ``ProtocolSpec``; the
registry lists those modules. Nothing outside a protocol's sub-package names the protocol: the
sinks, the router, the command line and verify ask its spec.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from tisink.core.options import Option

if TYPE_CHECKING:
    from tisink.codec.decoded import DecodedMessage
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.message import Headers
    from tisink.core.clock import Clock
    from tisink.model.events import RowChecksum


class Decoder(Protocol):
    """Reads one partition's records back, as a consumer would (``tisink verify``).

    Stateful per partition, so a protocol that slices a message over several records can return
    nothing until the last slice arrives.
    """

    def decode(self, key: bytes | None, value: bytes | None) -> Sequence[DecodedMessage]:
        """The messages in one record; MessageDecodeError (codec.errors) when it is not one."""
        ...


@runtime_checkable
class SlicesMessages(Protocol):
    """A decoder whose messages may come in slices (Tencent DTS Envelopes). A later slice can
    equal an earlier message's byte for byte (a few bytes of tail), so a redelivery is judged
    by a message's first slice, which its later slices follow."""

    def slice_index(self, value: bytes | None) -> int | None:
        """The slice's place in its message (0: the first, or a whole message); None when
        ``value`` is not one."""
        ...


@runtime_checkable
class DecodesWithHeaders(Protocol):
    """A decoder that also checks a record's Kafka headers (Tencent DTS's ``ps`` sequence)."""

    def decode_with_headers(
        self, key: bytes | None, value: bytes | None, headers: Headers
    ) -> Sequence[DecodedMessage]: ...


@runtime_checkable
class ReadsChecksums(Protocol):
    """A decoder that keeps the row checksum its last record carried (Simple's ``checksum``,
    Avro's ``_tidb_*`` fields; ``integrity-check-level = "correctness"``), for verify to list
    the rows TiCDC flagged ``corrupted``."""

    last_checksum: RowChecksum | None


@runtime_checkable
class TakesTerminator(Protocol):
    """Options of a protocol whose line end the storage sink sets (``[sink] terminator``)."""

    terminator: str


@dataclass(frozen=True)
class NoOptions:
    """The options object of a protocol that has none of its own."""


ConfigT = TypeVar("ConfigT")
"""The settings the factories take, ``codec.config.EncoderConfig``: a parameter, so that this
module sits below the config module, which looks protocols up by name."""


@dataclass(frozen=True)
class ProtocolSpec(Generic[ConfigT]):
    """One wire protocol.

    ``encoding_formats`` lists the ``encoding-format`` values it takes, the default first.
    ``options`` fill ``options_type`` (a frozen dataclass whose defaults are TiCDC's).
    ``sends_bootstrap``: the MQ sinks run the bootstrap cadence for it (its options then carry
    ``codec.bootstrap.BootstrapSettings``). ``avro_topic_rules``: the router holds topic
    expressions to TiCDC's Avro rule (``{schema}`` and ``{table}`` both present).
    ``sends_heartbeat``: the MQ sinks write a HEARTBEAT to idle partitions (its options then
    carry ``codec.heartbeat.HeartbeatSettings`` and its encoders are ``HeartbeatEncoder``s).
    ``schema_files(encoding_format)`` gives the files a consumer needs to decode it (name ->
    bytes; empty when the messages carry their schema). ``new_decoder`` reads it back for
    verify; None when verify cannot check it.
    """

    name: str
    summary: str
    encoding_formats: tuple[str, ...]
    new_encoder: Callable[[ConfigT, Clock], RowEventEncoder]
    options_type: type = NoOptions
    options: tuple[Option, ...] = ()
    sends_bootstrap: bool = False
    sends_heartbeat: bool = False
    avro_topic_rules: bool = False
    schema_files: Callable[[str], Mapping[str, bytes]] = field(default=lambda _format: {})
    new_decoder: Callable[[ConfigT], Decoder] | None = None
    partition_sequence_header: str | None = None
    large_message_handling: bool = False
    """Whether ``large-message-handle-option`` (handle-key-only, claim-check) applies: TiCDC
    refuses it for protocols without a fallback message (``AdjustAndValidate``)."""
    storage_extension: str | None = None
    """The data-file extension when TiCDC's storage sink writes the protocol (``.csv``,
    ``.json``); None for protocols the storage sink does not take."""
    storage_only: bool = False
    """The protocol exists only as storage-sink files (CSV): the MQ sinks refuse it."""
    required_options: tuple[str, ...] = ()
    """Options without which its encoder refuses to start (avro's ``schema-registry``, a
    service to reach): harnesses that build every protocol with defaults skip or set these."""

    @property
    def default_encoding_format(self) -> str:
        return self.encoding_formats[0]

    def default_options(self) -> Any:
        return self.options_type()
