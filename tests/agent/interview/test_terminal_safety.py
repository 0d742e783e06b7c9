"""Terminal safety: escape sequences (ANSI CSI, OSC, 8-bit CSI, BEL) in a document, a bank entry or an
answer never reach the terminal raw, through `kb search`, `bank show`/`bank list`, the plain front end
or `report`. JSON may carry them escaped (as data); raw bytes on stdout, never."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import QUESTIONS_DIR, cli_env, parse_jsonl, reply_bytes, run_cli

pytestmark = pytest.mark.slow

CLEAR, TITLE, RED, RESET, CSI8 = "\x1b[2J", "\x1b]0;pwned\x07", "\x1b[31m", "\x1b[0m", "\x9b31m"
RAW = [b"\x1b", b"\x07", "\x9b".encode()]
"""What must not be on stdout: ESC (CSI, OSC), BEL (ends an OSC), the 8-bit CSI."""
RAW_IN_JSON = RAW[:2]
"""JSON escapes every C0 control; U+009B is valid JSON text and stays as written."""
DOCUMENT = (
    f"Question: algo-07\n\n# Zanzibar {CLEAR}clipping notes{TITLE}\n\n"
    f"The {RED}zanzibar quokka{RESET} rule clips the probability ratio {CSI8}so each update stays small.\n"
)
ANSWER = (
    f"The {RED}zanzibar quokka{RESET} rule clips the probability ratio,{TITLE} which keeps each update small{CLEAR}."
)


def assert_no_raw_escapes(output: bytes, where: str, raw_bytes: list[bytes] = RAW) -> None:
    for raw in raw_bytes:
        assert raw not in output, f"{where} printed {raw!r} raw"


@pytest.fixture
def store_home(tmp_path: Path) -> Path:
    """A home whose knowledge store holds our notes and a document full of escape sequences."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zanzibar.md").write_text(DOCUMENT, encoding="utf-8")
    built = run_cli(tmp_path, "kb", "build", "--source", str(docs))
    assert built.returncode == 0, built.stderr.decode()
    return tmp_path


def test_kb_search_shows_a_documents_escapes_as_nothing_or_as_json_escapes(store_home):
    text = run_cli(store_home, "kb", "search", "zanzibar quokka rule", "--k", "5")
    assert text.returncode == 0, text.stderr.decode()
    assert_no_raw_escapes(text.stdout, "kb search")
    shown = text.stdout.decode()
    assert "Zanzibar clipping notes" in shown and "zanzibar quokka rule clips" in shown, shown

    as_json = run_cli(store_home, "kb", "search", "zanzibar quokka rule", "--k", "5", "--json")
    assert_no_raw_escapes(as_json.stdout, "kb search --json", RAW_IN_JSON)
    [ours] = [hit for hit in json.loads(as_json.stdout) if hit["source"].endswith("zanzibar.md")]
    assert f"The {RED}zanzibar" in ours["text"], "the data itself is kept as written"


def test_a_session_on_that_store_and_its_report_print_no_escapes(store_home):
    answers = reply_bytes(ANSWER) + b"/end\n"
    plain = run_cli(store_home, "interview", "--plain", "--question", "algo-07", stdin=answers)
    assert plain.returncode == 0, plain.stderr.decode()
    assert_no_raw_escapes(plain.stdout, "the plain front end")
    jsonl = run_cli(store_home, "interview", "--plain", "--jsonl", "--question", "algo-07", stdin=answers)
    assert jsonl.returncode == 0, jsonl.stderr.decode()
    assert_no_raw_escapes(jsonl.stdout, "the JSONL front end", RAW_IN_JSON)
    session_id = parse_jsonl(jsonl.stdout)[-1]["session_id"]

    markdown = run_cli(store_home, "report", session_id)
    assert markdown.returncode == 0, markdown.stderr.decode()
    assert_no_raw_escapes(markdown.stdout, "report")
    shown = markdown.stdout.decode()
    assert "zanzibar.md › Zanzibar clipping notes" in shown, "the document was not among the references"
    assert "zanzibar quokka" in shown, "the answer was not quoted"
    as_json = run_cli(store_home, "report", session_id, "--format", "json")
    assert_no_raw_escapes(as_json.stdout, "report --format json", RAW_IN_JSON)
    assert json.loads(as_json.stdout)["transcript"][0]["answer"] == ANSWER


def bank_cli(bank_dir: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """`rl-interview` with the question bank read from `bank_dir` instead of the shipped one."""
    boot = (
        "import sys; from pathlib import Path; import knowledge.bank as bank; bank.BANK_DIR = Path(sys.argv[1]); "
        "from tui.cli import app; app(sys.argv[2:], prog_name='rl-interview')"
    )
    return subprocess.run(
        [sys.executable, "-c", boot, str(bank_dir), *args],
        check=False,
        capture_output=True,
        timeout=60,
        env=cli_env(home),
    )


def test_bank_show_and_list_print_no_escapes_from_a_bank_file(tmp_path):
    bank_dir = tmp_path / "bank"
    bank_dir.mkdir()
    text = (QUESTIONS_DIR / "algo-07.yaml").read_text(encoding="utf-8")
    assert text.count('en: "How does clipping work in PPO?') == 1 and text.count('statement: "PPO clips') == 1
    text = text.replace('en: "How does clipping work in PPO?', r'en: "\e[2J\e]0;pwned\a How does clipping work in PPO?')
    (bank_dir / "algo-07.yaml").write_text(
        text.replace('statement: "PPO clips', r'statement: "\e[31mPPO clips'), encoding="utf-8"
    )

    show = bank_cli(bank_dir, tmp_path, "bank", "show", "algo-07")
    assert show.returncode == 0, show.stderr.decode()
    assert_no_raw_escapes(show.stdout, "bank show")
    assert "How does clipping work in PPO?" in show.stdout.decode() and "PPO clips" in show.stdout.decode()
    listed = bank_cli(bank_dir, tmp_path, "bank", "list")
    assert listed.returncode == 0, listed.stderr.decode()
    assert_no_raw_escapes(listed.stdout, "bank list")
    assert "algo-07" in listed.stdout.decode()
