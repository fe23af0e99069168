"""Values: the seed tables, the CLI's output on random codes, the dtypes."""

import json
import random
import threading
import time

import numpy as np
import pytest

import octal
from conftest import checksum, seed_tables

KAYLES = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]


def test_kayles_as_in_the_lecture_notes():
    g = octal.values(".77", 12)
    assert isinstance(g, np.ndarray)
    assert g.dtype == np.uint16
    assert g.tolist() == KAYLES
    assert octal.values(octal.Code("0.77"), 12, start=4).tolist() == KAYLES[4:]


def test_values_beyond_a_proven_period_are_read_off_it(capfd):
    # Guiles (.15) is 0.\\dot{1}10112212\\dot{2} in the lecture notes.
    # Read off the period, not computed: a warning says so (issue 40: not
    # bare stderr, which a notebook cell shows as an error).
    with pytest.warns(UserWarning, match="read off the proven period 10"):
        g = octal.values(".15", 10**8, start=10**8 - 10)
    period = "1101122122"
    assert g.tolist() == [int(period[(n - 1) % 10]) for n in range(10**8 - 10, 10**8)]
    assert capfd.readouterr().err == ""


def test_no_values_is_an_empty_array():
    # As range(0) and numpy: n = start asks for nothing (issue 40).
    for g in (octal.values(".6", 0), octal.values(".77", 5, start=5)):
        assert isinstance(g, np.ndarray) and g.size == 0
    with pytest.raises(ValueError):
        octal.values("0.9z", 0)


def test_a_run_stops_where_the_cli_stops(cli):
    # Issue 40: octal.run(".16", 10**7) reported 511,088 values and the
    # CLI 509,621: the same run must end on the same block, with the same
    # summary. .16's period 149459 is proven in the first 10^7 values.
    s = octal.run(".16", 10**7)
    c = json.loads(cli("run", ".16", "--to", "1e7", "--no-store", "--json").stdout)
    assert s.period == c["period"]["period"] == 149459
    assert (s.values, s.checksum, s.proven_at) == (c["values"], c["checksum"], c["period"]["proven_at"])


@pytest.mark.parametrize("engine", ["sparse", "reference"])
@pytest.mark.parametrize("table", seed_tables(), ids=lambda t: t.path.stem)
def test_seed_tables(table, engine):
    end = table.start + len(table.values)
    g = octal.values(table.code, end, start=table.start, engine=engine)
    assert g.tolist() == table.expected()


def random_code(rng):
    digits = "".join(rng.choice("01234567") for _ in range(rng.randint(1, 4)))
    lead = rng.choice(["0", "0", "4"])
    code = f"{lead}.{digits}"
    if rng.random() < 0.15:
        code = f"0.{rng.choice('89ABCDEF')}{digits[:2]}"
    if rng.random() < 0.1 and any(int(d, 16) & 4 for d in code.replace(".", "")):
        code += "u"
    return code


def test_values_equal_the_cli_on_random_codes(cli):
    rng = random.Random(20261124)
    for _ in range(40):
        code = random_code(rng)
        n = rng.choice([1, 2, 50, 700, 3000])
        if any(d in "89ABCDEF" for d in code):
            n = min(n, 150)  # three-heap splits: the cubic reference engine
        start = rng.randrange(n)
        engine = rng.choice(["sparse", "reference"])
        want = cli.values(code, "--to", n, "--from", start, "--engine", engine)
        got = octal.values(code, n, start=start, engine=engine, threads=rng.choice([1, 2]))
        assert got.tolist() == want, (code, n, start, engine)


def test_a_long_run_equals_the_cli(cli):
    want = cli.json("run", "0.6", "--to", "300000", "--no-store", "--json")
    g = octal.values("0.6", 300_000)
    assert int(g.max()) == want["max_value"]
    assert int(np.count_nonzero(g == 0)) == want["zeros"]
    assert octal.run("0.6", 300_000).checksum == want["checksum"]
    assert checksum(g) == want["checksum"]


