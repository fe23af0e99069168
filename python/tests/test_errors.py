"""Bad input raises ValueError (with the CLI's message) or OSError, never a
crash of the interpreter."""

import re

import numpy as np
import pytest

import octal


@pytest.mark.parametrize("code", ["", "0.9z", "6", "1.6", "0.6.6", " 0.6", "0.1u", "0.", "x"])
def test_bad_codes_carry_the_clis_message(code, cli, tmp_path):
    with pytest.raises(ValueError) as e:
        octal.Code(code)
    out = cli("values", code, "--to", "3", check=False, cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip() == f"octal: {e.value}"
    with pytest.raises(ValueError, match=re.escape(str(e.value))):
        octal.values(code, 10)


def test_bad_arguments():
    with pytest.raises(TypeError):
        octal.values(0.6, 10)
    with pytest.raises(TypeError):
        octal.values("0.6", None)
    with pytest.raises(ValueError, match="not a count"):
        octal.values("0.6", "ten")
    with pytest.raises(ValueError, match="at least 0"):
        octal.values("0.6", -5)
    with pytest.raises(ValueError, match="too large"):
        octal.values("0.6", 2**60)
    with pytest.raises(ValueError, match="start 11 must be at most n 10"):
        octal.values("0.6", 10, start=11)
    with pytest.raises(ValueError, match="engine"):
        octal.values("0.6", 10, engine="fast")
    with pytest.raises(ValueError, match="threads"):
        octal.values("0.6", 10, threads=0)
    with pytest.raises(ValueError, match="at least 1"):
        octal.run("0.6", 0)
    with pytest.raises(ValueError, match="checkpoint_every"):
        octal.run("0.6", 10, store="x.octal", checkpoint_every=-1)
    with pytest.raises(TypeError):
        octal.Code(6)


def test_too_many_values_is_a_memory_error():
    with pytest.raises(MemoryError, match="values need"):
        octal.values("0.6", 2**47)


def test_file_problems_are_os_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.octal: opening"):
        octal.open(tmp_path / "nothing.octal")
    with pytest.raises(IsADirectoryError):
        octal.open(tmp_path)
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("hello, world\n")
    with pytest.raises(OSError, match="not an octal store or sequence file"):
        octal.open(foreign)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(OSError):
        octal.open(empty)
    truncated = tmp_path / "t.octal"
    octal.run("0.6", 1000, store=truncated)
    with open(truncated, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(OSError, match="damaged"):
        octal.open(truncated)
    with pytest.raises(OSError):
        octal.to_bfile(tmp_path / "no" / "such" / "dir.b", [1, 2, 3])
    with pytest.raises(FileNotFoundError):
        octal.read_bfile(tmp_path / "missing.b")
    with pytest.raises(OSError):
        octal.run("0.6", 100, store=tmp_path / "foreign.txt")


def test_a_store_of_another_code_is_a_value_error(tmp_path):
    octal.run("0.6", 100, store=tmp_path / "s.octal")
    with pytest.raises(ValueError, match="holds the sequence of 0.6, not 0.7"):
        octal.run("0.7", 100, store=tmp_path / "s.octal")


def test_bad_values(tmp_path):
    for bad in [[1, -1], [1.5, 2.0], np.zeros((2, 2)), [2**33], ["a"]]:
        with pytest.raises(ValueError):
            octal.period(bad, "0.6")
        with pytest.raises(ValueError):
            octal.to_bfile(tmp_path / "x.b", bad)
    assert octal.period([], "0.6") is None
    with pytest.raises(ValueError):
        octal.period([0, 1], "0.9z")


def test_bad_bfiles(tmp_path):
    p = tmp_path / "bad.b"
    p.write_text("1 1\n2 2\n4 3\n")
    with pytest.raises(ValueError, match="line 3: expected index 3, found 4"):
        octal.read_bfile(p)
    p.write_text("# only a comment\n")
    with pytest.raises(ValueError, match="no terms"):
        octal.read_bfile(p)
    p.write_bytes(b"1 \xff\n")
    with pytest.raises(ValueError, match="line 1"):
        octal.read_bfile(p)


def test_bad_games():
    with pytest.raises(ValueError, match="cutter size"):
        octal.cookie_cutter("huge", 3, 3)
    with pytest.raises(ValueError, match="at least 0"):
        octal.cookie_cutter(-1, 3, 3)
    with pytest.raises(ValueError, match="at most 128"):
        octal.cookie_cutter(2, 12, 12)
    with pytest.raises(ValueError, match="grid"):
        octal.cookie_cutter(2, 0, 3)
    with pytest.raises(ValueError, match="exactly one"):
        octal.vertex_deletion()
    with pytest.raises(ValueError, match="exactly one"):
        octal.vertex_deletion(directed_path=3, arcs="0>1")
    with pytest.raises(ValueError, match="loop"):
        octal.vertex_deletion(arcs="0>1,1>1")
    with pytest.raises(ValueError, match="at most 24"):
        octal.vertex_deletion(arcs="0>30")
    with pytest.raises(ValueError, match="odd-odd variant only"):
        octal.vertex_deletion(directed_path=5, variant="even-even")
    with pytest.raises(ValueError, match="variant"):
        octal.vertex_deletion(arcs="0>1", variant="odd")
    with pytest.raises(ValueError, match="path lengths"):
        octal.vertex_deletion(directed_paths="5,,8")
