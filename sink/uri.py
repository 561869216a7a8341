"""Sink URIs as TiCDC writes them: ``kafka://h1:9092,h2:9092/topic?protocol=simple&...``.

``file`` is the exception: its authority and path together are the directory, so both
``file:///abs/dir`` and ``file://relative/dir`` work, and its topic is the ``topic`` parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from tisink.sink.errors import SinkURIError

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d+))?$")
_SECRET_PARAMS = ("sasl-password", "sasl-oauth-client-secret", "key")
PATH_SCHEMES = ("file",)
"""Schemes whose authority is part of a local path rather than a list of brokers."""


@dataclass(frozen=True)
class SinkURI:
    """A parsed sink URI. ``params`` holds every query parameter, known or not, so plugins
    can read their own."""

    raw: str
    scheme: str
    hosts: tuple[str, ...] = ()
    path: str = ""
    topic: str = ""
    params: dict[str, str] = field(default_factory=dict)

    def param(self, name: str, default: str | None = None) -> str | None:
        return self.params.get(name, default)

    def redacted(self) -> str:
        """The URI for logs: the password of ``user:password@`` and secrets among the
        parameters replaced by ``xxxxx``."""
        raw = mask_password(self.raw)
        if not any(name in self.params for name in _SECRET_PARAMS):
            return raw
        masked = {k: ("xxxxx" if k in _SECRET_PARAMS else v) for k, v in self.params.items()}
        return raw.split("?", 1)[0] + "?" + urlencode(masked)


def mask_password(uri: str) -> str:
    """``uri`` with the password of its ``user:password@`` part (database URIs) as ``xxxxx``."""
    scheme, sep, rest = uri.partition("://")
    authority, slash, tail = rest.partition("/")
    userinfo, at, hosts = authority.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return uri
    return f"{scheme}://{userinfo.split(':', 1)[0]}:xxxxx@{hosts}{slash}{tail}"


def parse_sink_uri(uri: str) -> SinkURI:
    """Split a sink URI into scheme, hosts, path/topic and parameters; SinkURIError if malformed."""
    if not isinstance(uri, str) or not uri.strip():
        raise SinkURIError(f"sink URI must be a non-empty string, got {uri!r}")
    shown = mask_password(uri)
    if uri != uri.strip() or any(ch.isspace() for ch in uri):
        raise SinkURIError(f"sink URI {shown!r} contains whitespace")
    if "://" not in uri:
        raise SinkURIError(
            f"sink URI {shown!r} has no scheme; expected scheme://... (e.g. file:///dir)"
        )
    try:
        parts = urlsplit(uri)
    except ValueError as err:
        raise SinkURIError(f"sink URI {shown!r} is malformed: {err}") from err
    scheme = parts.scheme.lower()
    if not _SCHEME.match(scheme):
        raise SinkURIError(f"sink URI {shown!r} has an invalid scheme {parts.scheme!r}")
    params = _parse_params(shown, parts.query)
    if scheme in PATH_SCHEMES:
        path = unquote(parts.netloc + parts.path)
        if not path:
            raise SinkURIError(f"sink URI {shown!r} names no directory (e.g. file:///tmp/out)")
        return SinkURI(uri, scheme, (), path, params.get("topic", ""), params)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    hosts = tuple(h for h in netloc.split(",") if h)
    for host in hosts:
        _check_host(shown, host)
    path = unquote(parts.path)
    return SinkURI(uri, scheme, hosts, path, path.strip("/"), params)


def _parse_params(uri: str, query: str) -> dict[str, str]:
    params: dict[str, str] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError as err:
        raise SinkURIError(f"sink URI {uri!r}: malformed query string: {err}") from err
    for key, value in pairs:
        if key in params:
            raise SinkURIError(f"sink URI {uri!r}: parameter {key!r} is given more than once")
        params[key] = value
    return params


def _check_host(uri: str, host: str) -> None:
    match = _HOST.match(host)
    if match is None:
        raise SinkURIError(f"sink URI {uri!r}: bad host {host!r}")
    port = match.group(1)
    if port is not None and not 0 < int(port) < 65536:
        raise SinkURIError(f"sink URI {uri!r}: host {host!r} has port {port} out of range")
