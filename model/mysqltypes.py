"""MySQL column types as TiCDC names them (TiDB ``TypeToStr``) and their rendering families."""

from enum import Enum


class TypeFamily(Enum):
    """How a codec renders a column; one family per rendering rule of spec 2."""

    INT = "int"
    BIGINT = "bigint"
    FLOAT = "float"
    DOUBLE = "double"
    DECIMAL = "decimal"
    STRING = "string"
    BINARY = "binary"
    DATE = "date"
    DATETIME = "datetime"
    TIMESTAMP = "timestamp"
    TIME = "time"
    YEAR = "year"
    ENUM = "enum"
    SET = "set"
    BIT = "bit"
    JSON = "json"
    VECTOR = "vector"


_FAMILY: dict[str, TypeFamily] = {
    "tinyint": TypeFamily.INT,
    "smallint": TypeFamily.INT,
    "mediumint": TypeFamily.INT,
    "int": TypeFamily.INT,
    "bigint": TypeFamily.BIGINT,
    "float": TypeFamily.FLOAT,
    "double": TypeFamily.DOUBLE,
    "decimal": TypeFamily.DECIMAL,
    "char": TypeFamily.STRING,
    "varchar": TypeFamily.STRING,
    "tinytext": TypeFamily.STRING,
    "text": TypeFamily.STRING,
    "mediumtext": TypeFamily.STRING,
    "longtext": TypeFamily.STRING,
    "binary": TypeFamily.BINARY,
    "varbinary": TypeFamily.BINARY,
    "tinyblob": TypeFamily.BINARY,
    "blob": TypeFamily.BINARY,
    "mediumblob": TypeFamily.BINARY,
    "longblob": TypeFamily.BINARY,
    "date": TypeFamily.DATE,
    "datetime": TypeFamily.DATETIME,
    "timestamp": TypeFamily.TIMESTAMP,
    "time": TypeFamily.TIME,
    "year": TypeFamily.YEAR,
    "enum": TypeFamily.ENUM,
    "set": TypeFamily.SET,
    "bit": TypeFamily.BIT,
    "json": TypeFamily.JSON,
    "vector": TypeFamily.VECTOR,
}

MYSQL_TYPES: tuple[str, ...] = tuple(_FAMILY)
"""Every ``mysqlType`` name the Simple Protocol writes, in TiDB's spelling."""

INTEGER_RANGES: dict[str, tuple[int, int, int]] = {
    # name: (signed min, signed max, unsigned max)
    "tinyint": (-(1 << 7), (1 << 7) - 1, (1 << 8) - 1),
    "smallint": (-(1 << 15), (1 << 15) - 1, (1 << 16) - 1),
    "mediumint": (-(1 << 23), (1 << 23) - 1, (1 << 24) - 1),
    "int": (-(1 << 31), (1 << 31) - 1, (1 << 32) - 1),
    "bigint": (-(1 << 63), (1 << 63) - 1, (1 << 64) - 1),
}

DEFAULT_LENGTH: dict[tuple[str, bool], int] = {
    # TiDB's default Flen per (type, unsigned), as the Simple Protocol reports it.
    ("tinyint", False): 4,
    ("tinyint", True): 3,
    ("smallint", False): 6,
    ("smallint", True): 5,
    ("mediumint", False): 9,
    ("mediumint", True): 8,
    ("int", False): 11,
    ("int", True): 10,
    ("bigint", False): 20,
    ("bigint", True): 20,
    ("float", False): 12,
    ("float", True): 12,
    ("double", False): 22,
    ("double", True): 22,
    ("decimal", False): 10,
    ("decimal", True): 10,
    ("date", False): 10,
    ("datetime", False): 19,
    ("timestamp", False): 19,
    ("time", False): 10,
    ("year", True): 4,
    ("tinytext", False): 255,
    ("text", False): 65535,
    ("mediumtext", False): 16777215,
    ("longtext", False): 4294967295,
    ("tinyblob", False): 255,
    ("blob", False): 65535,
    ("mediumblob", False): 16777215,
    ("longblob", False): 4294967295,
    ("json", False): 4294967295,
}


def family_of(mysql_type: str) -> TypeFamily:
    """The rendering family of a ``mysqlType`` name; KeyError for an unknown name."""
    return _FAMILY[mysql_type]


def is_known_type(mysql_type: str) -> bool:
    return mysql_type in _FAMILY
