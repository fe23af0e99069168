"""Files the writers must not overwrite or remove (issue #38): a device,
the store being read, the target of a symbolic link. An existing regular
file is still replaced, and a failed write leaves nothing behind."""

import os
import stat

import numpy as np
import pytest

import octal


def is_device(path):
    return stat.S_ISCHR(os.stat(path).st_mode)


def test_a_device_is_refused_and_never_removed():
    assert is_device("/dev/full")
    with pytest.raises(OSError, match="not a regular file"):
        octal.to_bfile("/dev/full", [1, 2, 3])
    with pytest.raises(OSError, match="not a regular file"):
        octal.to_csv("/dev/full", [1, 2, 3])
    assert is_device("/dev/full")


def test_a_sequence_never_writes_over_its_own_file(tmp_path):
    store = tmp_path / "s.npy"
    octal.run("0.6", 1000, store=store)
    before = store.read_bytes()
    s = octal.open(store)
    for write in (s.to_bfile, s.to_csv, s.to_npy):
        with pytest.raises(OSError, match="refusing to write"):
            write(store)
    link = tmp_path / "hard.b"
    os.link(store, link)
    with pytest.raises(OSError, match="refusing to write"):
        s.to_bfile(link)
    assert store.read_bytes() == before
    assert int(octal.open(store)[999]) == int(octal.values("0.6", 1000)[999])


def test_a_symbolic_link_is_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    link = tmp_path / "out.b"
    os.symlink(victim, link)
    with pytest.raises(OSError, match="symbolic link"):
        octal.to_bfile(link, [1, 2, 3])
    assert victim.read_bytes() == b"precious"
    assert os.path.islink(link)


def test_an_existing_file_is_replaced_and_nothing_is_left_behind(tmp_path):
    out = tmp_path / "g.b"
    out.write_text("old\n")
    octal.to_bfile(out, [3, 1, 4], offset=0)
    assert out.read_text().endswith("\n0 3\n1 1\n2 4\n")
    store = tmp_path / "s.octal"
    octal.run("0.6", 100, store=store)
    octal.open(store).to_npy(tmp_path / "v.npy", start=10, stop=20)
    assert list(np.load(tmp_path / "v.npy")) == list(octal.values("0.6", 20)[10:])
    left = [n for n in os.listdir(tmp_path) if n.endswith((".tmp", ".lock"))]
    assert left == []
