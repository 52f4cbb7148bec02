"""The safe file layer: what is not a regular file is refused before it is opened or replaced,
every read is bounded, many-file exports keep to safe names inside their folder and never write
one path twice."""

from __future__ import annotations

import os
import stat

import pytest

from designer.core.safe_io import (
    ExportFolder,
    FileRefused,
    atomic_write,
    copy_tree,
    decode_text,
    is_safe_file_name,
    read_bytes,
    read_text,
    regular_file,
    write_file,
    write_stream,
)
from designer.core.writers.stream import write_chunks


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


@pytest.fixture
def null_device(tmp_path):
    """A second /dev/null made beside the test (root only): replacing it harms nothing."""
    p = tmp_path / "null"
    try:
        os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return p


def test_reading_a_fifo_is_refused_without_waiting(fifo):
    # Without O_NONBLOCK the open itself would wait forever for a writer.
    with pytest.raises(FileRefused, match="FIFO"):
        read_bytes(fifo, limit=100)
    with pytest.raises(FileRefused, match="FIFO"):
        regular_file(fifo)


def test_reading_a_device_is_refused(null_device):
    with pytest.raises(FileRefused, match="character device"):
        read_bytes(null_device, limit=100)


def test_reading_dev_zero_is_refused():
    with pytest.raises(FileRefused, match="character device"):
        read_text("/dev/zero", limit=100, what="quote")


def test_a_folder_and_a_missing_file_are_refused(tmp_path):
    with pytest.raises(FileRefused, match="folder"):
        read_bytes(tmp_path, limit=10)
    with pytest.raises(FileRefused, match="no such file"):
        read_bytes(tmp_path / "nope", limit=10)


def test_a_symlink_to_a_regular_file_is_followed(tmp_path):
    real = tmp_path / "real.txt"
    real.write_bytes(b"abc")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert read_bytes(link, limit=10) == b"abc"


def test_reads_are_bounded(tmp_path):
    p = tmp_path / "big"
    p.write_bytes(b"x" * 1001)
    with pytest.raises(FileRefused, match="too large"):
        read_bytes(p, limit=1000)
    assert len(read_bytes(p, limit=1001)) == 1001


def test_a_file_whose_size_lies_is_still_bounded():
    # Files in /proc report size 0 and hold more: the read stops at the limit.
    with pytest.raises(FileRefused, match="more than 10 bytes"):
        read_bytes("/proc/self/status", limit=10)


def test_text_is_utf8_or_says_the_line():
    assert decode_text("é".encode(), "f") == "é"
    assert decode_text("\ufeffa,b".encode(), "f") == "a,b"
    assert decode_text("a,b\n".encode("utf-16"), "f") == "a,b\n"
    with pytest.raises(FileRefused, match=r"line 2 is not UTF-8 .*0xFC"):
        decode_text("a\nü\n".encode("latin-1"), "traffic.csv")
    assert decode_text("ü".encode("latin-1"), "f", fallback="latin-1") == "ü"


