"""TiCDC's two code lines and the one switch between them.

The classic architecture (pingcap/tiflow) and the new one (pingcap/ticdc, v8.5.4 and later)
write different bytes in places (each protocol's README has its table). TiCDC chooses with its
server's ``newarch`` switch; tisink reads it as a changefeed setting, and every protocol whose
bytes differ declares this one option, so the same key reaches each of them.
"""

from __future__ import annotations

from tisink.core.options import Option, to_bool

NEWARCH_OPTION = Option(
    "newarch",
    "newarch",
    to_bool,
    ((),),
    help="true: the new architecture's bytes (pingcap/ticdc, TiCDC's server switch "
    "`newarch`); false: the classic architecture's (pingcap/tiflow); see README.md",
)
"""``newarch`` (default true in every protocol's options: pingcap/ticdc)."""
