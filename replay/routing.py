"""Where a replayed record goes when the source and target partition counts differ."""

from enum import StrEnum


class Routing(StrEnum):
    same = "same"
    """Each record to the partition number it had (the target needs as many partitions)."""
    key = "key"
    """Kafka's default partitioner: murmur2 of the key; a null key keeps its partition
    number modulo the target's count."""
