"""The change-feed file format: its records, the streaming reader with its checks, the writer."""
