"""The large-message handling every protocol with a fallback message shares (TiCDC's
``large-message-handle-option``): the claim-check storage check, the claim-check file's location
and payload, and the errors and log line around a row sent in its reduced form.

What the reduced message holds (the handle key's columns, a ``claimCheckLocation``, ``ohk``) is
each protocol's own; the encoder does no I/O: a claim-check payload travels with the records for
the sink to store.
"""

from __future__ import annotations

import base64
import logging
import uuid
from collections.abc import Callable

import orjson

from tisink.codec.compression import compressor
from tisink.codec.config import EncoderConfig
from tisink.codec.errors import MessageTooLargeError
from tisink.core.errors import ConfigError
from tisink.model.events import RowChangedEvent

log = logging.getLogger(__name__)

CLAIM_CHECK_SCHEMES = ("file://",)
"""Claim-check storages the codecs can name; the sink writes the files."""


def claim_check_prefix(config: EncoderConfig) -> str:
    """The directory part of a claim-check location ("" unless the option is claim-check);
    ConfigError for a storage the sink cannot write."""
    if config.large_message_handle_option != "claim-check":
        return ""
    uri = config.claim_check_storage_uri
    if not uri.startswith(CLAIM_CHECK_SCHEMES):
        raise ConfigError(
            f"claim-check-storage-uri {uri!r} is not supported; "
            f"use one of {', '.join(CLAIM_CHECK_SCHEMES)}"
        )
    return uri.rstrip("/") + "/"


class LargeMessages:
    """One encoder's large-message settings, read once from its config.

    ``compress`` is ``large-message-handle-compression``'s function (identity for none) and
    ``compressing`` says whether it does anything, so a per-row path can skip the call.
    """

    def __init__(
        self, config: EncoderConfig, uuid_factory: Callable[[], object] = uuid.uuid4
    ) -> None:
        self.option = config.large_message_handle_option
        self.max_bytes = config.max_message_bytes
        self.compress = compressor(config.large_message_handle_compression)
        self.compressing = config.large_message_handle_compression != "none"
        self._raw_value = config.claim_check_raw_value
        self._prefix = claim_check_prefix(config)
        self._uuid_factory = uuid_factory

    def refuse_if_none(self, row: RowChangedEvent, length: int) -> None:
        """MessageTooLargeError when the option is none: the row has no fallback."""
        if self.option == "none":
            raise MessageTooLargeError(
                f"{row.describe()}: message of {length} bytes exceeds max-message-bytes "
                f"{self.max_bytes} (large-message-handle-option=none)"
            )

    @property
    def claim_check(self) -> bool:
        return self.option == "claim-check"

    def location(self) -> str:
        """A new claim-check file's location: the storage URI and a fresh UUID."""
        return f"{self._prefix}{self._uuid_factory()}.json"

    def payload(self, value: bytes, key: bytes | None = None) -> bytes:
        """The stored file: the value raw with ``claim-check-raw-value``, else TiCDC's
        ClaimCheckMessage JSON (``key`` and ``value`` base64, a null key when there is none)."""
        if self._raw_value:
            return value
        return orjson.dumps(
            {
                "key": None if key is None else base64.b64encode(key).decode("ascii"),
                "value": base64.b64encode(value).decode("ascii"),
            }
        )

    def sent_reduced(
        self, row: RowChangedEvent, length: int, reduced: int, what: str = "message"
    ) -> None:
        """Log the fallback taken for a ``length``-byte ``what``; MessageTooLargeError when even
        its ``reduced``-byte form exceeds max-message-bytes."""
        if reduced > self.max_bytes:
            raise MessageTooLargeError(
                f"{row.describe()}: even the {self.option} message of {reduced} bytes exceeds "
                f"max-message-bytes {self.max_bytes}"
            )
        log.warning(
            "%s: %d-byte %s exceeds max-message-bytes %d, sent as %s (%d bytes)",
            row.describe(),
            length,
            what,
            self.max_bytes,
            self.option,
            reduced,
        )
