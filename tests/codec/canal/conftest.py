"""``binary_way``: run a module's tests once with the native helper writing binary texts
(``codec/canal/_latin1.c``) and once with the pure-Python way a build without a C compiler
takes; every expectation must hold for both."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tisink.codec.canal import codegen

BUILT = codegen.NATIVE_JSON_TEXT


@pytest.fixture(scope="module", params=["native", "python"])
def binary_way(request: pytest.FixtureRequest) -> Iterator[str]:
    """Module-scoped (hypothesis refuses function-scoped fixtures around ``@given``): the
    generated renderers read ``NATIVE_JSON_TEXT`` when they are compiled, and every test builds
    a fresh encoder."""
    if request.param == "native" and BUILT is None:
        pytest.skip("the native helper is not built (no C compiler at install time)")
    codegen.NATIVE_JSON_TEXT = BUILT if request.param == "native" else None
    try:
        yield request.param
    finally:
        codegen.NATIVE_JSON_TEXT = BUILT
