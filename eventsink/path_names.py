"""Names from the data as single path components under a sink's root.

Every sink that turns a schema, table or topic name into a file or directory name (the storage
layout, the file sink and capture folders, claim-check files) passes it through
``path_component`` first. TiCDC's storage sink joins the names as they are (an object key on
S3; on a local folder ``../x`` or ``/x`` lands outside the root), and its topic rule replaces
what Kafka forbids with ``_``, which merges names. tisink refuses instead: a name that is not
one plain component (empty, ``.`` or ``..``, holding ``/`` or NUL, longer than a file name
may be) stops the sink with one line naming the table or topic, before anything is written.
"""

from __future__ import annotations

from tisink.eventsink.errors import PathNameError

NAME_MAX_BYTES = 255
"""The longest file name Linux and macOS file systems take (``NAME_MAX``), in UTF-8 bytes."""


def unfit_reason(name: str) -> str | None:
    """Why ``name`` cannot be one path component; None when it can."""
    if name in ("", ".", ".."):
        return "it is empty" if not name else f"it is {name!r}"
    if "/" in name:
        return "it holds '/'"
    if "\x00" in name:
        return "it holds NUL"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "it is not valid UTF-8 text"
    if size > NAME_MAX_BYTES:
        return f"it is {size} bytes long, over the {NAME_MAX_BYTES} a file name may have"
    return None


def path_component(name: str, role: str, subject: str) -> str:
    """``name`` when it is one plain path component; else PathNameError naming ``subject``
    (``table 's'.'t'``, ``topic 'x'``) and the ``role`` the name has there."""
    reason = unfit_reason(name)
    if reason is not None:
        raise PathNameError(
            f"{subject}: the {role} {name!r} cannot be a name under the sink's root ({reason}); "
            "tisink refuses it rather than write outside the root"
        )
    return name


def table_subject(schema: str, table: str) -> str:
    """How a refusal names a table (a database when ``table`` is ""): the names quoted, so
    every character shows."""
    return f"table {schema!r}.{table!r}" if table else f"database {schema!r}"
