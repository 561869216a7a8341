"""An embedded Confluent-compatible schema registry: Apicurio Registry, in memory, on loopback.

TiCDC's ``avro`` protocol registers its schemas in a Confluent schema registry; tests and users
get a real one without Docker or an installation. It is Apicurio Registry (``APICURIO_VERSION``)
from Maven Central, whose Confluent-compatible API lives under ``/apis/ccompat/v6``
(``SchemaRegistryServer.url``), keeping its artifacts in an in-memory H2 database (lost on stop):

* Apicurio Registry is a Quarkus application, and its Maven artifact is the application's plain
  jar, which Quarkus cannot run without its build step. On first use Maven builds it once into
  a versioned folder of tisink's cache (``$TISINK_CACHE_DIR`` or ``~/.cache/tisink``) with
  ``quarkus-maven-plugin`` at the Quarkus version Apicurio was built with: a pom of our own
  takes Apicurio's parent as its BOM, unpacks the app's jar as the application's classes (its
  ``application.properties`` included) and leaves Quarkus' fast-jar layout
  (``quarkus-run.jar``). It is written under a temporary name and renamed when complete; a
  later start never runs Maven.
* Why 2.1.5.Final, not a newer one (Maven Central as this project's machines reach it): the 3.x
  apps need modules or parent poms that are not served (``apicurio-registry-schema-util-*``
  3.3.3; parents 3.3.2 and 3.0.9); 2.6.13.Final and 2.5.11.Final need
  ``apicurio-registry-schema-util-provider`` and ``-utils-kafka`` builds that are not served;
  2.4.2.Final and 2.3.1.Final need the Quarkus extension
  ``apicurio-common-app-components-config-index-deployment``, not served; 2.2.1.Final needs
  ``apicurio-registry-utils-kafka`` 2.2.1.Final. In 2.1.5.Final the app alone is the in-memory
  registry (its ``InMemoryRegistryStorage``), and two of its dependencies are swapped: the web
  UI (``apicurio-registry-ui``, not served, not needed) is left out, and everit's JSON Schema
  validator, which Apicurio takes from JitPack, comes from its Maven Central coordinates
  (``com.github.erosb:everit-json-schema``, the same code and version).
* Each start runs the JVM with a small heap and the serial GC, on a free port (or the one
  given) of ``127.0.0.1``, and is ready once ``GET {url}/subjects`` answers 200. Stopping
  sends SIGTERM (Quarkus stops in well under a second) and kills after a grace period; on Linux
  the JVM also gets SIGTERM when the process (strictly: the thread) that started it dies.

Errors are ``SchemaRegistryError`` with one line: what failed, the registry log's cause of
death, and the path of the full log, which is kept on failure.
"""

from __future__ import annotations

import logging
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from tisink.run.apache_kafka import JVM_OPTIONS
from tisink.run.broker import LOOPBACK, free_port, serve_in_foreground
from tisink.run.cache import cache_dir
from tisink.run.errors import SchemaRegistryError
from tisink.run.jvm import (
    PORT_ATTEMPTS,
    JvmServer,
    PortTaken,
    launch_on_free_ports,
    log_summary,
    log_tail,
    require_java,
    spawn,
    terminate,
)
from tisink.run.maven import DEPENDENCY_PLUGIN, Artifact, MavenError, build_with_maven

log = logging.getLogger(__name__)

APICURIO_VERSION = "2.1.5.Final"
"""The Apicurio Registry release started; it is built into a folder named after it."""
QUARKUS_VERSION = "2.2.3.Final"
"""The Quarkus that Apicurio Registry ``APICURIO_VERSION`` is built with (its parent pom's
``quarkus.version``): the build step must be of the same Quarkus as the app's extensions."""
CCOMPAT_PATH = "/apis/ccompat/v6"
"""Where Apicurio Registry 2.x serves the Confluent Schema Registry API."""
EVERIT_JSON_SCHEMA = Artifact("com.github.erosb", "everit-json-schema", "1.14.0")
"""everit's JSON Schema validator at the version Apicurio 2.1.5 pins, from Maven Central:
Apicurio names it by its JitPack coordinates (``com.github.everit-org.json-schema``)."""
REGISTRY_JVM_OPTIONS: tuple[str, ...] = (*JVM_OPTIONS, "-XX:TieredStopAtLevel=1")
"""Apache Kafka's small test JVM, compiling with C1 only: the registry starts in about half
the time, and a test registry's load never needs C2."""
REGISTRY_PROPERTIES: dict[str, str] = {
    "quarkus.banner.enabled": "false",
    # the log's records as log_summary reads them: time, [thread], level
    "quarkus.log.console.format": "%d{HH:mm:ss.SSS} [%t] %p [%c{3.}] %s%e%n",
    "quarkus.log.console.color": "false",
}
"""The settings every embedded registry gets as system properties (``properties`` of
``start_schema_registry`` override them); its address is set apart."""

