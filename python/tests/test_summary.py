"""The typed summary and period (issue 41): frozen classes built from the
Rust struct, whose attributes, JSON and text say the same things, checked
against the reference engine's values and published facts; and the
package's version, said once."""

import importlib.metadata
import os

import numpy as np
import pytest

import octal
from conftest import checksum as fnv
from octal import _octal


def test_summary_and_period_are_frozen():
    s = octal.run(".77", 10**4)
    p = octal.period(octal.values(".77", 1000), ".77")
    assert isinstance(s, octal.Summary) and isinstance(p, octal.Period)
    for obj, name in [(s, "period"), (s, "checksum"), (s, "rare_list"), (p, "period"),
                      (p, "proven"), (s, "anything_new"), (p, "anything_new")]:
        with pytest.raises(AttributeError):
            setattr(obj, name, 3)
    assert s.period == 12 and p.period == 12


def test_the_compiled_period_is_an_object():
    g = octal.values(".77", 1000)
    p = _octal.period(g, ".77", None)
    # Kayles: period 12 from n = 71 (the lecture notes' table).
    assert isinstance(p, octal.Period) and (p.period, p.preperiod, p.proven) == (12, 71, True)
    assert p == octal.Period(p.period, p.preperiod, p.proven_at, p.bound, True,
                             p.notation, p.notation_latex)
    assert eval(repr(p), {"Period": octal.Period}) == p
    assert repr(p).startswith("Period(period=12, preperiod=71, proven_at=")
    # 0.6 has no period in its first 10^4 values, apparent or proven.
    assert _octal.period(octal.values("0.6", 10**4), "0.6", None) is None


def test_attributes_json_and_text_say_the_reference_engines_facts():
    n = 20_000
    s = octal.run("0.6", n)
    g = octal.values("0.6", n, engine="reference")
    zeros = int(np.count_nonzero(g == 0))
    assert zeros == 14  # the published count for 0.6, n = 0 included
    facts = {
        "code": "0.6", "values": n, "max_value": int(g.max()),
        "first_max_at": int(g.argmax()), "zeros": zeros, "zeros_from_1": zeros - 1,
        "last_value": int(g[-1]), "checksum": fnv(g), "bytes_per_value": 2,
    }
    for key, want in facts.items():
        assert getattr(s, key) == want, key
        assert s.json[key] == want, key
    assert s.json["period"] is None and s.period is None and not s.proven
    text = str(s).splitlines()
    assert text[0].startswith(f"0.6: {n} values in ")
    assert text[1] == (
        f"max value {g.max()} (first at n={g.argmax()}), 14 zeros (n = 0 included), "
        f"last value G({n - 1})={g[-1]}"
    )
    assert text[-1] == f"checksum {fnv(g)} (FNV-1a-64 of the values as little-endian u32)"
    rare = s.rare_list[:, 0].tolist()
    assert s.json["rare_list"] == s.rare_list.tolist()
    assert text[2] == (
        f"sparse space: mask 0x{s.rare_mask:x}, {len(rare)} rare positions "
        f"({s.rare_positions_with_0} with n = 0), last at {rare[-1]}"
    )
    assert s.json["rare_class"] == s.rare_class and s.rare_class["mask"] == f"0x{s.rare_mask:x}"
    assert "<octal.Summary of 0.6: 20000 values" in repr(s) and fnv(g) in repr(s)


def test_a_proven_period_reads_the_same_everywhere():
    s = octal.run(".77", 10**4)
    p = s.json["period"]
    assert (s.period, s.preperiod, s.proven_at, s.bound) == (12, 71, p["proven_at"], p["bound"])
    assert s.proven and s.apparent_period is None
    assert f"periodic: period 12, preperiod 71, proven at {s.proven_at}" in str(s)
    a = octal.run(".77", 120).apparent_period
    assert isinstance(a, octal.Period) and (a.period, a.proven, a.proven_at) == (12, False, 120)


def test_read_back_summaries_know_only_what_the_file_records(tmp_path, cli):
    store = tmp_path / "k.octal"
    ran = octal.run(".77", 5000, store=store, keep_going=True, threads=1)
    s = octal.open(store).summary
    assert (s.engine, s.target, s.threads, s.isa, s.rare_mask) == ("sparse", 5000, None, None, None)
    assert s.seconds is not None and s.checksum == ran.checksum
    assert s.json["threads"] is None and s.json["target"] == 5000
    assert str(s).splitlines()[0].startswith("0.77: 5000 values in ")
    out = tmp_path / "k.oseq"
    cli("export", store, "-o", out)
    e = octal.open(out).summary
    assert (e.engine, e.seconds, e.values_per_second, e.threads, e.isa) == (None,) * 5
    assert str(e).splitlines()[0] == "0.77: 5000 values"
    assert e.period == 12 and e.preperiod == 71


def test_the_version_is_the_crates(cli):
    want = os.environ.get("OCTAL_CRATE_VERSION")
    if want is None:
        pytest.skip("OCTAL_CRATE_VERSION is set by tests/python.rs")
    assert octal.__version__ == want
    assert importlib.metadata.version("octal") == want
    assert cli("--version").stdout.split()[:2] == ["octal", want]
