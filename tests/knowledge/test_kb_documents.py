"""Reading source documents: each kind of bad file is refused with one line naming it."""

from __future__ import annotations

import pytest
from kb_helpers import write

from knowledge.documents import DocumentError, discover, read_document, source_key

LIMIT = 2_000_000


def test_reads_text_with_question_line_title_and_hash(tmp_path):
    path = write(tmp_path / "note.md", "# PPO clipping\n\nQuestion: algo-07\n\nThe ratio is clipped.\n")
    doc = read_document(path, LIMIT)
    assert doc.question_id == "algo-07"
    assert "Question:" not in doc.text
    assert "The ratio is clipped." in doc.text
    assert doc.title == "PPO clipping"
    assert len(doc.sha256) == 64
    assert doc.key == str(path.resolve())


def test_same_bytes_same_hash_different_bytes_different_hash(tmp_path):
    a = read_document(write(tmp_path / "a.md", "same text\n"), LIMIT)
    b = read_document(write(tmp_path / "b.md", "same text\n"), LIMIT)
    c = read_document(write(tmp_path / "c.md", "same text!\n"), LIMIT)
    assert a.sha256 == b.sha256 != c.sha256


def test_utf8_bom_is_not_part_of_the_text(tmp_path):
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff# Überschrift\n\nText.\n".encode())
    doc = read_document(path, LIMIT)
    assert doc.text.startswith("# Überschrift")
    assert doc.title == "Überschrift"


def test_notes_are_keyed_relative_to_the_notes_folder(package_notes):
    path = write(package_notes / "algo-07.md", "Question: algo-07\n\nbody\n")
    assert source_key(path) == "notes/algo-07.md"


@pytest.mark.parametrize(
    "name,content,reason",
    [
        ("latin1.txt", "Größe und Übung\n".encode("latin-1"), "UTF-8"),
        ("empty.md", b"", "empty"),
        ("blank.md", b"  \n\n\t\n", "empty"),
        ("blob.bin", b"PK\x03\x04\x00\x00binary\x00data", "binary"),
    ],
)
def test_bad_files_raise_one_line_naming_the_file(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DocumentError) as raised:
        read_document(path, LIMIT)
    message = str(raised.value)
    assert str(path) in message
    assert reason in message
    assert "\n" not in message


def test_non_utf8_names_the_line(tmp_path):
    path = tmp_path / "mixed.md"
    path.write_bytes(b"line one\nline two\nline \xe4hree\n")
    with pytest.raises(DocumentError) as raised:
        read_document(path, LIMIT)
    assert f"{path}:3" in str(raised.value)


def test_too_large_file_is_refused_with_its_size(tmp_path):
    path = tmp_path / "huge.md"
    path.write_bytes(b"word " * 2_000_000)  # 10 MB
    with pytest.raises(DocumentError) as raised:
        read_document(path, LIMIT)
    assert str(path) in str(raised.value)
    assert "10.0 MB" in str(raised.value)


def test_discover_reports_missing_sources_and_skips_hidden_files(tmp_path):
    folder = tmp_path / "docs"
    write(folder / "a.md", "a")
    write(folder / "sub" / "b.txt", "b")
    write(folder / ".hidden.md", "c")
    missing = tmp_path / "nope"
    files, problems = discover([folder, missing])
    assert sorted(p.name for p in files) == ["a.md", "b.txt"]
    assert len(problems) == 1 and str(missing) in problems[0]