_BIND_FAILED = ("Address already in use", "seems to be in use by another process")
_STOP_TIMEOUT_S = 20.0
_PROBE_TIMEOUT_S = 1.0
_BUILD_GOALS = ("-DskipTests", "-D%prod.quarkus.package.type=fast-jar", "package")
"""Maven's package phase runs the unpack and Quarkus' build; the app's own properties ask for
the legacy jar in its prod profile, which this overrides with the same profiled key."""


class SchemaRegistryServer(JvmServer):
    """A running Apicurio Registry; a context manager that stops it on exit."""

    what = "the schema registry"
    log_name = "registry.log"
    stop_timeout_s = _STOP_TIMEOUT_S

    @property
    def url(self) -> str:
        """The Confluent-compatible base URL, as confluent-kafka's ``SchemaRegistryClient``
        and TiCDC's ``schema-registry`` option take it."""
        return f"http://{LOOPBACK}:{self.port}{CCOMPAT_PATH}"


def app_folder(version: str = APICURIO_VERSION) -> Path:
    """Where the built registry of ``version`` is kept (whether or not it is there yet)."""
    return cache_dir() / f"apicurio-registry-{version}-quarkus-app"


def registry_app(version: str = APICURIO_VERSION) -> Path:
    """The folder holding Apicurio Registry ``version`` built for Quarkus' fast-jar launcher
    (``quarkus-run.jar``), built with Maven on first use."""
    try:
        return build_with_maven(
            app_folder(version),
            registry_pom(version),
            _BUILD_GOALS,
            output="target/quarkus-app",
            marker="quarkus-run.jar",
            what=f"Apicurio Registry {version}",
        )
    except MavenError as exc:
        raise SchemaRegistryError(str(exc)) from exc


def registry_pom(version: str = APICURIO_VERSION, quarkus: str = QUARKUS_VERSION) -> str:
    """A project with no code of its own whose Quarkus build is Apicurio Registry's: the app's
    jar unpacked as its classes, the app's dependencies (less the UI, with everit from Maven
    Central) at the versions of Apicurio's parent pom, and the app's jar itself left out of the
    launcher's class path, which would otherwise hold its classes twice."""
    app = (
        "<groupId>io.apicurio</groupId><artifactId>apicurio-registry-app</artifactId>"
        f"<version>{version}</version>"
    )
    everit = EVERIT_JSON_SCHEMA
    dependency_plugin = DEPENDENCY_PLUGIN.rsplit(":", 1)[1]  # the same as resolve_jars'
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<project xmlns='http://maven.apache.org/POM/4.0.0'>
  <modelVersion>4.0.0</modelVersion>
  <groupId>tisink.embedded</groupId>
  <artifactId>apicurio-registry</artifactId>
  <version>{version}</version>
  <packaging>jar</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <quarkus.class-loading.removed-artifacts>io.apicurio:apicurio-registry-app</quarkus.class-loading.removed-artifacts>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>io.apicurio</groupId><artifactId>apicurio-registry</artifactId><version>{version}</version><type>pom</type><scope>import</scope></dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>{app}
      <exclusions>
        <exclusion><groupId>io.apicurio</groupId><artifactId>apicurio-registry-ui</artifactId></exclusion>
        <exclusion><groupId>com.github.everit-org.json-schema</groupId><artifactId>org.everit.json.schema</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency><groupId>{everit.group}</groupId><artifactId>{everit.artifact}</artifactId><version>{everit.version}</version></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>{dependency_plugin}</version>
        <executions>
          <execution>
            <id>unpack-app</id><phase>generate-resources</phase><goals><goal>unpack</goal></goals>
            <configuration>
              <artifactItems><artifactItem>{app}<type>jar</type></artifactItem></artifactItems>
              <outputDirectory>${{project.build.outputDirectory}}</outputDirectory>
            </configuration>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>io.quarkus</groupId><artifactId>quarkus-maven-plugin</artifactId><version>{quarkus}</version>
        <executions><execution><goals><goal>build</goal></goals></execution></executions>
      </plugin>
    </plugins>
  </build>
