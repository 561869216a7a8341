"""``launch_on_free_ports``: a start that loses its port to another process is tried again on
other ports, its work dir dropped; the last loss is the error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tisink.run.errors import RunError
from tisink.run.jvm import PortTaken, launch_on_free_ports


def test_a_lost_port_is_tried_again_and_its_work_dir_dropped(tmp_path: Path) -> None:
    dirs = [tmp_path / f"try-{n}" for n in range(3)]
    tries: list[int] = []

    def launch() -> str:
        tries.append(len(tries))
        if len(tries) < 3:
            dirs[len(tries) - 1].mkdir()
            raise PortTaken(RunError(f"port {len(tries)} taken"), dirs[len(tries) - 1])
        return "started"

    assert launch_on_free_ports(launch, 3) == "started"
    assert tries == [0, 1, 2]
    assert not dirs[0].exists() and not dirs[1].exists()


def test_the_last_loss_is_the_error_and_keeps_its_log(tmp_path: Path) -> None:
    def launch() -> str:
        (tmp_path / "kept").mkdir(exist_ok=True)
        raise PortTaken(RunError("port 1 taken; log in kept"), tmp_path / "kept")

    with pytest.raises(RunError, match="port 1 taken") as raised:
        launch_on_free_ports(launch, 1)
    assert not isinstance(raised.value, PortTaken)
    assert (tmp_path / "kept").exists()  # the log of a failed start stays for the reader
