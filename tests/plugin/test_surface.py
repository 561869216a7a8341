"""``tisink.plugin`` is the one interface of a sink plugin: a small core plus sub-modules, and
the code written against it (the test plugins, tisink's own ``log://``) imports nothing else of
tisink (checked on the source's imports, so an import inside a function counts too)."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import tisink.ddlsink.base as ddl_sink_base
import tisink.eventsink.base as event_sink_base
import tisink.eventsink.capabilities as event_sink_abilities
import tisink.plugin
import tisink.sink.capabilities as provider_abilities

ROOT = Path(__file__).resolve().parents[2]
SUB_MODULES = ("capabilities", "codec", "events", "mq")
PLUGIN_DIST = sorted((ROOT / "tests" / "plugin_dist").glob("*.py"))
LOG_SINK = sorted((ROOT / "logsink").glob("*.py"))


def test_the_core_is_small_and_the_rest_in_sub_modules() -> None:
    assert len(tisink.plugin.__all__) <= 15
    for name in tisink.plugin.__all__:
        assert hasattr(tisink.plugin, name), name
    for sub in SUB_MODULES:
        module = importlib.import_module(f"tisink.plugin.{sub}")
        assert module.__all__, sub
        assert not set(module.__all__) & set(tisink.plugin.__all__), sub  # one home per name
        for name in module.__all__:
            assert hasattr(module, name), f"tisink.plugin.{sub}.{name}"


def test_the_abilities_the_engines_check_are_offered_to_plugins() -> None:
    """Every runtime-checkable Protocol the engines ask a sink or a provider for is one a
    plugin can name (a sink that implements ``NotifiesAcks`` is notified, not polled)."""
    offered = {getattr(tisink.plugin, name) for name in tisink.plugin.__all__}
    for sub in SUB_MODULES:
        module = importlib.import_module(f"tisink.plugin.{sub}")
        offered |= {getattr(module, name) for name in module.__all__}
    for module in (event_sink_base, event_sink_abilities, ddl_sink_base, provider_abilities):
        protocols = {
            value
            for value in vars(module).values()
            if getattr(value, "_is_runtime_protocol", False) and value.__module__ == module.__name__
        }
        assert protocols, module.__name__
        missing = sorted(p.__name__ for p in protocols - offered)
        assert not missing, f"{module.__name__}: {missing}"


def tisink_imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every absolute import in ``path``, each checked: a module outside
    tisink must be the standard library's."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            pairs = [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs = [(node.module, [alias.name for alias in node.names])]
        else:
            continue
        for module, names in pairs:
            top = module.split(".")[0]
            if top == "tisink":
                found.append((module, names))
            else:
                assert top in sys.stdlib_module_names or top == "__future__", (path.name, module)
    return found


def assert_only_the_plugin_surface(path: Path, own: str | None = None) -> None:
    for module, names in tisink_imports(path):
        if own is not None and module.startswith(own):
            continue
        assert module == "tisink.plugin" or module.removeprefix("tisink.plugin.") in SUB_MODULES
        exported = set(importlib.import_module(module).__all__)
        if module == "tisink.plugin":
            exported |= set(SUB_MODULES)
        assert set(names) <= exported, (path.name, module, set(names) - exported)


@pytest.mark.parametrize("path", PLUGIN_DIST, ids=lambda p: p.name)
def test_the_plugin_distributions_import_only_tisink_plugin(path: Path) -> None:
    assert_only_the_plugin_surface(path)


@pytest.mark.parametrize("path", LOG_SINK, ids=lambda p: p.name)
def test_the_log_sink_imports_only_tisink_plugin(path: Path) -> None:
    assert_only_the_plugin_surface(path, own="tisink.logsink")


def test_the_check_sees_an_internal_import(tmp_path: Path) -> None:
    plugin = tmp_path / "tisink_bad.py"
    plugin.write_text("def f():\n    from tisink.eventsink.batching import BatchingSink\n")
    with pytest.raises(AssertionError):
        assert_only_the_plugin_surface(plugin)
