"""Database URLs as users write them (``sqlite:///rel.db``, ``mysql://u:pw@h:3306/db``,
``postgresql://u:pw@h:5432/db``) and as SQLAlchemy needs them (``mysql+pymysql://``,
``postgresql+psycopg://``), with their secrets (``user:password@``, ``?password=``) masked by
``mask_uri`` wherever a URL is shown."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.check.errors import CheckError
from tisink.sink.uri import mask_uri

# the user's scheme -> (dialect name, SQLAlchemy driver scheme)
_SCHEMES = {
    "sqlite": ("sqlite", "sqlite"),
    "mysql": ("mysql", "mysql+pymysql"),
    "mariadb": ("mysql", "mysql+pymysql"),
    "postgresql": ("postgresql", "postgresql+psycopg"),
    "postgres": ("postgresql", "postgresql+psycopg"),
}


@dataclass(frozen=True)
class DatabaseURL:
    """A database to read: the URL as given, its dialect and SQLAlchemy's URL."""

    raw: str
    dialect: str
    """``sqlite``, ``mysql`` (MariaDB too) or ``postgresql``."""
    sqlalchemy_url: str

    @property
    def masked(self) -> str:
        return mask_uri(self.raw)

    @classmethod
    def parse(cls, url: str) -> DatabaseURL:
        """Translate a user's URL; CheckError for a scheme tisink cannot read."""
        scheme, sep, rest = url.partition("://")
        base = scheme.partition("+")[0].lower()
        if not sep or base not in _SCHEMES:
            known = ", ".join(f"{name}://" for name in ("sqlite", "mysql", "postgresql"))
            raise CheckError(f"{mask_uri(url)}: not a database URL (expected {known})")
        dialect, driver = _SCHEMES[base]
        if "+" in scheme:  # the user chose a driver: keep it
            driver = scheme
        if dialect == "sqlite" and not rest.startswith("/"):
            raise CheckError(
                f"{mask_uri(url)}: a SQLite URL is sqlite:///relative.db or sqlite:////absolute.db"
            )
        return cls(url, dialect, f"{driver}://{rest}")
