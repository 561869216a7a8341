"""What every run shares: its summary, measures and report, Ctrl-C handling, the written
partitions, and the embedded broker."""
