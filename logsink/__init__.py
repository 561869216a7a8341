"""``log://``: one structured log line per row, DDL and checkpoint; the worked example of a sink.

Written as a plugin is, against ``tisink.plugin`` alone (which is why it sits on a floor above
it): ``sink.py`` is the event sink, ``ddl.py`` the DDL sink, ``provider.py`` what makes them
reachable from a sink URI. tisink lists the scheme as built-in and loads the provider by the
same entry-point reference a plugin distribution declares (``sink/registry.py``).
"""

from tisink.logsink.ddl import LogDDLSink
from tisink.logsink.provider import LogProvider
from tisink.logsink.sink import LogSink

__all__ = ["LogDDLSink", "LogProvider", "LogSink"]
