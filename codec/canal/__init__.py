"""TiCDC's canal-json protocol (``protocol=canal-json``): Alibaba Canal's flat JSON message, one
per row, with TiCDC's ``_tidb`` extension, DDL messages and ``TIDB_WATERMARK`` checkpoints."""
