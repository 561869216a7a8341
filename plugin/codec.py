"""The changefeed's protocol, for a sink that encodes what it writes (``log://`` logs sizes).

``new_encoder(config.encoder, clock)`` builds the encoder of the configured protocol (what a
provider gets as ``config`` and ``clock``); each call of a ``RowEventEncoder`` gives records or
a ``Message``. An MQ target needs none of this: ``tisink.plugin.mq.MQSinkProvider`` encodes.
"""

from tisink.codec import new_encoder
from tisink.codec.encoder import RowEventEncoder
from tisink.codec.message import Message, MessageType

__all__ = ["Message", "MessageType", "RowEventEncoder", "new_encoder"]
