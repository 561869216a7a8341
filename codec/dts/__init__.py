"""Tencent Cloud DTS and Alibaba Cloud DTS subscription formats (spec/dts-formats.md).

``binlog`` places TiDB events on a synthetic MySQL binlog and ``mysql_codes`` describes columns
the MySQL way; both are shared by ``tencent`` (Protobuf) and the Avro forms.
"""