</project>
"""


def java_binary() -> str:
    """The ``java`` the registry runs on (``$JAVA_HOME/bin/java`` or the one on PATH)."""
    return require_java(SchemaRegistryError, "the embedded schema registry", 11)


def start_schema_registry(
    port: int | None = None,
    *,
    properties: Mapping[str, str] | None = None,
    startup_timeout: float = 60.0,
    workdir: Path | None = None,
    version: str = APICURIO_VERSION,
) -> SchemaRegistryServer:
    """Start Apicurio Registry on ``127.0.0.1:port`` (a free port when None), in memory.

    ``properties`` (Quarkus' or Apicurio's settings, as system properties) add to or override
    ``REGISTRY_PROPERTIES``, not the address. Its log goes to a new folder under ``workdir``
    (the system's temporary folder by default). Returns once the Confluent-compatible API
    answers; ``.url`` is its base URL.
    """
    app = registry_app(version)
    java = java_binary()

    def launch() -> SchemaRegistryServer:
        chosen = port if port is not None else free_port()
        return _launch(java, app, chosen, properties or {}, startup_timeout, workdir, version)

    return launch_on_free_ports(launch, PORT_ATTEMPTS if port is None else 1)


def run_schema_registry_foreground(port: int = 8081) -> int:
    """Run the embedded schema registry until SIGINT/SIGTERM (``tisink registry``); returns
    an exit code."""
    server = start_schema_registry(port)
    log.info(
        "Apicurio Registry %s (Confluent-compatible, in memory) listening on %s "
        "(log in %s; Ctrl-C stops it)",
        server.version,
        server.url,
        server.workdir,
    )
    return serve_in_foreground(server)


def _launch(
    java: str,
    app: Path,
    port: int,
    extra: Mapping[str, str],
    startup_timeout: float,
    parent: Path | None,
    version: str,
) -> SchemaRegistryServer:
    workdir = Path(tempfile.mkdtemp(prefix="tisink-registry-", dir=parent))
    settings = {**REGISTRY_PROPERTIES, **extra}
    settings.update({"quarkus.http.host": LOOPBACK, "quarkus.http.port": str(port)})
    args = [java, *REGISTRY_JVM_OPTIONS, *(f"-D{key}={value}" for key, value in settings.items())]
    args += ["-jar", str(app / "quarkus-run.jar")]
    started = time.monotonic()
    deadline = started + startup_timeout
    server_log = workdir / SchemaRegistryServer.log_name
    with server_log.open("wb") as out:
        process = spawn(args, out, cwd=workdir)
    server = SchemaRegistryServer(process, port, workdir, version)
    log_path = server.log_path
    address = f"{LOOPBACK}:{port}"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = _failure(
                version,
                f"exited with code {process.returncode} while starting on {address}",
                log_path,
            )
            if any(sign in log_tail(log_path) for sign in _BIND_FAILED):
                raise PortTaken(error, workdir)
            raise error
        if _answers(server.url):
            log.info(
                "Apicurio Registry %s ready on %s in %.1fs (log in %s)",
                version,
                server.url,
                time.monotonic() - started,
                workdir,
            )
            return server
        time.sleep(0.1)
    terminate(process, 10.0, "the schema registry")
    raise _failure(version, f"did not answer on {server.url} within {startup_timeout:g}s", log_path)


def _answers(url: str) -> bool:
    """True when the Confluent-compatible API lists subjects (its storage is up)."""
    try:
        with urllib.request.urlopen(f"{url}/subjects", timeout=_PROBE_TIMEOUT_S) as response:
            return bool(response.status == 200)
    except (OSError, ValueError):  # URLError, HTTPError and timeouts are OSErrors
        return False


def _failure(version: str, what: str, log_path: Path) -> SchemaRegistryError:
    """The one-line error for a start that failed; the log stays."""
    return SchemaRegistryError(
        f"embedded Apicurio Registry {version} {what}: {log_summary(log_path)} (log: {log_path})"
    )
