"""Simple Protocol in Avro (``encoding-format = "avro"``): the marshaller and the schema.

``AvroMarshaller`` writes the bytes directly; ``generic`` holds the schema-driven fastavro path
used to prove it byte-equal and to decode messages with the official ``message.json``.
"""

from tisink.codec.simple.avro.marshaller import AvroMarshaller

__all__ = ["AvroMarshaller"]
