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
MASK = "xxxxx"
"""What every shown secret becomes (TiCDC's own mask)."""
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
        """The URI for logs: ``mask_uri`` of the URI as given."""
        return mask_uri(self.raw)


def is_secret_param(name: str) -> bool:
    """Whether a parameter's value is a credential, never to be shown."""
    return _SECRET.search(name) is not None


def mask_uri(uri: str) -> str:
    """``uri`` as every command and report shows it: the password of ``user:password@`` and
    every credential-like query value as ``MASK``. It works on URIs that do not parse (an
    error message shows them too), so a password holding ``/`` or ``@`` is masked whole."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        scheme, rest = "", uri
    head, question, query = rest.partition("?")
    userinfo, at, hosts = head.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if sep and at and colon and password:
        head = f"{user}:{MASK}@{hosts}"
    pairs = []
    for pair in query.split("&") if question else ():
        name, eq, value = pair.partition("=")
        secret = eq and value and is_secret_param(unquote(name))
        pairs.append(f"{name}={MASK}" if secret else _mask_url_value(pair))
    return f"{scheme}{sep}{head}{question}{'&'.join(pairs)}"


def _mask_url_value(pair: str) -> str:
    """``name=value`` whose value is a URL with a password (``schema-registry=http://u:p@h``,
    as TiCDC masks it), that password as ``MASK``, the value shown decoded; else ``pair``."""
    name, _, value = pair.partition("=")
    inner = unquote(value)
    if "://" not in inner:
        return pair
    masked = mask_uri(inner)
    return pair if masked == inner else f"{name}={masked}"


def scrub(text: str, uri: str) -> str:
    """``text`` (a driver's or a library's message about ``uri``) with each secret of ``uri``
    as ``MASK``, as written and percent-decoded, should the message repeat one."""
    for secret in sorted(_secrets(uri), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def _secrets(uri: str) -> set[str]:
    """The values ``mask_uri`` hides, each as written and percent-decoded."""
    _, sep, rest = uri.partition("://")
    head, _, query = (rest if sep else uri).partition("?")
    userinfo, at, _ = head.rpartition("@")
    found = [userinfo.partition(":")[2]] if sep and at else []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if is_secret_param(unquote(name)):
            found.append(value)
        elif "://" in unquote(value):
            found.extend(_secrets(value) | _secrets(unquote(value)))
    return {text for value in found for text in (value, unquote(value)) if text}


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
