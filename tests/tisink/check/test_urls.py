"""Database URLs: translated for SQLAlchemy, passwords never shown."""

from __future__ import annotations

import pytest

from tisink.check.errors import CheckError
from tisink.check.urls import DatabaseURL, mask_password, scrub


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


def test_masking():
    assert mask_password("mysql://u:p%40ss@h:1/db") == "mysql://u:***@h:1/db"
    assert mask_password("mysql://u@h:1/db") == "mysql://u@h:1/db"
    assert mask_password("sqlite:///x.db") == "sqlite:///x.db"
    assert DatabaseURL.parse("postgresql://u:pw@h/db").masked == "postgresql://u:***@h/db"
    assert scrub("login u/p@ss refused", "mysql://u:p%40ss@h/") == "login u/*** refused"
