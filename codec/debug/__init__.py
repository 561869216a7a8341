"""tisink's ``debug`` protocol: readable JSON of each event, the file and log sinks' default."""

from tisink.codec.debug.encoder import DebugEncoder

__all__ = ["DebugEncoder"]
