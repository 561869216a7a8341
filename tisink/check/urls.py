"""Database URLs as users write them (``sqlite:///rel.db``, ``mysql://u:pw@h:3306/db``,
``postgresql://u:pw@h:5432/db``) and as SQLAlchemy needs them (``mysql+pymysql://``,
``postgresql+psycopg://``), with the password masked wherever a URL is shown."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from tisink.check.errors import CheckError

MASK = "***"

# the user's scheme -> (dialect name, SQLAlchemy driver scheme)
_SCHEMES = {
    "sqlite": ("sqlite", "sqlite"),
    "mysql": ("mysql", "mysql+pymysql"),
    "mariadb": ("mysql", "mysql+pymysql"),
    "postgresql": ("postgresql", "postgresql+psycopg"),
    "postgres": ("postgresql", "postgresql+psycopg"),
}


def mask_password(url: str) -> str:
    """``url`` with the password of its userinfo replaced by ``***`` (unchanged without one)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}"))


def scrub(text: str, url: str) -> str:
    """``text`` (a driver's message) with the password of ``url`` masked, should a driver
    ever repeat it."""
    try:
        password = urlsplit(url).password
    except ValueError:
        return text
    for secret in {password, unquote(password or "")}:
        if secret:
            text = text.replace(secret, MASK)
    return text


@dataclass(frozen=True)
class DatabaseURL:
    """A database to read: the URL as given, its dialect and SQLAlchemy's URL."""

    raw: str
    dialect: str
    """``sqlite``, ``mysql`` (MariaDB too) or ``postgresql``."""
    sqlalchemy_url: str

    @property
    def masked(self) -> str:
        return mask_password(self.raw)

    @classmethod
    def parse(cls, url: str) -> DatabaseURL:
        """Translate a user's URL; CheckError for a scheme tisink cannot read."""
        scheme, sep, rest = url.partition("://")
        base = scheme.partition("+")[0].lower()
        if not sep or base not in _SCHEMES:
            known = ", ".join(f"{name}://" for name in ("sqlite", "mysql", "postgresql"))
            raise CheckError(f"{mask_password(url)}: not a database URL (expected {known})")
        dialect, driver = _SCHEMES[base]
        if "+" in scheme:  # the user chose a driver: keep it
            driver = scheme
        if dialect == "sqlite" and not rest.startswith("/"):
            raise CheckError(
                f"{url}: a SQLite URL is sqlite:///relative.db or sqlite:////absolute.db"
            )
        return cls(url, dialect, f"{driver}://{rest}")
