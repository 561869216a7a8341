"""Record and replay: a topic's records captured into files (``capture.py``) and sent again,
paced or at line rate, through any MQ producer (``sender.py``)."""
