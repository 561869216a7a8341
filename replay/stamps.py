"""``tisink replay 'file:///dir?protocol=P' --speed X``: a file-sink folder has no record
timestamps, so the pace comes from the commit ts its messages carry (decoded with the
protocol's decoder, the one ``tisink verify`` reads with).

A record's time is the physical part (ms) of the largest commit ts among its messages; a record
without one (a BOOTSTRAP) keeps the time of the record before it in its partition, and records
before the first known time take that one. Decoding costs CPU per record, but only a paced
replay asks for it.
"""

from __future__ import annotations

from collections.abc import Callable

from tisink.codec.errors import MessageDecodeError
from tisink.codec.protocol import Decoder
from tisink.model.tso import physical_ms
from tisink.replay.chunks import Chunk
from tisink.sink import SinkFactory


def commit_ts_stamper(source_uri: str) -> Callable[[Chunk], Chunk] | None:
    """The stamper of a ``file://`` source URI naming a protocol with a decoder; None for
    anything else (replay then refuses --speed on records without timestamps)."""
    if not source_uri.startswith("file://"):
        return None
    config = SinkFactory(source_uri).config
    if not config.protocol:
        return None
    new_decoder = config.encoder.spec.new_decoder
    if new_decoder is None:
        return None
    decoders: dict[tuple[int, int], Decoder] = {}
    last: dict[tuple[int, int], int] = {}

    def stamp(chunk: Chunk) -> Chunk:
        where = (chunk.loop, chunk.partition)
        decoder = decoders.get(where)
        if decoder is None:
            decoder = decoders[where] = new_decoder(config.encoder)
        stamps: list[int | None] = []
        for record, known in zip(chunk.records, chunk.stamps, strict=True):
            if known is None:
                try:
                    messages = decoder.decode(record[0], record[1])
                except MessageDecodeError:
                    messages = ()
                commit_ts = max((m.commit_ts for m in messages), default=0)
                if commit_ts:
                    last[where] = physical_ms(commit_ts)
                known = last.get(where)
            stamps.append(known)
        first = next((s for s in stamps if s is not None), None)
        stamps = [first if s is None else s for s in stamps]
        return chunk._replace(stamps=stamps)

    return stamp
