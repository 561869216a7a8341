"""EncoderConfig's checks that hold for every protocol."""

from __future__ import annotations

import pytest

from tisink.codec.canal.encoder import CanalJSONEncoder
from tisink.codec.config import EncoderConfig
from tisink.codec.open.options import OpenOptions
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


def test_an_encoder_reads_its_own_protocols_options_only() -> None:
    config = EncoderConfig(protocol="open")
    assert config.options_as(OpenOptions) is config.options
    with pytest.raises(ConfigError, match="protocol open has OpenOptions options, not CanalOpt"):
        CanalJSONEncoder(config)
