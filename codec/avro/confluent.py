"""A Confluent Schema Registry REST client (stdlib ``urllib``), as tiflow's
``confluentSchemaManager`` talks to one: ``POST /subjects/{subject}/versions`` with
``{"schema": ...}`` in ``application/vnd.schemaregistry.v1+json`` to register, ``GET
/schemas/ids/{id}`` to look up. Apicurio's ``/apis/ccompat/v7`` answers the same API.

Transient failures (connection errors, HTTP 5xx) are retried a few times with backoff, as
TiCDC's ``httpRetry``; anything else is a ``SchemaRegistryError`` of one line naming the URL
without its credentials. Credentials in the URL (``http://user:pass@host``) are sent as HTTP
basic authentication.
"""

from __future__ import annotations

import base64
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from tisink.codec.avro.registry import SchemaRegistry, SchemaRegistryError

log = logging.getLogger(__name__)

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, " + (
    "application/json"
)
ATTEMPTS = 3
FIRST_BACKOFF_S = 0.2
TIMEOUT_S = 10.0


def redact(url: str) -> str:
    """``url`` without user name and password, for messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


class ConfluentRegistry:
    """Implements ``SchemaRegistry`` over HTTP; ``url`` is the ``schema-registry`` option."""

    def __init__(self, url: str, *, timeout_s: float = TIMEOUT_S, attempts: int = ATTEMPTS) -> None:
        if not url:
            raise SchemaRegistryError("no schema registry URL given (schema-registry)")
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SchemaRegistryError(f"schema registry URL {redact(url)!r} is not an http(s) URL")
        self.url = redact(url.rstrip("/"))
        self._auth: str | None = None
        if parts.username is not None:
            user = urllib.parse.unquote(parts.username)
            password = urllib.parse.unquote(parts.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            self._auth = f"Basic {token}"
        self._timeout_s = timeout_s
        self._attempts = max(1, attempts)

    def register(self, subject: str, schema_text: str) -> int:
        """``POST /subjects/{subject}/versions``: the id of ``schema_text`` under ``subject``."""
        path = f"/subjects/{urllib.parse.quote_plus(subject)}/versions"
        body = json.dumps({"schema": schema_text}).encode()
        what = f"registering a schema under subject {subject!r}"
        reply = self._request("POST", path, body, what)
        schema_id = reply.get("id") if isinstance(reply, dict) else None
        if type(schema_id) is not int or schema_id <= 0:
            raise SchemaRegistryError(
                f"schema registry {self.url}: {what}: illegal schema id {schema_id!r}"
            )
        log.info("registered schema id %d under subject %s at %s", schema_id, subject, self.url)
        return schema_id

    def schema_by_id(self, schema_id: int) -> str:
        """``GET /schemas/ids/{id}``: the schema text of ``schema_id``."""
        what = f"looking up schema id {schema_id}"
        reply = self._request("GET", f"/schemas/ids/{int(schema_id)}", None, what)
        schema = reply.get("schema") if isinstance(reply, dict) else None
        if not isinstance(schema, str):
            raise SchemaRegistryError(f"schema registry {self.url}: {what}: no schema in reply")
        return schema

    def _request(self, method: str, path: str, body: bytes | None, what: str) -> Any:
        backoff = FIRST_BACKOFF_S
        for attempt in range(1, self._attempts + 1):
            request = urllib.request.Request(self.url + path, data=body, method=method)
            request.add_header("Accept", ACCEPT)
            if body is not None:
                request.add_header("Content-Type", CONTENT_TYPE)
            if self._auth is not None:
                request.add_header("Authorization", self._auth)
            try:
                with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as err:
                detail = _error_detail(err)
                if err.code < 500 or attempt == self._attempts:
                    raise SchemaRegistryError(
                        f"schema registry {self.url}: {what}: HTTP {err.code}{detail}"
                    ) from None
            except (urllib.error.URLError, OSError) as err:
                reason = getattr(err, "reason", err)
                if attempt == self._attempts:
                    raise SchemaRegistryError(
                        f"schema registry {self.url}: {what}: {reason}"
                    ) from None
            except ValueError as err:
                raise SchemaRegistryError(
                    f"schema registry {self.url}: {what}: reply is not JSON: {err}"
                ) from None
            log.warning("schema registry %s: %s failed, retrying", self.url, what)
            time.sleep(backoff)
            backoff *= 2
        raise AssertionError("unreachable")  # pragma: no cover


def _error_detail(err: urllib.error.HTTPError) -> str:
    """The registry's ``message`` of an error reply, on one line."""
    try:
        reply = json.loads(err.read() or b"{}")
    except (ValueError, OSError):
        return ""
    message = reply.get("message") if isinstance(reply, dict) else None
    return f" ({' '.join(str(message).split())})" if message else ""


RegistryFactory = Callable[[str], SchemaRegistry]

SCHEMES: dict[str, RegistryFactory] = {"http": ConfluentRegistry, "https": ConfluentRegistry}
"""The client per URL scheme of ``schema-registry``. Only http(s) ship; a test may add a scheme
for an in-process double (``tests/codec/avro/memory_registry.py``)."""


def open_registry(url: str) -> SchemaRegistry:
    """The client of the registry at ``url``, by its scheme."""
    factory = SCHEMES.get(urllib.parse.urlsplit(url).scheme.lower(), ConfluentRegistry)
    return factory(url)
