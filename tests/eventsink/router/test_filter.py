"""TiDB table-filter syntax as dispatch matchers use it."""

from __future__ import annotations

import pytest

from tisink.eventsink.router import FilterSyntaxError, TableFilter


def matches(patterns: list[str], schema: str, table: str, *, case_sensitive: bool = False) -> bool:
    return TableFilter(patterns, case_sensitive=case_sensitive).match_table(schema, table)


@pytest.mark.parametrize(
    ("patterns", "schema", "table", "expected"),
    [
        (["*.*"], "any", "thing", True),
        (["test.t1"], "test", "t1", True),
        (["test.t1"], "test", "t10", False),
        (["test.t*"], "test", "t10", True),
        (["test.t*"], "test", "x10", False),
        (["test.t?"], "test", "t1", True),
        (["test.t?"], "test", "t12", False),
        (["test.t[0-9]"], "test", "t7", True),
        (["test.t[0-9]"], "test", "ta", False),
        (["test.t[!0-9]"], "test", "ta", True),
        (["test.t[!0-9]"], "test", "t7", False),
        (["test.t[^]"], "test", "t^", True),  # a leading ^ in a class is literal in globs
        (["test.t[^]"], "test", "ta", False),
        (["db*.*"], "db1", "x", True),
        (["db*.*"], "xdb1", "x", False),  # wildcards match the whole name
        (["*.*", "!*.test"], "sbs", "test", False),  # the last matching pattern decides
        (["*.*", "!*.test"], "sbs", "table2", True),
        (["!*.test", "*.*"], "sbs", "test", True),
        (["!a.b"], "a", "b", False),
        (["!a.b"], "c", "d", False),  # nothing positive: matches nothing
        ([], "a", "b", False),
        (["# comment", "  a.b\t"], "a", "b", True),
        (["`a.b`.`c``d`"], "a.b", "c`d", True),
        (['"a.b"."c""d"'], "a.b", 'c"d', True),
        ([r"a\.b.c"], "a.b", "c", True),
        ([r"a\*.c"], "a*", "c", True),
        ([r"a\*.c"], "ab", "c", False),
        (["/^db[0-9]+$/./t/"], "db12", "my_t_1", True),  # /regexp/ is a search, not anchored
        (["/^db[0-9]+$/./t/"], "db1x", "t", False),
        (["数据.表*"], "数据", "表一", True),
        (["$x_1.y"], "$x_1", "y", True),
        (["a.[[]"], "a", "[", True),
        ([".b"], "", "b", True),  # an empty schema pattern is the literal empty name
    ],
)
def test_matching(patterns: list[str], schema: str, table: str, expected: bool):
    assert matches(patterns, schema, table) is expected


@pytest.mark.parametrize(
    ("patterns", "schema", "table"),
    [
        (["Test.T1"], "test", "t1"),
        (["test.t1"], "TEST", "T1"),
        (["TEST.T*"], "test", "t9"),
        (["test.t[A-C]"], "test", "tb"),
        (["/^DB/.*"], "db1", "x"),
        (["`MixedCase`.x"], "mixedcase", "X"),
    ],
)
def test_case_insensitive_by_default_and_sensitive_on_request(patterns, schema, table):
    assert matches(patterns, schema, table) is True
    assert matches(patterns, schema, table, case_sensitive=True) is False


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("test", "wrong table pattern"),
        ("test-x.t", "unexpected special character '-'"),
        ("a.b.c", "stray characters"),
        ("a b.c", "unexpected special character ' '"),
        ("a.", "missing pattern"),
        ("a.t[", "character class"),
        ("a.t[]", "character class"),
        (r"a.\t", "cannot escape a letter or number"),
        ("a.t\\", r"cannot place \\ at end"),
        ("`a.b", "incomplete quoted name"),
        ("/a.b", "incomplete regexp"),
        ("/(/.b", "invalid pattern"),
        ("@rules.txt", "not supported"),
        ("a?", "wrong table pattern"),
        ("`a`b.c", "missing '.'"),
    ],
)
def test_syntax_errors_name_the_pattern(pattern: str, message: str):
    with pytest.raises(FilterSyntaxError, match=message) as caught:
        TableFilter([pattern])
    assert repr(pattern) in str(caught.value)
