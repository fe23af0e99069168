"""OEIS b-files, CSV and standard output."""

import numpy as np
import pytest

import octal

KAYLES = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]


def _terms(text):
    """A b-file's lines after its # header."""
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("#"))


def test_bfile_text(tmp_path):
    p = tmp_path / "kayles.b"
    octal.to_bfile(p, octal.values(".77", 12), offset=1)
    text = p.read_bytes()
    assert _terms(text.decode()).encode() == b"".join(
        b"%d %d\n" % (n, KAYLES[n]) for n in range(1, 12)
    )
    assert text.endswith(b"\n") and text.isascii()
    octal.to_bfile(p, octal.values("grundy", 6), offset=0)
    assert _terms(p.read_text()) == "0 0\n1 0\n2 0\n3 1\n4 0\n5 2\n"


@pytest.mark.parametrize("offset", [0, 1, 5])
def test_bfiles_round_trip(tmp_path, offset):
    g = octal.values("0.6", 100_000)
    p = tmp_path / "g.b"
    octal.to_bfile(p, g, offset=offset)
    first, back = octal.read_bfile(p)
    assert first == offset
    assert back.dtype == np.uint16
    assert np.array_equal(back, g[offset:])


def test_bfiles_of_a_part(tmp_path):
    g = octal.values("0.6", 1000)
    p = tmp_path / "part.b"
    octal.to_bfile(p, g[500:], start=500)
    first, back = octal.read_bfile(p)
    assert first == 500 and np.array_equal(back, g[500:])


def test_bfiles_from_stores_and_exports(tmp_path, cli):
    store = tmp_path / "s.octal"
    octal.run("0.6", 300_000, store=store)
    s = octal.open(store)
    s.to_bfile(tmp_path / "all.b")
    first, back = octal.read_bfile(tmp_path / "all.b")
    assert first == 0 and np.array_equal(back, s[:])
    s.to_bfile(tmp_path / "part.b", offset=0, start=1000, stop=2000)
    assert octal.read_bfile(tmp_path / "part.b")[0] == 1000
    cli("export", store, "-o", tmp_path / "s.oseq", "--frame-values", "65536")
    e = octal.open(tmp_path / "s.oseq")
    e.to_bfile(tmp_path / "e.b")
    # The same terms (the headers name their own files).
    assert _terms((tmp_path / "e.b").read_text()) == _terms((tmp_path / "all.b").read_text())
    # The CLI's values, as b-file lines.
    want = cli("values", store, "--to", "300000").stdout.split()
    lines = _terms((tmp_path / "all.b").read_text()).splitlines()
    assert [line.split()[1] for line in lines] == want
    assert [int(line.split()[0]) for line in lines] == list(range(0, 300_000))


def test_bfiles_as_the_oeis_writes_them(tmp_path):
    p = tmp_path / "A002188.txt"
    p.write_text("# Grundy's game\n# offset 0\n\n0 0\r\n1\t0\n2  0\n3 1\n4 0\n")
    first, back = octal.read_bfile(p)
    assert first == 0 and back.tolist() == octal.values("grundy", 5).tolist()


def test_csv(tmp_path):
    p = tmp_path / "k.csv"
    octal.to_csv(p, octal.values(".77", 4))
    assert p.read_text() == "n,value\n0,0\n1,1\n2,2\n3,3\n"
    store = tmp_path / "k.octal"
    octal.run(".77", 2000, store=store, keep_going=True)
    octal.open(store).to_csv(p, start=1998)
    g = octal.values(".77", 2000)
    assert p.read_text() == f"n,value\n1998,{g[1998]}\n1999,{g[1999]}\n"


def test_dash_is_standard_output(capsys, tmp_path):
    octal.to_bfile("-", KAYLES[:4], offset=1)
    assert _terms(capsys.readouterr().out) == "1 1\n2 2\n3 3\n"
    octal.to_csv("-", [5, 6], start=10)
    assert capsys.readouterr().out == "n,value\n10,5\n11,6\n"
    store = tmp_path / "k.octal"
    octal.run(".77", 3_000_000, store=store, keep_going=True)
    s = octal.open(store)
    s.to_bfile("-", offset=1)
    out = capsys.readouterr().out
    lines = _terms(out).splitlines()
    assert len(lines) == 3_000_000 - 1 and lines[0] == "1 1" and lines[-1] == f"2999999 {s[-1]}"
    s.to_csv("-", stop=2)
    assert capsys.readouterr().out == "n,value\n0,0\n1,1\n"
    s.to_csv("-", start=5, stop=5)
    assert capsys.readouterr().out == "n,value\n"


def test_one_bfile_convention_with_the_cli(tmp_path, cli):
    # Issue 40: the same offset by default (the first value, G(0) kept),
    # the same flags, and a header naming the game and the call.
    g = octal.values(".77", 12)
    p = tmp_path / "k.b"
    octal.to_bfile(p, g, code=".77")
    text = p.read_text()
    assert text.startswith("# a(n) = G(n) of the game .77, from a(0) on (offset 0)\n")
    assert "octal.to_bfile" in text
    want = cli("values", ".77", "--to", "12", "--format", "bfile").stdout
    assert _terms(text) == _terms(want) == "".join(f"{n} {v}\n" for n, v in enumerate(KAYLES))
    # An entry a(n) = G(n − 2) from offset 2: G(0) is a(2).
    octal.to_bfile(p, g, offset=2, index_shift=2)
    want = cli(
        "values", ".77", "--to", "12", "--format", "bfile", "--offset", "2", "--index-shift", "2"
    ).stdout
    assert _terms(p.read_text()) == _terms(want) == "".join(
        f"{n + 2} {v}\n" for n, v in enumerate(KAYLES)
    )
    # An offset below the first value given is said, not met silently.
    with pytest.warns(UserWarning, match=r"start at a\(5\), not at the offset 1"):
        octal.to_bfile(p, g[5:], offset=1, start=5)
    assert _terms(p.read_text()).startswith("5 4\n")
