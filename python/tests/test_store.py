"""Stores and exported files: written by runs, read back exactly."""

import os

import numpy as np
import pytest

import octal


@pytest.fixture(scope="module")
def kayles_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "k.octal"
    summary = octal.run(".77", 5000, store=path, keep_going=True)
    return path, summary


def test_a_run_in_a_store_summarises_as_the_cli(tmp_path, cli):
    ours = octal.run("0.6", 200_000, store=tmp_path / "a.octal")
    theirs = cli.json("run", "0.6", "--to", "200000", "--store", tmp_path / "b.octal", "--json")
    for key in ["code", "values", "max_value", "first_max_at", "zeros", "last_value",
                "checksum", "bytes_per_value", "engine", "rare_mask", "rare_positions",
                "last_rare_at", "period", "apparent_period", "period_provable"]:
        assert ours.json[key] == theirs[key], key
    assert ours.store == os.fspath(tmp_path / "a.octal")
    # The same call again resumes: nothing left to compute.
    again = octal.run("0.6", 200_000, store=tmp_path / "a.octal")
    assert again.resumed_from == 200_000 and again.checksum == ours.checksum
    more = octal.run("0.6", 250_000, store=tmp_path / "a.octal")
    assert more.checksum == octal.run("0.6", 250_000).checksum


def test_a_store_reads_back_exactly(kayles_store):
    path, summary = kayles_store
    s = octal.open(path)
    assert len(s) == 5000 and s.kind == "store" and str(s.code) == "0.77"
    want = octal.values(".77", 5000)
    a = s[:]
    assert a.dtype == np.uint16 and np.array_equal(a, want)
    # A view of the store's map: no copy, read-only.
    assert a.base is not None and not a.flags.writeable and not a.flags.owndata
    with pytest.raises(ValueError):
        a[0] = 1
    assert s[12] == want[12] and s[-1] == want[-1]
    assert np.array_equal(s[100:200], want[100:200])
    assert np.array_equal(s[4990:10**9], want[4990:])
    assert np.array_equal(s[::7], want[::7])
    assert np.array_equal(s[300:100:-3], want[300:100:-3])
    assert len(s[10:10]) == 0 and s[10:10].dtype == np.uint16
    assert np.array_equal(np.asarray(s), want)
    assert list(s)[:20] == want[:20].tolist()
    with pytest.raises(IndexError):
        s[5000]
    with pytest.raises(TypeError):
        s[[1, 2]]
    assert s.summary.checksum == summary.checksum
    assert s.summary.period == 12 and s.summary.preperiod == 71
    assert s.summary.period_notation == summary.period_notation
    assert s.summary.target == 5000 and s.summary.engine == "sparse"


def test_an_array_outlives_its_sequence(kayles_store):
    a = octal.open(kayles_store[0])[1000:1100]
    import gc

    gc.collect()
    assert np.array_equal(a, octal.values(".77", 1100)[1000:])


def test_exports_read_back_exactly(kayles_store, tmp_path, cli):
    path, summary = kayles_store
    out = tmp_path / "k.oseq"
    cli("export", path, "-o", out, "--frame-values", "1000")
    e = octal.open(out)
    assert e.kind == "export" and len(e) == 5000
    want = octal.values(".77", 5000)
    assert np.array_equal(e[:], want)
    assert np.array_equal(e[1500:3500:3], want[1500:3500:3])
    assert e[4999] == want[4999]
    assert e.summary.checksum == summary.checksum
    assert e.summary.period == 12 and e.summary.preperiod == 71
    assert e.summary.period_notation == summary.period_notation
    assert e.verify(recompute=5)


def test_verify(kayles_store):
    v = octal.open(kayles_store[0]).verify(recompute=10, seed=7)
    assert v.ok and v.status == "ok" and not v.problems and v.seed == 7
    assert "store of 0.77, 5000 values" in v.line


def test_damage_is_found(tmp_path):
    path = tmp_path / "d.octal"
    octal.run("0.6", 100_000, store=path)
    data_offset = 4096 + 2 * (64 << 20)
    with open(path, "r+b") as f:
        f.seek(data_offset + 2 * 70_000)
        b = f.read(1)
        f.seek(data_offset + 2 * 70_000)
        f.write(bytes([b[0] ^ 1]))
    s = octal.open(path)
    assert np.array_equal(s[:1000], octal.values("0.6", 1000))
    with pytest.raises(OSError, match="do not match their checksum"):
        s[69_000:71_000]
    v = s.verify()
    assert not v and v.status == "damaged"
    assert "values 65536..100000 (chunk 1) are damaged" in v.problems[0]


def test_u32_stores(tmp_path, cli):
    # Cookie Cutter with 70,000 threes: G(n) = n up to 70,000, past u16.
    code = octal.Code.cookie_cutter(70_000)
    path = tmp_path / "wide.octal"
    summary = octal.run(code, 65_600, store=path, keep_going=True)
    assert summary.bytes_per_value == 4 and summary.max_value == 65_599
    s = octal.open(path)
    assert s.dtype == np.uint32
    assert np.array_equal(s[:], np.arange(65_600, dtype=np.uint32))
    cli("export", path, "-o", tmp_path / "wide.oseq")
    e = octal.open(tmp_path / "wide.oseq")
    assert e[:].dtype == np.uint32 and np.array_equal(e[65_000:], np.arange(65_000, 65_600))
    octal.to_bfile(tmp_path / "wide.b", s[:], offset=0)
    first, back = octal.read_bfile(tmp_path / "wide.b")
    assert first == 0 and back.dtype == np.uint32 and np.array_equal(back, s[:])


def test_numpy_save(kayles_store, tmp_path):
    s = octal.open(kayles_store[0])
    np.save(tmp_path / "a.npy", s[:])
    s.to_npy(tmp_path / "b.npy", start=10, stop=20)
    assert np.array_equal(np.load(tmp_path / "a.npy"), s[:])
    assert np.array_equal(np.load(tmp_path / "b.npy"), s[10:20])
    g = octal.values("0.6", 1000)
    np.save(tmp_path / "g.npy", g)
    assert np.array_equal(np.load(tmp_path / "g.npy"), g)
