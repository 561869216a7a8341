"""Build hook: compile canal-json's native helper (``codec/canal/_latin1.c``) next to its source.

The helper only makes canal-json's binary texts faster; without a C compiler or Python's headers
the build goes on with a warning and the encoder takes its pure-Python way (same bytes). An
editable install imports it from the checkout; a wheel carries it and is tagged for this
interpreter and platform.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("codec/canal/_latin1.c")
PACKAGE_DIR = "tisink/codec/canal"


class NativeHelperHook(BuildHookInterface):
    """Builds the helper for wheels and editable installs (not for the sdist, which ships the
    C source), only when the source is newer than the built module."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        source = Path(self.root, SOURCE)
        target = source.with_name("_latin1" + str(sysconfig.get_config_var("EXT_SUFFIX")))
        if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
            error = _compile(source, target)
            if error:
                self.app.display_warning(
                    f"tisink: canal-json's native helper not built ({error}); "
                    "the encoder takes its pure-Python way"
                )
                return
        if version != "editable":
            build_data["force_include"][str(target)] = f"{PACKAGE_DIR}/{target.name}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True


def _compile(source: Path, target: Path) -> str:
    """Compile ``source`` into the extension ``target`` (``$CC``, else the interpreter's
    compiler); the error, or "" when it is built."""
    compiler = shlex.split(os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc"))
    include = str(sysconfig.get_config_var("INCLUDEPY"))
    command = [*compiler, "-O2", "-fPIC", "-shared", "-I", include, str(source), "-o"]
    partial = target.with_suffix(".partial")
    try:
        done = subprocess.run([*command, str(partial)], capture_output=True, text=True)
    except OSError as err:
        return f"{compiler[0]}: {err.strerror}"
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "compile failed"
    partial.replace(target)
    return ""
