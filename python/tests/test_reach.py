"""Python reaches what the CLI does: `compare` (with shift="auto"), the
census' rows (`census`, `equiv`) and windowed runs (`run(window=)`,
`resume`). Expected values come from the reference engine, never from
the code under test.
"""

import json
import warnings

import numpy as np
import pytest

import octal

N = 300


def ref(code, n=N):
    """G(0..n) of `code` by the reference (quadratic) engine (past its
    proven period, read off it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return octal.values(code, n, engine="reference").astype(np.int64)


def holds(ga, gb, s):
    """Whether G_a(n) = G_b(n + s) wherever both are held (n + s ≥ 0)."""
    lo = max(0, -s)
    hi = min(len(ga), len(gb) - s)
    return hi > lo and bool(np.array_equal(ga[lo:hi], gb[lo + s:hi + s]))


def test_compare_shift_auto_finds_the_shift_the_reference_engine_shows():
    ga, gb = ref(".137"), ref(".4")
    expected = [s for s in range(-3, 4) if holds(ga, gb, s)]
    assert len(expected) == 1, expected  # the census: .137 is .4 shifted
    c = octal.compare(".137", ".4", shift="auto")
    assert c.shift == expected[0]
    assert c.holds and bool(c)
    assert c.verdict == "equal_forever"  # both proven periodic
    assert c.holding == expected
    assert c.searched == (-3, 3)
    assert (c.a, c.b) == ("0.137", "0.4")
    assert "G_0.137" in str(c) and "for every n" in str(c)
    assert "Comparison" in repr(c)


def test_compare_reports_the_first_difference_with_both_values():
    ga, gb = ref(".137"), ref(".4")
    at = int(np.flatnonzero(ga != gb)[0])
    c = octal.compare(".137", ".4")
    assert (c.verdict, c.shift, c.holds) == ("differ", 0, False)
    assert (c.at, c.value_a, c.value_b) == (at, ga[at], gb[at])
    # A given shift, on arrays and on codes alike.
    s = octal.compare(ga.astype(np.uint16), ".4", shift=c.shift)
    assert s.at == at
    k = octal.compare(".137", ".4", shift=1)
    first = next(n for n in range(N - 1) if ga[n] != gb[n + 1])
    assert (k.at, k.value_a, k.value_b) == (first, ga[first], gb[first + 1])


def test_compare_arrays_and_stores(tmp_path):
    g = ref("0.6", 1000)
    h = g.copy()
    h[777] += 1
    c = octal.compare(g, h)
    assert (c.verdict, c.at, c.value_a, c.value_b) == ("differ", 777, g[777], g[777] + 1)
    c = octal.compare(g, g[:500], to=400)
    assert (c.verdict, c.to) == ("equal_to", 400)
    octal.run("0.6", 1000, store=tmp_path / "a.octal")
    s = octal.compare(octal.open(tmp_path / "a.octal"), g)
    assert (s.verdict, s.to) == ("equal_to", 1000)


def test_compare_bad_input_is_value_error():
    with pytest.raises(ValueError, match="auto"):
        octal.compare(np.zeros(10, np.uint16), ".4", shift="auto")
    with pytest.raises(ValueError):
        octal.compare(".4", ".6", shift="two")
    with pytest.raises(ValueError):
        octal.compare(".4", ".9x")
    with pytest.raises(ValueError, match="nothing to compare"):
        octal.compare(np.zeros(3, np.uint16), np.zeros(3, np.uint16), shift=-5)


@pytest.mark.parametrize("code", [".137", ".77"])
def test_equiv_members_agree_with_the_reference_engine(code):
    e = octal.equiv(code)
    assert e["code"] == str(octal.Code(code))
    first = ref(e["class"])
    codes = [m["code"] for m in e["members"]]
    assert str(octal.Code(code)) in codes and len(codes) >= 2
    for m in e["members"]:
        assert m["shift"] is not None, m
        # G_member(n) = G_first(n + shift): checked on the reference values.
        assert holds(ref(m["code"]), first, m["shift"]), m


def test_equiv_of_kayles_names_the_census():
    e = octal.equiv("0.77")
    assert e["class"] == "0.77" and e["status"] == "periodic"
    assert "digits-3" in e["census"]
    # Four digits: the four-digit census answers (OEIS A071514: the codes
    # .6ZGj have the values of .3777 shifted by one).
    e = octal.equiv(".3777")
    assert "digits-4" in e["census"]
    assert holds(ref(".3777"), ref(e["class"]), next(
        m["shift"] for m in e["members"] if m["code"] == "0.3777"))
    with pytest.raises(ValueError, match="not in"):
        octal.equiv(".37775")


def test_census_rows_shipped_and_from_a_directory(tmp_path):
    rows = octal.census()
    codes = {r["code"] for r in rows}
    assert "0.77" in codes and "0.4" in codes
    kayles = next(r for r in rows if r["code"] == "0.77")
    # Kayles: period 12, last exception G(70) (Guy and Smith).
    assert (kayles["period"], kayles["preperiod"]) == (12, 71)
    mine = tmp_path / "c"
    mine.mkdir()
    (mine / "census.jsonl").write_text(
        json.dumps({"provenance": {}}) + "\n" + json.dumps(kayles) + "\n"
    )
    assert octal.census(mine) == [kayles]
    assert octal.equiv(".77", census=mine)["class"] == "0.77"
    with pytest.raises(ValueError):
        octal.equiv(".4", census=mine)
    with pytest.raises(FileNotFoundError):
        octal.census(tmp_path / "none")
    (mine / "census.jsonl").write_text("{ not json\n")
    with pytest.raises(ValueError, match="not JSON"):
        octal.census(mine)


def test_window_run_equals_an_in_memory_run():
    full = octal.run("0.6", 2**20)
    w = octal.run("0.6", 2**20, window=2**18)
    assert (w.values, w.checksum, w.max_value) == (full.values, full.checksum, full.max_value)
    # A prefix of 2^15 is too short past heap 400,000: it grows, and says so.
    with pytest.warns(UserWarning, match="needed a longer prefix"):
        p = octal.run("0.6", 2**20, window=2**18, prefix=2**15)
    assert p.checksum == full.checksum
    assert p.window.prefix == 2**16 and len(p.window.prefix_grown) == 1


def test_window_bad_sizes_are_value_errors():
    with pytest.raises(ValueError, match="too small"):
        octal.run("0.6", 2**20, window=100)
    with pytest.raises(ValueError, match="prefix"):
        octal.run("0.6", 2**20, window=2**16, prefix=2**16)
    with pytest.raises(ValueError):
        octal.run("0.6", 2**20, prefix=2**12)
    with pytest.raises(ValueError, match="sparse"):
        octal.run("0.6", 2**20, window=2**16, engine="reference")
    with pytest.raises(ValueError, match="window"):
        octal.run(".137", 2**20, window=2**16)  # no sparse space


def test_window_stop_and_resume_agree(tmp_path):
    n = 2**20
    full = octal.run("0.6", n)
    path = tmp_path / "0.6.window"

    def stop(done, total):
        if done > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt, match="checkpoint saved"):
        octal.run("0.6", n, window=2**18, store=path, progress=stop)
    assert path.exists()
    # It let go of its checkpoint: the lock file went with it.
    assert not (tmp_path / "0.6.window.lock").exists()
    # A resume with other sizes is refused where unsound, as the CLI's.
    with pytest.raises(ValueError):
        octal.resume(path, window=100)
    s = octal.resume(path)
    assert (s.values, s.checksum) == (n, full.checksum)


# 0.6 in a window of 2^16 has the prefix 20,628 (its last rare position is
# 20,627, docs/window.md); a heap before 400,000 needs witnesses past it.
LAST_RARE_06 = 20_627


def test_window_grows_its_prefix_with_a_warning_and_says_so_in_its_summary(tmp_path):
    n = 400_000
    full = octal.run("0.6", n, keep_going=True)
    # Not allowed to grow, it stops at that heap.
    with pytest.raises(ValueError, match="prefix"):
        octal.run("0.6", n, window=2**16, keep_going=True, grow_prefix_to=0)
    export = tmp_path / "0.6.oseq"
    with pytest.warns(UserWarning, match="needed a longer prefix") as said:
        s = octal.run("0.6", n, window=2**16, keep_going=True, export=export)
    assert len(said) == 1
    assert (s.values, s.checksum) == (n, full.checksum)
    w = s.window
    assert isinstance(w, octal.Window)
    p = 2 * (LAST_RARE_06 + 1)
    assert (w.window, w.prefix) == (2**16, p)
    assert w.kept_from > 0
    assert [(g["from"], g["to"]) for g in w.prefix_grown] == [(LAST_RARE_06 + 1, p)]
    assert w.exported == str(export)
    # The JSON is the CLI's windowed summary, window facts and all.
    assert s.json["prefix_grown"][0]["to"] == p and s.json["window"] == 2**16
    # Every value, as streamed, is the full run's.
    assert np.array_equal(np.asarray(octal.open(export)[:n]), octal.values("0.6", n))
    # A full run's summary has no window.
    assert full.window is None


def test_window_resume_refuses_less_than_done_and_a_late_export(tmp_path):
    n = 2**20
    path = tmp_path / "0.6.window"

    def stop(done, total):
        if done > 2**18:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        octal.run("0.6", n, window=2**18, store=path, progress=stop)
    with pytest.raises(ValueError, match="has done"):
        octal.resume(path, 1000)
    with pytest.raises(ValueError, match="already begun"):
        octal.run("0.6", n, window=2**18, store=path, export=tmp_path / "late.oseq")
    with pytest.raises(ValueError, match="window only"):
        octal.run("0.6", n, export=tmp_path / "x.oseq")
    assert octal.resume(path).values == n
