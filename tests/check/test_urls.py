"""Database URLs: translated for SQLAlchemy, secrets never shown."""

from __future__ import annotations

import pytest

from tisink.check.errors import CheckError
from tisink.check.urls import DatabaseURL
from tisink.sink.uri import MASK, scrub


@pytest.mark.parametrize(
    ("url", "dialect", "sqlalchemy_url"),
    [
        ("sqlite:///rel.db", "sqlite", "sqlite:///rel.db"),
        ("sqlite:////abs/x.db", "sqlite", "sqlite:////abs/x.db"),
        ("mysql://u:p@h:3306/", "mysql", "mysql+pymysql://u:p@h:3306/"),
        ("mariadb://u@h/db", "mysql", "mysql+pymysql://u@h/db"),
        ("postgresql://u:p@h:5432/db", "postgresql", "postgresql+psycopg://u:p@h:5432/db"),
        ("mysql+mysqldb://u@h/", "mysql", "mysql+mysqldb://u@h/"),
    ],
)
def test_parse(url, dialect, sqlalchemy_url):
    parsed = DatabaseURL.parse(url)
    assert (parsed.dialect, parsed.sqlalchemy_url) == (dialect, sqlalchemy_url)


@pytest.mark.parametrize("url", ["kafka://h:9092/t", "rel.db", "sqlite://rel.db"])
def test_parse_refuses(url):
    with pytest.raises(CheckError):
        DatabaseURL.parse(url)


def test_masking_is_the_sink_uris():
    """One mask for every command: ``user:password@`` and secret parameters alike."""
    assert MASK == "xxxxx"
    assert DatabaseURL.parse("postgresql://u:pw@h/db").masked == "postgresql://u:xxxxx@h/db"
    masked = DatabaseURL.parse("postgresql://u@h/db?sslmode=disable&password=pw").masked
    assert masked == "postgresql://u@h/db?sslmode=disable&password=xxxxx"
    assert DatabaseURL.parse("sqlite:///x.db").masked == "sqlite:///x.db"
    assert scrub("login u/p@ss refused", "mysql://u:p%40ss@h/") == "login u/xxxxx refused"
    assert scrub("bad pw S3cret", "postgresql://u@h/db?password=S3cret") == "bad pw xxxxx"


def test_refusals_mask_the_url():
    with pytest.raises(CheckError) as caught:
        DatabaseURL.parse("sqlite://rel.db?password=S3cret")
    assert "S3cret" not in str(caught.value) and "password=xxxxx" in str(caught.value)
    with pytest.raises(CheckError) as caught:
        DatabaseURL.parse("redis://u:S3cret@h/?token=S3cret")
    assert "S3cret" not in str(caught.value)
