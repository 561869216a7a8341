"""``tisink bench``: the standard benchmark suite, each figure next to its raw baseline.

Groups: encoding (every protocol and encoding format of the registry, on 10-column rows and on
the demo workload's rows, against the serialisation library alone: ``orjson.dumps``, fastavro's
generic writer, protobuf's generated classes), the Kafka sink (TableSink -> MQ sink -> broker
against raw aiokafka batch sends of the same bytes), and the engines (inline against Spark
``local[1]`` and ``local[2]``). Every figure is the median of repeats; the ``bench/`` scripts are
thin wrappers over these modules. The package imports nothing itself: a benchmark worker process
(``replay_worker``) must not carry the charts' matplotlib and numpy (50 MB, and OpenBLAS threads)
into the figures it measures.
"""
