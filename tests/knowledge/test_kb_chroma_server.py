"""Chroma server mode: a real `chroma run` subprocess instead of the embedded store."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from kb_helpers import write

from common.settings import load_settings
from knowledge.store import KnowledgeStore, StoreError


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def chroma_command() -> str:
    beside_python = Path(sys.executable).with_name("chroma")
    found = str(beside_python) if beside_python.exists() else shutil.which("chroma")
    assert found, "the `chroma` command (from the chromadb package) is not installed"
    return found


def wait_for_heartbeat(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"chroma run exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise AssertionError(f"no heartbeat from {url} within {timeout} s")


@pytest.fixture
def chroma_server(tmp_path: Path):
    port = free_port()
    log = (tmp_path / "chroma-server.log").open("wb")
    proc = subprocess.Popen(
        [chroma_command(), "run", "--path", str(tmp_path / "server-data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_heartbeat(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.mark.slow
def test_build_and_search_through_a_chroma_server(chroma_server, monkeypatch, tmp_path, isolated_env):
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", chroma_server)
    folder = tmp_path / "docs"
    write(
        folder / "algo-07.md",
        "# PPO clipping\n\nQuestion: algo-07\n\nThe ratio is clipped to one plus or minus epsilon.\n",
    )
    write(
        folder / "infra-04.md", "# Long tail\n\nQuestion: infra-04\n\nA few very long rollouts leave most GPUs idle.\n"
    )

    settings = load_settings()
    assert settings.chroma_url == chroma_server
    report = KnowledgeStore(settings).build([folder])
    assert report.chunks_embedded == 2

    store = KnowledgeStore(settings)
    hits = store.search("long rollouts idle GPUs", 2)
    assert hits and hits[0].question_id == "infra-04"
    assert [h.question_id for h in store.search("ratio clipped", 5, question_id="algo-07")] == ["algo-07"]
    assert store.status()["location"] == chroma_server
    assert store.status()["chunks"] == 2

    # the server keeps the manifest: a second build embeds nothing
    assert KnowledgeStore(settings).build([folder]).chunks_embedded == 0
    # and nothing went to the embedded store
    assert not (isolated_env / "store" / "chroma").exists()
    assert (tmp_path / "server-data").is_dir()


def test_closed_port_gives_a_store_error_naming_the_url(monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"  # bound and released: nobody listens there
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", url)
    store = KnowledgeStore(load_settings())
    with pytest.raises(StoreError) as raised:
        store.search("anything")
    assert url in str(raised.value)
    with pytest.raises(StoreError) as raised:
        store.build([])
    assert url in str(raised.value)


def test_cli_with_unreachable_server_exits_1_without_traceback(runner, app, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", url)
    result = runner.invoke(app, ["kb", "status"])
    assert result.exit_code == 1
    assert url in result.output
    assert "Traceback" not in result.output
