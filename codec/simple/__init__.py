"""TiCDC's Simple Protocol (``protocol=simple``): JSON and Avro marshallers and the encoder.

Byte layout and value rules: spec/simple-protocol.md sections 1-3 and 5. Where tiflow and ticdc
differ, this package follows ticdc (column order, BIT as an Avro string).
"""
