"""EncoderConfig's checks that hold for every protocol."""

from __future__ import annotations

import pytest

from tisink.codec.config import EncoderConfig
from tisink.core.errors import ConfigError

FORMATS = {"debezium": "json", "tencent-dts": "protobuf", "alibaba-dts": "avro"}


@pytest.mark.parametrize("protocol", list(FORMATS))
@pytest.mark.parametrize("option", ["handle-key-only", "claim-check"])
def test_large_message_handling_is_refused_where_the_protocol_has_none(
    protocol: str, option: str
) -> None:
    """As TiCDC's ``AdjustAndValidate``: refused when the config is read, not mid-play."""
    with pytest.raises(ConfigError, match=f"not supported by protocol {protocol}"):
        EncoderConfig(
            protocol=protocol,
            encoding_format=FORMATS[protocol],
            large_message_handle_option=option,
            claim_check_storage_uri="file:///tmp/claims",
        )


@pytest.mark.parametrize("protocol", ["simple", "open", "canal-json"])
def test_protocols_with_a_fallback_take_it(protocol: str) -> None:
    config = EncoderConfig(protocol=protocol, large_message_handle_option="handle-key-only")
    assert config.large_message_handle_option == "handle-key-only"
