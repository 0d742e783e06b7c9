"""`kb build`: bad input files, a damaged store, and incremental builds on a real embedded Chroma."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kb_helpers import write

from common.settings import load_settings
from knowledge.embeddings import HashEmbedding
from knowledge.store import KnowledgeStore, StoreError
from tui.cli.console import EXIT_SKIPPED

PPO_NOTE = """# PPO clipping

Question: algo-07

## The clipped objective
PPO multiplies the advantage by the probability ratio and clips the ratio to one plus or minus epsilon.

## Why the minimum
Taking the minimum of the clipped and unclipped terms gives a pessimistic bound on improvement.
"""

GRPO_NOTE = """# GRPO and the KL penalty

Question: algo-08

## Group baseline
GRPO samples a group of responses per prompt and uses their mean reward as the baseline.

## KL estimator
The k3 estimator of the reverse KL is unbiased and always positive.
"""

DEDUP_NOTE = """# Deduplication of rollouts

Zebrafish quokka marmalade: an unrelated document about deduplicating rollout buffers.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    write(folder / "ppo.md", PPO_NOTE)
    write(folder / "grpo.md", GRPO_NOTE)
    write(folder / "dedup.md", DEDUP_NOTE)
    return folder


@pytest.fixture
def embedded_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every passage the hash embedding encodes (queries excluded), through the real backend."""
    seen: list[str] = []
    real = HashEmbedding._encode

    def counting(self, texts, query):
        if not query:
            seen.extend(texts)
        return real(self, texts, query)

    monkeypatch.setattr(HashEmbedding, "_encode", counting)
    return seen


def sources_in(store: KnowledgeStore) -> dict[str, int]:
    metadatas = store.collection().get(include=["metadatas"])["metadatas"]
    counts: dict[str, int] = {}
    for meta in metadatas:
        counts[meta["source"]] = counts.get(meta["source"], 0) + 1
    return counts


def key(path: Path) -> str:
    return str(path.resolve())


# -- bad input --------------------------------------------------------------------------------


@pytest.fixture
def bad_docs(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    folder = tmp_path / "mixed"
    good = write(folder / "good.md", PPO_NOTE)
    bad = {
        "latin1": folder / "latin1.txt",
        "empty": folder / "empty.md",
        "binary": folder / "image.png",
        "huge": folder / "huge.md",
    }
    bad["latin1"].write_bytes("Über die Größe der Schritte\n".encode("latin-1"))
    bad["empty"].write_bytes(b"")
    bad["binary"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    bad["huge"].write_bytes(b"lorem ipsum dolor sit amet " * 400_000)  # ~10.8 MB
    return folder, {"good": good, **bad}


def test_build_skips_each_bad_file_with_one_line_and_indexes_the_rest(hash_settings, bad_docs):
    folder, files = bad_docs
    store = KnowledgeStore(hash_settings)
    report = store.build([folder])

    assert report.embedded_files == [key(files["good"])]
    assert len(report.skipped) == 4
    for name in ("latin1", "empty", "binary", "huge"):
        lines = [line for line in report.skipped if str(files[name]) in line]
        assert len(lines) == 1, (name, report.skipped)
        assert "\n" not in lines[0]
    hits = store.search("clipped ratio epsilon", 3)
    assert hits and hits[0].source == key(files["good"])


def test_cli_build_with_bad_files_exits_3_and_names_each_once(runner, app, bad_docs):
    folder, files = bad_docs
    result = runner.invoke(app, ["kb", "build", "--source", str(folder)])
    assert result.exit_code == EXIT_SKIPPED == 3, result.output
    for name in ("latin1", "empty", "binary", "huge"):
        assert result.output.count(str(files[name])) == 1, (name, result.output)
    assert "Traceback" not in result.output

    found = runner.invoke(app, ["kb", "search", "clipped ratio epsilon", "--json"])
    assert found.exit_code == 0, found.output
    assert key(files["good"]) in found.stdout


def test_cli_build_clean_folder_exits_0(runner, app, docs):
    result = runner.invoke(app, ["kb", "build", "--source", str(docs)])
    assert result.exit_code == 0, result.output
    status = runner.invoke(app, ["kb", "status", "--json"])
    assert status.exit_code == 0
    assert '"documents": 3' in status.stdout


def test_missing_source_is_reported_and_exits_3(runner, app, docs, tmp_path):
    missing = tmp_path / "not-there"
    result = runner.invoke(app, ["kb", "build", "--source", str(docs), "--source", str(missing)])
    assert result.exit_code == 3
    assert str(missing) in result.output


def test_file_that_becomes_too_large_is_skipped(monkeypatch, tmp_path, docs):
    monkeypatch.setenv("RL_INTERVIEW_KNOWLEDGE__MAX_FILE_MB", "0.0001")  # 100 bytes
    report = KnowledgeStore(load_settings()).build([docs])
    assert len(report.skipped) == 3
    assert all("too large" in line for line in report.skipped)


# -- damaged store ----------------------------------------------------------------------------


def damage_store(home: Path) -> Path:
    sqlite = home / "store" / "chroma" / "chroma.sqlite3"
    assert sqlite.is_file()
    sqlite.write_bytes(b"this is not a database\x00" * 4096)
    return sqlite


def test_damaged_store_gives_a_clear_error_and_rebuild_repairs_it(runner, app, docs, isolated_env, forget_chroma):
    """Each CLI command is its own process in real use: Chroma's per-process client cache is
    dropped before every command, as a fresh process would start without it."""

    def run(*args: str):
        forget_chroma()
        return runner.invoke(app, list(args))

    assert run("kb", "build", "--source", str(docs)).exit_code == 0
    damage_store(isolated_env)

    forget_chroma()
    with pytest.raises(StoreError) as raised:
        KnowledgeStore(load_settings()).search("clipping")
    assert "kb build --rebuild" in str(raised.value)

    for command in (["kb", "search", "clipping"], ["kb", "status"], ["kb", "build", "--source", str(docs)]):
        result = run(*command)
        assert result.exit_code == 1, (command, result.output)
        assert "kb build --rebuild" in result.output
        assert "Traceback" not in result.output
        assert isinstance(result.exception, SystemExit)

    rebuilt = run("kb", "build", "--rebuild", "--source", str(docs))
    assert rebuilt.exit_code == 0, rebuilt.output
    found = run("kb", "search", "clipped ratio epsilon", "--json")
    assert found.exit_code == 0, found.output
    assert key(docs / "ppo.md") in found.stdout
    # the damaged files were moved aside, not deleted
    assert any(p.name.startswith("chroma.damaged") for p in (isolated_env / "store").iterdir())


def test_rebuild_right_after_a_failed_open_in_the_same_process(hash_settings, docs, isolated_env, forget_chroma):
    """The in-process variant (e.g. a long-running app): search fails, then rebuild repairs."""
    KnowledgeStore(hash_settings).build([docs])
    forget_chroma()
    damage_store(isolated_env)
    with pytest.raises(StoreError):
        KnowledgeStore(hash_settings).search("clipping")
    report = KnowledgeStore(hash_settings).build([docs], rebuild=True)
    assert report.chunks_embedded > 0
    assert KnowledgeStore(hash_settings).search("clipped ratio epsilon", 1)[0].source == key(docs / "ppo.md")


CLI_WITH_NOTES_DIR = (
    "import sys; from pathlib import Path; import knowledge.documents as d; "
    "d.NOTES_DIR = Path(sys.argv[1]); sys.argv = ['rl-interview', *sys.argv[2:]]; "
    "from tui.cli import main; main()"
)


@pytest.mark.slow
def test_damaged_store_with_the_real_command_in_separate_processes(docs, isolated_env, package_notes):
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", CLI_WITH_NOTES_DIR, str(package_notes), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "COLUMNS": "200"},
        )

    assert run("kb", "build", "--source", str(docs)).returncode == 0
    damage_store(isolated_env)

    search = run("kb", "search", "clipping")
    assert search.returncode == 1
    assert "kb build --rebuild" in search.stderr
    assert "Traceback" not in search.stderr + search.stdout

    rebuild = run("kb", "build", "--rebuild", "--source", str(docs))
    assert rebuild.returncode == 0, rebuild.stderr
    again = run("kb", "search", "clipped ratio epsilon", "--json")
    assert again.returncode == 0, again.stderr
    assert key(docs / "ppo.md") in again.stdout


def test_rebuild_of_a_healthy_store_starts_from_empty(hash_settings, docs, embedded_texts):
    store = KnowledgeStore(hash_settings)
    first = store.build([docs])
    report = KnowledgeStore(hash_settings).build([docs], rebuild=True)
    assert report.chunks_embedded == first.chunks_embedded > 0
    assert len(embedded_texts) == 2 * first.chunks_embedded
    assert sum(sources_in(KnowledgeStore(hash_settings)).values()) == first.chunks_embedded


def test_store_built_with_another_embedding_asks_for_rebuild(monkeypatch, docs):
    KnowledgeStore(load_settings()).build([docs])
    monkeypatch.setenv("RL_INTERVIEW_KNOWLEDGE__EMBEDDING", "e5")
    with pytest.raises(StoreError) as raised:
        KnowledgeStore(load_settings()).search("clipping")
    message = str(raised.value)
    assert "kb build --rebuild" in message
    # a configuration change, not damage: say which embedding built the store and which is set
    assert "'hash'" in message and "'e5'" in message, message
    assert "damaged" not in message, message
    # and the suggested fix works
    assert KnowledgeStore(load_settings()).build([docs], rebuild=True).chunks_embedded > 0


def test_searching_before_any_build_says_to_build(hash_settings):
    with pytest.raises(StoreError) as raised:
        KnowledgeStore(hash_settings).search("anything")
    assert "kb build" in str(raised.value)


# -- incremental builds -----------------------------------------------------------------------


def test_second_build_with_nothing_changed_embeds_nothing(hash_settings, docs, embedded_texts):
    first = KnowledgeStore(hash_settings).build([docs])
    assert first.chunks_embedded > 0
    assert len(embedded_texts) == first.chunks_embedded
    assert sorted(first.embedded_files) == sorted(key(p) for p in docs.iterdir())

    embedded_texts.clear()
    second = KnowledgeStore(hash_settings).build([docs])
    assert second.chunks_embedded == 0
    assert second.embedded_files == [] and second.removed_files == []
    assert second.unchanged_files == 3
    assert embedded_texts == []
    assert sum(sources_in(KnowledgeStore(hash_settings)).values()) == first.chunks_embedded


def test_changing_one_file_re_embeds_only_that_file(hash_settings, docs, embedded_texts):
    store = KnowledgeStore(hash_settings)
    store.build([docs])
    before = sources_in(store)
    ids_before = set(store.collection().get()["ids"])

    write(docs / "grpo.md", GRPO_NOTE + "\n## Length bias\nDr. GRPO removes the length normalisation.\n")
    embedded_texts.clear()
    report = KnowledgeStore(hash_settings).build([docs])

    assert report.embedded_files == [key(docs / "grpo.md")]
    assert report.unchanged_files == 2
    after = sources_in(KnowledgeStore(hash_settings))
    assert after[key(docs / "grpo.md")] == report.chunks_embedded == len(embedded_texts)
    assert after[key(docs / "grpo.md")] > before[key(docs / "grpo.md")]
    assert all("GRPO and the KL penalty" in t for t in embedded_texts)  # only the changed note
    for unchanged in ("ppo.md", "dedup.md"):
        assert after[key(docs / unchanged)] == before[key(docs / unchanged)]
    ids_after = set(KnowledgeStore(hash_settings).collection().get()["ids"])
    kept = {i for i in ids_before if not i.endswith("grpo.md")}
    assert kept <= ids_after  # unchanged files keep their chunks (and vectors) as they were
    hits = KnowledgeStore(hash_settings).search("length normalisation", 2)
    assert hits[0].source == key(docs / "grpo.md")
    assert "length normalisation" in " ".join(h.text for h in hits)


def test_same_content_rewritten_is_not_re_embedded(hash_settings, docs, embedded_texts):
    KnowledgeStore(hash_settings).build([docs])
    (docs / "ppo.md").write_text(PPO_NOTE, encoding="utf-8")  # new mtime, same bytes
    embedded_texts.clear()
    report = KnowledgeStore(hash_settings).build([docs])
    assert report.chunks_embedded == 0 and embedded_texts == []


def test_deleting_a_file_removes_its_chunks(hash_settings, docs):
    store = KnowledgeStore(hash_settings)
    store.build([docs])
    target = key(docs / "dedup.md")
    assert any(h.source == target for h in store.search("zebrafish quokka marmalade", 3))

    (docs / "dedup.md").unlink()
    report = KnowledgeStore(hash_settings).build([docs])
    assert report.removed_files == [target]
    assert report.chunks_embedded == 0

    fresh = KnowledgeStore(hash_settings)
    assert target not in sources_in(fresh)
    for mode in ("hybrid", "dense", "lexical"):
        assert all(h.source != target for h in fresh.search("zebrafish quokka marmalade", 10, mode=mode))


def test_removed_source_folder_removes_its_chunks(hash_settings, docs, tmp_path):
    other = tmp_path / "other"
    write(other / "extra.md", "# Extra\n\nAn extra document about speculative decoding.\n")
    KnowledgeStore(hash_settings).build([docs, other])
    report = KnowledgeStore(hash_settings).build([docs])
    assert report.removed_files == [key(other / "extra.md")]


@pytest.mark.parametrize("where", ["extra source", "package notes"])
def test_file_that_turns_unreadable_keeps_its_previous_chunks(hash_settings, docs, package_notes, where):
    """A file that is still there but cannot be read this time is skipped with a message; its
    chunks from the last good build stay (the same rule for our notes and for --source files)."""
    folder = docs if where == "extra source" else package_notes
    path = write(folder / "kl-note.md", "# KL\n\nQuestion: algo-08\n\nThe k3 estimator is always positive.\n")
    store = KnowledgeStore(hash_settings)
    store.build([docs])
    assert store.for_question("algo-08")

    path.write_bytes(b"# KL\n\nThe k3 estimator is \xff\xfe broken now.\n")
    report = KnowledgeStore(hash_settings).build([docs])
    assert any(str(path) in line for line in report.skipped)
    assert report.removed_files == []
    texts = [h.text for h in KnowledgeStore(hash_settings).for_question("algo-08")]
    assert any("always positive" in t for t in texts), texts


def test_progress_reports_every_embedded_chunk(hash_settings, docs):
    calls: list[tuple[int, int]] = []
    report = KnowledgeStore(hash_settings).build([docs], progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (report.chunks_embedded, report.chunks_embedded)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
