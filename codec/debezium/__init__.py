"""TiCDC's Debezium protocol (``protocol=debezium``): JSON keys and values in Debezium's shape.

Byte layout and type rules: spec/debezium.md sections 1 and 2. Where tiflow and ticdc differ,
this package follows ticdc (the new architecture), v8.5.5+ rules included, and with
``newarch=false`` tiflow (README.md lists the differences):

* DDL messages for every supported DDL, WATERMARKs (``op`` "m") with
  ``enable-tidb-extension`` (tiflow v8.x releases send neither; tiflow master does too).
* ``commit_ts`` and ``cluster_id`` are declared in the source schema with
  ``enable-tidb-extension`` (tiflow never declares them); ``debezium-include-start-ts`` adds
  ``start_ts`` to row values (ticdc only).
* A NULL in a binary column with a DEFAULT is written once, base64 (tiflow master writes the
  field twice).
* Virtual generated columns: see ``rows``; the handle key: see ``keys``.

Where ticdc would fail on a Go type assertion (a NULL DATE, TIME or VECTOR column whose DEFAULT
stands in), the DEFAULT is rendered as a value of the column instead (``nulls``).
"""
