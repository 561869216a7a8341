"""Floor 0: what every layer shares and that is no CDC vocabulary (clocks, the option and
config-key machinery, the root errors, Kafka framing constants). Imports nothing of tisink."""
