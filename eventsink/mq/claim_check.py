"""Claim-check storage: where the full value of an oversized row goes before its stand-in is sent.

The codec does no I/O; it hands the sink ``(location, payload)`` and the sink stores the payload
there first, so a consumer that reads the small message can always fetch the full one (spec 5.3).
Only ``file://`` locations are supported: the external storages TiCDC allows (S3, GCS, Azure)
are out of tisink's scope. The file name the encoder gives (a UUID) must be one plain name in
the configured folder (``path_names``).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.path_names import path_component


class ClaimCheckError(EventSinkError):
    """A claim-check payload could not be stored; the message names the location."""


def claim_check_path(location: str) -> Path:
    """The local file behind a ``file://`` claim-check location."""
    parts = urlsplit(location)
    if parts.scheme != "file":
        raise ClaimCheckError(
            f"claim-check location {location!r}: only file:// storage is supported"
        )
    path = unquote(parts.netloc + parts.path)
    if not path or path.endswith("/"):
        raise ClaimCheckError(f"claim-check location {location!r} names no file")
    folder, _, name = path.rpartition("/")
    return Path(folder or ".") / path_component(name, "file name", f"claim-check {location!r}")


def store_claim_check(location: str, payload: bytes) -> None:
    """Write ``payload`` to ``location`` durably enough that a consumer finds it after the ack.

    The payload goes to ``<name>.part`` and is renamed into place, so ``location`` holds a
    whole payload or nothing; a failed write removes the ``.part`` file (only a process killed
    mid-write leaves one, which the next write to the location replaces)."""
    path = claim_check_path(location)
    tmp = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(payload)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise ClaimCheckError(f"claim-check location {location!r}: cannot write: {err}") from err
