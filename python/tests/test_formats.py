"""OEIS b-files, CSV and standard output."""

import numpy as np
import pytest

import octal

KAYLES = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]


def test_bfile_text(tmp_path):
    p = tmp_path / "kayles.b"
    octal.to_bfile(p, octal.values(".77", 12))
    text = p.read_bytes()
    assert text == b"".join(b"%d %d\n" % (n, KAYLES[n]) for n in range(1, 12))
    assert text.endswith(b"\n") and text.isascii()
    octal.to_bfile(p, octal.values("grundy", 6), offset=0)
    assert p.read_text() == "0 0\n1 0\n2 0\n3 1\n4 0\n5 2\n"


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
    assert first == 1 and np.array_equal(back, s[1:])
    s.to_bfile(tmp_path / "part.b", offset=0, start=1000, stop=2000)
    assert octal.read_bfile(tmp_path / "part.b")[0] == 1000
    cli("export", store, "-o", tmp_path / "s.oseq", "--frame-values", "65536")
    e = octal.open(tmp_path / "s.oseq")
    e.to_bfile(tmp_path / "e.b")
    assert (tmp_path / "e.b").read_bytes() == (tmp_path / "all.b").read_bytes()
    # The CLI's values, as b-file lines.
    want = cli("values", store, "--from", "1", "--to", "300000").stdout.split()
    lines = (tmp_path / "all.b").read_text().splitlines()
    assert [line.split()[1] for line in lines] == want
    assert [int(line.split()[0]) for line in lines] == list(range(1, 300_000))


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
    octal.to_bfile("-", KAYLES[:4])
    assert capsys.readouterr().out == "1 1\n2 2\n3 3\n"
    octal.to_csv("-", [5, 6], start=10)
    assert capsys.readouterr().out == "n,value\n10,5\n11,6\n"
    store = tmp_path / "k.octal"
    octal.run(".77", 3_000_000, store=store, keep_going=True)
    s = octal.open(store)
    s.to_bfile("-")
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) == 3_000_000 - 1 and lines[0] == "1 1" and lines[-1] == f"2999999 {s[-1]}"
    s.to_csv("-", stop=2)
    assert capsys.readouterr().out == "n,value\n0,0\n1,1\n"
    s.to_csv("-", start=5, stop=5)
    assert capsys.readouterr().out == "n,value\n"
