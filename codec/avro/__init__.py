"""TiCDC's Avro protocol (``protocol=avro``): Confluent wire format against a schema registry."""
