"""TiCDC's Simple Protocol (``protocol=simple``): JSON and Avro marshallers and the encoder.

Byte layout and value rules: spec/simple-protocol.md sections 1-3 and 5. Where tiflow and ticdc
differ, ``newarch`` chooses (default ticdc; README.md).
"""