def test_counts_are_spelled_as_for_the_cli():
    assert len(octal.values("0.6", "1e3")) == 1000
    assert len(octal.values("0.6", 2**10)) == 1024
    assert len(octal.values("0.6", 1e3)) == 1000
    assert len(octal.values("0.6", np.int64(10))) == 10
    assert octal.values("0.6", "2^4", start="1_0").tolist() == octal.values("0.6", 16)[10:].tolist()


def test_values_beyond_u16_come_as_uint32():
    # Cookie Cutter with 70,000 threes: G(n) = n for n ≤ 70,000.
    g = octal.values(octal.Code.cookie_cutter(70_000), 65_600, start=65_530)
    assert g.dtype == np.uint32
    assert g.tolist() == list(range(65_530, 65_600))


def test_the_gil_is_released_while_computing():
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        start = time.monotonic()
        octal.values("0.6", 2 * 10**6)
        took = time.monotonic() - start
    finally:
        done.set()
        t.join()
    # The other thread ran all along (a tick is ≥ 1 ms).
    assert len(ticks) > took * 1000 * 0.3, (len(ticks), took)


def test_progress_is_reported():
    seen = []
    octal.values("0.6", 10**6, progress=lambda done, total: seen.append((done, total)))
    assert seen, "no progress reported"
    assert seen[-1] == (10**6, 10**6)
    assert all(t == 10**6 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_progress_bar_without_tqdm(capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    octal.values("0.6", 10**5, progress=True)
    err = capsys.readouterr().err
    assert "0.6: 100,000 of 100,000 values (100%)" in err


def test_code():
    c = octal.Code(".6")
    assert str(c) == "0.6" and repr(c) == "Code('0.6')"
    assert c == octal.Code("0.60") and hash(c) == hash(octal.Code("00.6"))
    assert c != octal.Code("0.7")
    assert octal.Code("grundy") == octal.Code.grundy() and str(octal.Code.grundy()) == "4.0u"
    assert str(octal.Code.cookie_cutter(3)) == "0.337"
    assert octal.Code("0.137").digits == [0, 1, 3, 7]
    assert octal.Code("0.137").rules == {
        "take_all": [1, 2, 3],
        "take_leave_one": [2, 3],
        "take_split": [3],
        "take_split3": [],
        "unequal_splits": False,
    }
    assert octal.Code("0.1f").is_octal is False and str(octal.Code("0.1f")) == "0.1F"
    assert octal.Code("4.0u").unequal_splits and not octal.Code("4.0u").period_provable
    assert octal.Code("0.6").period_provable
    import pickle

    assert pickle.loads(pickle.dumps(c)) == c
    assert octal.Code(c) == c


@pytest.mark.parametrize("code", [".77", "0.6", "grundy", ".376"])
def test_a_summary_prints_as_the_cli(cli, code):
    ours = str(octal.run(code, 20_000)).splitlines()
    theirs = cli("run", code, "--to", "20000", "--no-store").stdout.splitlines()
    # The first line has the time, which differs.
    assert ours[0].split(" values")[0] == theirs[0].split(" values")[0]
    assert ours[1:] == theirs[1:]


def test_a_mask_as_the_cli_takes_it(cli):
    # Issue 40: mask= reaches --mask. .161's rare class under 0xfe is the
    # published one (489 rare positions with n = 0, Gangolli and Plambeck);
    # any mask gives the same values, the reference engine's.
    g = octal.values(".161", 3000, mask="0xfe")
    assert g.tolist() == octal.values(".161", 3000, engine="reference").tolist()
    assert octal.values(".161", 3000, mask="none").tolist() == g.tolist()
    s = octal.run(".161", 2**15, mask="0xfe")
    assert s.rare_mask == 0xFE and s.rare_positions_with_0 == 489
    assert octal.run(".161", 2**12, mask="none").rare_mask is None
    with pytest.raises(ValueError) as e:
        octal.values(".161", 10, mask="0xzz")
    out = cli("values", ".161", "--to", "10", "--mask", "0xzz", check=False)
    assert out.stderr.strip() == f"octal: {e.value}"
