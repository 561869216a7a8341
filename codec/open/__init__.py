"""TiCDC's Open Protocol (``protocol=open``): batched key and value streams of JSON events.

Where pingcap/tiflow and pingcap/ticdc differ, this package follows ticdc (the new
architecture): columns in table order (tiflow sorts them by name), ``ptn`` after ``t`` in the
key, no ``rid``, json-iterator's string and float text (``codec.debezium.jsonwriter``), and a
claim-check key that carries ``"ohk":true,"ohk":false,"ccl":...`` as ticdc writes it.
"""
