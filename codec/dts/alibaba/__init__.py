"""Alibaba Cloud DTS's Avro record format (``protocol=alibaba-dts``): the registry entry.

The encoder, schema and decoder live in ``codec.dts.avro``, shared with Tencent's Avro form.
"""
