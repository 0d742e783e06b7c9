"""Whether the process holding a session is alive: a killed one that is not reaped yet is not."""

import subprocess
import time
from pathlib import Path

from agent.interview.sessions import process_alive


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]


def test_a_running_process_is_alive_and_a_killed_unreaped_one_is_not():
    child = subprocess.Popen(["sleep", "60"])
    try:
        assert process_alive(child.pid)
        child.kill()
        deadline = time.monotonic() + 30
        while _state(child.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.05)  # not reaped (no wait yet): the kernel keeps it as a zombie
        assert _state(child.pid) == "Z"
        assert not process_alive(child.pid), "a zombie holds no session"
    finally:
        child.wait()
    assert not process_alive(child.pid)
