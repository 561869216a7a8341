"""TiCDC's storage sink (``file://`` with ``protocol=csv`` or ``canal-json``): change files in
TiCDC's cloud-storage layout (``paths``), written atomically and durably (``durable``), with
schema files (``schema_file``), per-directory index files and the ``metadata`` checkpoint.
``layout`` reads a layout back (``tisink verify``, tests)."""
