"""Sink URIs as TiCDC writes them: ``kafka://h1:9092,h2:9092/topic?protocol=simple&...``.

``file`` is the exception: its authority and path together are the directory, so both
``file:///abs/dir`` and ``file://relative/dir`` work, and its topic is the ``topic`` parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

from tisink.sink.errors import SinkURIError

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d+))?$")
_SECRET = re.compile(r"pass|secret|token|credential|(?:^|-)key$", re.IGNORECASE)
"""Parameter names whose values are masked wherever a URI is shown: the known secrets
(``sasl-password``, ``sasl-oauth-client-secret``, ``key``) and anything that looks like one,
a misspelt ``sasl-passwrd`` included."""
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
        """The URI for logs: the password of ``user:password@`` and credential-like
        parameters replaced by ``xxxxx``."""
        return mask_uri(self.raw)


def is_secret_param(name: str) -> bool:
    """Whether a parameter's value is a credential, never to be shown."""
    return _SECRET.search(name) is not None


def mask_uri(uri: str) -> str:
    """``uri`` as it may be shown: the userinfo password and every credential-like query
    value as ``xxxxx``; works on URIs that do not parse (an error message shows them too)."""
    uri = mask_password(uri)
    base, sep, query = uri.partition("?")
    if not sep:
        return uri
    pairs = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        secret = eq and value and is_secret_param(unquote(name))
        pairs.append(f"{name}=xxxxx" if secret else pair)
    return base + "?" + "&".join(pairs)


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
    shown = mask_uri(uri)
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
