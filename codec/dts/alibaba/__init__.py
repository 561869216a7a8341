"""Alibaba Cloud DTS's Avro record format (``protocol=alibaba-dts``): the registry entry, its
field values, control records, generic datums and compiled record writer. The machinery both
DTS Avro formats share (value mapping, wire, encoder, decoder, the schemas) is
``codec.dts.avro``."""
