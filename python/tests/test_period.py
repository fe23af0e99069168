"""Periods of arrays: found and proven as a run finds and proves them."""

import numpy as np
import pytest

import octal
from conftest import seed_tables


def test_kayles_is_proven_periodic_as_by_a_run():
    summary = octal.run(".77", 10**4)
    p = octal.period(octal.values(".77", 1000), ".77")
    assert p.proven and (p.period, p.preperiod) == (12, 71)
    assert (summary.period, summary.preperiod, summary.proven_at) == (12, 71, p.proven_at)
    assert p.bound == summary.bound and p.last_irregular == 70
    assert p.notation == summary.period_notation
    assert p.notation_latex == summary.period_notation_latex


def test_guiles_in_the_lecture_notes_notation():
    p = octal.period(octal.values("0.15", 200), octal.Code("0.15"))
    assert p.proven and (p.period, p.preperiod) == (10, 1)
    assert p.notation == "0.1\u0307101122122\u0307"
    assert p.notation_latex == "0.\\dot{1}10112212\\dot{2}"


@pytest.mark.parametrize("table", [t for t in seed_tables() if t.period], ids=lambda t: t.path.stem)
def test_stated_periods_hold(table):
    g = octal.values(table.code, max(4000, table.start + len(table.values)))
    p = octal.period(g, table.code)
    assert p is not None and p.period == table.period


def test_too_few_values_give_an_apparent_period():
    p = octal.period(octal.values(".77", 120), ".77")
    assert p is not None and not p.proven
    assert p.period == 12 and p.bound == 167 and p.proven_at == 120
    assert octal.period(octal.values("0.6", 10_000), "0.6") is None


def test_any_array_of_values():
    g = octal.values(".77", 1000)
    for values in [g.astype(np.uint32), g.astype(np.int64), g.tolist(), g[::1].copy()]:
        p = octal.period(values, ".77")
        assert p.proven and p.period == 12
    # A strided view is copied to contiguous values first.
    assert octal.period(np.repeat(g, 2)[::2], ".77").period == 12


def test_no_proof_for_unequal_splits():
    g = octal.values("grundy", 3000)
    p = octal.period(g, "grundy")
    assert p is None or not p.proven
    assert octal.run("grundy", 3000).period is None


def test_comparing_codes():
    a, b = octal.values("0.6", 10**5), octal.values("0.7", 10**5)
    assert (a != b).any()
    assert octal.period(b, "0.7") is not None


def test_values_that_are_not_the_game_prove_nothing():
    # G(0) = 0 in every game; these are not Kayles' values (issue 40).
    with pytest.warns(RuntimeWarning, match=r"not those of \.77: G\(0\) = 0, not 1"):
        p = octal.period(np.tile([1, 2, 3], 100), ".77")
    assert p is not None and p.period == 3 and not p.proven
    # One value changed inside the preperiod, where the period need not
    # hold: the array's period is still 12 from 71, but not proven.
    # Kayles' G(5) = 4 (hand-worked: 0 1 2 3 1 4 3 2 1 4 2 6).
    g = octal.values(".77", 1000).copy()
    assert g[5] == 4
    g[5] = 5
    with pytest.warns(RuntimeWarning, match=r"G\(5\) = 4, not 5"):
        p = octal.period(g, ".77")
    assert (p.period, p.preperiod, p.proven) == (12, 71, False)


def test_a_hexadecimal_game_shows_its_arithmetic_period(tmp_path):
    # 0.8 (take one, leave three heaps): G(n) = (n - 1) // 3 for n >= 1,
    # worked by hand, so G(n + 3) = G(n) + 1 from n = 1.
    g = octal.values("0.8", 600)
    assert list(g) == [0] + [(n - 1) // 3 for n in range(1, 600)]
    want = {"period": 3, "preperiod": 1, "saltus": 1, "checked_to": 600}
    assert octal.run("0.8", 600).arithmetic_period == want
    store = tmp_path / "g.octal"
    octal.run("0.8", 600, store=str(store))
    assert octal.open(str(store)).summary.arithmetic_period == want
    # Octal games cannot have one (Horrocks and Nowakowski, 2003).
    assert octal.run("0.6", 600).arithmetic_period is None
