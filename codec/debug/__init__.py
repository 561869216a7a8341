"""tisink's ``debug`` protocol: readable JSON of each event, the file and log sinks' default."""
