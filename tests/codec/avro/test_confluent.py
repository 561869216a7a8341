"""The HTTP registry client against a tiny stdlib server speaking the Confluent REST API (a
test stand-in: the real registry is Confluent's or Apicurio's ``/apis/ccompat/v7``)."""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import insert
from tisink.codec.avro import confluent
from tisink.codec.avro.confluent import ConfluentRegistry, redact
from tisink.codec.avro.decoder import AvroDecoder
from tisink.codec.avro.options import AvroOptions
from tisink.codec.avro.registry import SchemaRegistryError
from tisink.codec.config import EncoderConfig
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, IndexInfo, make_table


class _Registry(BaseHTTPRequestHandler):
    store: ClassVar[MemoryRegistry] = MemoryRegistry()
    seen: ClassVar[list[tuple[str, str, str | None, str | None]]] = []
    failures: ClassVar[int] = 0

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _fail(self) -> bool:
        if type(self).failures > 0:
            type(self).failures -= 1
            self._reply(503, {"error_code": 50003, "message": "busy"})
            return True
        return False

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append(
            ("POST", self.path, self.headers["Content-Type"], self.headers["Authorization"])
        )
        if self._fail():
            return
        rest = self.path.partition("/subjects/")[2]
        subject = urllib.parse.unquote_plus(rest.removesuffix("/versions"))
        schema = json.loads(body)["schema"]
        if "bad" in subject:
            self._reply(422, {"error_code": 42201, "message": "Invalid schema\nat line 1"})
            return
        self._reply(200, {"id": self.store.register(subject, schema)})

    def do_GET(self) -> None:
        self.seen.append(("GET", self.path, None, self.headers["Authorization"]))
        if self._fail():
            return
        schema_id = int(self.path.rsplit("/", 1)[1])
        if schema_id > len(self.store.schemas):
            self._reply(404, {"error_code": 40403, "message": "Schema not found"})
            return
        self._reply(200, {"schema": self.store.schema_by_id(schema_id)})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(confluent, "FIRST_BACKOFF_S", 0.01)
    _Registry.store, _Registry.seen, _Registry.failures = MemoryRegistry(), [], 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/apis/ccompat/v7"
    finally:
        httpd.shutdown()
        httpd.server_close()


TABLE = make_table(
    "db",
    "t",
    1,
    1,
    [ColumnInfo("id", "int", nullable=False)],
    [IndexInfo("p", ("id",), True, True)],
)


def test_register_and_look_up_over_http(server: str) -> None:
    client = ConfluentRegistry(server + "/")
    assert client.register("db_t-value", '{"type":"string"}') == 1
    assert client.register("db_t-value", '{"type":"string"}') == 1
    assert client.register("a b/c-key", '{"type":"int"}') == 2
    assert client.schema_by_id(2) == '{"type":"int"}'
    posts = [s for s in _Registry.seen if s[0] == "POST"]
    assert posts[0][1] == "/apis/ccompat/v7/subjects/db_t-value/versions"
    assert posts[2][1] == "/apis/ccompat/v7/subjects/a+b%2Fc-key/versions"  # url.QueryEscape
    assert posts[0][2] == "application/vnd.schemaregistry.v1+json"


def test_an_encoder_and_decoder_share_the_registry(server: str) -> None:
    config = EncoderConfig(protocol="avro", options=AvroOptions(schema_registry=server))
    enc = config.spec.new_encoder(config, FixedClock(0))  # its client built from the URL
    record = enc.encode_rows([insert(TABLE, {"id": 5})]).records[0]
    (message,) = AvroDecoder(registry=ConfluentRegistry(server)).decode(*record)
    assert message.data == {"id": 5}


def test_errors_are_one_line_naming_url_and_subject_without_credentials(server: str) -> None:
    url = server.replace("http://", "http://alice:s3cret@")
    client = ConfluentRegistry(url)
    with pytest.raises(SchemaRegistryError) as caught:
        client.register("bad-value", '{"type":"int"}')
    text = str(caught.value)
    assert text == (
        f"schema registry {server}: registering a schema under subject 'bad-value': "
        "HTTP 422 (Invalid schema at line 1)"
    )
    assert "s3cret" not in text and "\n" not in text
    assert _Registry.seen[-1][3] == "Basic YWxpY2U6czNjcmV0"
    with pytest.raises(SchemaRegistryError, match="looking up schema id 9: HTTP 404"):
        client.schema_by_id(9)


def test_transient_failures_are_retried(server: str) -> None:
    _Registry.failures = 2
    assert ConfluentRegistry(server).register("x-value", '"int"') == 1
    _Registry.failures = 5
    with pytest.raises(SchemaRegistryError, match="HTTP 503"):
        ConfluentRegistry(server).register("x-value", '"int"')


def test_an_unreachable_registry_is_named() -> None:
    client = ConfluentRegistry("http://u:p@127.0.0.1:1", attempts=1, timeout_s=1)
    with pytest.raises(SchemaRegistryError, match=r"^schema registry http://127\.0\.0\.1:1: "):
        client.register("s-key", '"int"')


def test_bad_urls_are_refused() -> None:
    with pytest.raises(SchemaRegistryError, match="no schema registry URL"):
        ConfluentRegistry("")
    with pytest.raises(SchemaRegistryError, match="'ftp://h' is not an http"):
        ConfluentRegistry("ftp://u:p@h")
    assert redact("https://u:p@h:8081/x") == "https://h:8081/x"
    assert redact("http://h/x") == "http://h/x"


def test_a_test_double_can_serve_a_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = MemoryRegistry()
    monkeypatch.setitem(confluent.SCHEMES, "memory", lambda _url: memory)
    config = EncoderConfig(protocol="avro", options=AvroOptions(schema_registry="memory://"))
    enc = config.spec.new_encoder(config, FixedClock(0))
    enc.encode_rows([insert(TABLE, {"id": 1})])
    assert list(memory.subjects) == ["db_t-key", "db_t-value"]
    assert isinstance(confluent.open_registry("HTTP://h:1"), ConfluentRegistry)