def test_writing_over_a_fifo_or_device_is_refused_and_leaves_it(fifo, tmp_path):
    with pytest.raises(FileRefused, match="FIFO"):
        write_file(fifo, b"x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(FileRefused, match="FIFO"):
        atomic_write(fifo, b"x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # a symlink to it is replaced by the file, never written through
    link = tmp_path / "link"
    link.symlink_to(fifo)
    write_file(link, b"x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not link.is_symlink() and link.read_bytes() == b"x"


def test_writing_over_a_device_is_refused_and_leaves_it(null_device):
    with pytest.raises(FileRefused, match="character device"):
        write_file(null_device, b"x")
    assert stat.S_ISCHR(os.lstat(null_device).st_mode)


def test_writing_into_a_missing_folder_or_onto_a_folder_is_refused(tmp_path):
    with pytest.raises(FileRefused, match="does not exist"):
        write_file(tmp_path / "no" / "x.csv", b"x")
    with pytest.raises(FileRefused, match="folder"):
        write_file(tmp_path, b"x")


def test_a_regular_file_is_replaced_atomically(tmp_path):
    p = tmp_path / "out.csv"
    p.write_bytes(b"old")
    write_file(p, b"new")
    assert p.read_bytes() == b"new"
    assert [x.name for x in tmp_path.iterdir()] == ["out.csv"]


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a\\b", "x:y", "nul", "COM1.txt",
                                  "a\x1bb", "a\nb", ".hidden", "-rf", "x" * 201, "end."])
def test_unsafe_file_names(name):
    assert not is_safe_file_name(name)


@pytest.mark.parametrize("name", ["leaf-1.json", "Leaf_1", "spine.01", "ü-ñ", "frr.conf"])
def test_safe_file_names(name):
    assert is_safe_file_name(name)


def test_export_folder_refuses_a_path_twice_and_names_outside(tmp_path):
    out = ExportFolder(tmp_path / "cfg")
    out.write(("servers", "a.txt"), "one")
    with pytest.raises(FileRefused, match="written twice"):
        out.write(("servers", "A.txt"), "two")  # one file on a case-insensitive system
    assert (tmp_path / "cfg" / "servers" / "a.txt").read_text() == "one"
    with pytest.raises(FileRefused, match="cannot be a file name"):
        out.write(("..", "escape.txt"), "x")
    with pytest.raises(FileRefused, match="cannot be a file name"):
        out.write("../escape.txt", "x")
    assert not (tmp_path / "escape.txt").exists()
    assert out.written == [tmp_path / "cfg" / "servers" / "a.txt"]


def test_export_folder_over_a_file_or_fifo_is_refused(tmp_path, fifo):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(FileRefused, match="a file; the export is a folder"):
        ExportFolder(f)
    with pytest.raises(FileRefused, match="FIFO"):
        ExportFolder(fifo)


# -- links planted at output paths: replaced, never written through --------------------------
def _victim(tmp_path):
    victim = tmp_path / "home" / "bashrc"
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(b"keep me")
    return victim


def test_a_link_at_the_output_path_is_replaced_not_followed(tmp_path):
    victim = _victim(tmp_path)
    for k, write in enumerate((lambda p: write_file(p, b"new"),
                               lambda p: atomic_write(p, b"new"),
                               lambda p: write_stream(p, ["n", "ew"]),
                               lambda p: write_chunks(p, ["n", "ew"]))):
        link = tmp_path / f"out{k}.csv"
        link.symlink_to(victim)
        write(link)
        assert victim.read_bytes() == b"keep me"
        assert not link.is_symlink() and link.read_bytes() == b"new"
    assert not (victim.parent / "bashrc.bak").exists()


def test_a_dangling_link_is_replaced_and_creates_nothing_where_it_points(tmp_path):
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    write_file(link, b"{}")
    assert not (tmp_path / "elsewhere.json").exists() and link.read_bytes() == b"{}"


def test_streamed_writes_refuse_special_files_and_use_the_umask(tmp_path, fifo):
    with pytest.raises(FileRefused, match="FIFO"):
        write_chunks(fifo, ["x"])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    old = os.umask(0o027)
    try:
        write_chunks(tmp_path / "a.json", ["{}"])
        write_file(tmp_path / "b.sh", b"#!/bin/sh\n", executable=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(tmp_path / "b.sh").st_mode) == 0o750


def test_export_folder_refuses_a_linked_folder_or_subfolder(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root_link = tmp_path / "out"
    root_link.symlink_to(elsewhere)
    with pytest.raises(FileRefused, match="symbolic link"):
        ExportFolder(root_link)
    real = tmp_path / "real"
    (real).mkdir()
    (real / "switches").symlink_to(elsewhere)
    folder = ExportFolder(real)
    with pytest.raises(FileRefused, match="symbolic link"):
        folder.write(("switches", "leaf1.conf"), "x")
    assert not any(elsewhere.iterdir())
    # a file link inside the folder is replaced
    victim = _victim(tmp_path)
    (real / "plan.json").symlink_to(victim)
    folder.write("plan.json", "{}")
    assert victim.read_bytes() == b"keep me" and not (real / "plan.json").is_symlink()


def test_copy_tree_replaces_links_in_the_destination(tmp_path):
    src = tmp_path / "work"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "log.txt").write_text("log")
    (src / "x.sock").write_text("")
    dest = tmp_path / "keep"
    (dest / "sub").mkdir(parents=True)
    victim = _victim(tmp_path)
    (dest / "sub" / "log.txt").symlink_to(victim)
    copy_tree(src, dest, "the kept logs", skip=(".sock",))
    assert victim.read_bytes() == b"keep me"
    assert (dest / "sub" / "log.txt").read_text() == "log" and not (dest / "x.sock").exists()


def test_export_folder_removes_killed_writes_temporaries_listing_each_folder_once(
        tmp_path, monkeypatch):
    import time

    from designer.core import safe_io

    sub = tmp_path / "sw"
    sub.mkdir()
    long_ago = time.time() - 3600

    def left(folder, name, suffix, old=True):
        p = folder / f".{name}.{suffix}.tmp"
        p.write_bytes(b"x")
        if old:
            os.utime(p, (long_ago, long_ago))
        return p

    stale = [left(tmp_path, "a.txt", "abcd1234"), left(sub, "b.txt", "abcd1234"),
             left(sub, "b.txt", "zzzz9999")]
    fresh = left(sub, "b.txt", "efgh5678", old=False)  # another write may be at it now
    other = left(sub, "c.txt", "abcd1234")  # a file this export does not write
    odd = sub / ".b.txt.abc.tmp"  # not mkstemp's 8 characters
    odd.write_bytes(b"x")
    os.utime(odd, (long_ago, long_ago))
    listed = []
    real_scandir = os.scandir
    monkeypatch.setattr(safe_io.os, "scandir", lambda p: listed.append(p) or real_scandir(p))
    out = ExportFolder(tmp_path)
    out.write("a.txt", "1")
    out.write(("sw", "b.txt"), "2")
    for k in range(20):
        out.write(("sw", f"n{k}.txt"), "3")
    out.write_stream(("sw", "s.txt"), iter(["4"]))
    assert not any(p.exists() for p in stale)
    assert fresh.exists() and other.exists() and odd.exists()
    assert sorted(map(str, listed)) == sorted([str(tmp_path), str(sub)])
    assert (sub / "b.txt").read_text() == "2" and (sub / "s.txt").read_text() == "4"

