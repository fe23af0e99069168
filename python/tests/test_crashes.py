"""Issue #38: what used to kill the interpreter (a store cut short while
open, allocations beyond the memory there is, `verify(recompute=10**12)`)
raises instead, and far heaps of a periodic game are read off its period.
Each risky call runs in a child interpreter, so that a crash fails the
test instead of ending the suite."""

import os
import resource
import subprocess
import sys
import textwrap
import time

import pytest

import octal


def child(script, *, address_mib=None, timeout=60):
    """Runs `script` in a new interpreter (under an address-space limit of
    `address_mib` MiB if given): its exit code, stdout, stderr, seconds."""

    def limit():
        if address_mib is not None:
            b = address_mib << 20
            resource.setrlimit(resource.RLIMIT_AS, (b, b))

    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
    )
    return out.returncode, out.stdout, out.stderr, time.monotonic() - start


def test_a_store_cut_short_while_open_raises(tmp_path):
    store = tmp_path / "s.octal"
    octal.run("0.6", 200_000, store=store, keep_going=True)
    code, out, err, _ = child(
        f"""
        import os, octal
        s = octal.open({str(store)!r})
        n = len(s)
        os.truncate({str(store)!r}, os.path.getsize({str(store)!r}) // 2)
        for what, f in [
            ("item", lambda: s[n - 1]),
            ("slice", lambda: s[n - 10 : n]),
            ("summary", lambda: s.summary),
            ("verify", lambda: s.verify()),
        ]:
            try:
                f()
                print(what, "read")
            except OSError as e:
                print(what, "raised", "cut short" in str(e))
        """
    )
    assert code == 0, err
    assert out.split("\n")[:4] == [
        "item raised True",
        "slice raised True",
        "summary raised True",
        "verify raised True",
    ], out


def test_verify_recompute_beyond_the_values_held(tmp_path):
    store = tmp_path / "s.octal"
    octal.run("0.6", 3000, store=store, keep_going=True)
    code, out, err, took = child(
        f"""
        import octal
        r = octal.open({str(store)!r}).verify(recompute=10**12, seed=7)
        print(r.ok, "3000 recomputed" in r.line)
        """
    )
    assert code == 0, err
    assert out.split() == ["True", "True"], out


@pytest.mark.parametrize(
    "code, n, mib",
    [("0.6", 2**28, 400), ("0.6", 2**29, 400), ("0.333337", 2**27, 300)],
)
def test_values_beyond_an_address_limit_raise_memory_error(code, n, mib):
    rc, out, err, took = child(
        f"""
        import octal
        try:
            octal.values({code!r}, {n})
            print("computed")
        except MemoryError as e:
            print("MemoryError", "this machine has" in str(e))
        """,
        address_mib=mib,
    )
    assert rc == 0, err
    assert out.split() == ["MemoryError", "True"], (out, err)
    assert took < 20, took


# The literature's periods (data/sequences): Kayles 0.77, period 12 from
# n = 71; Dawson's Chess 0.137, period 34 from n = 52.
@pytest.mark.parametrize("code, p, s", [("0.77", 12, 71), ("0.137", 34, 52)])
def test_far_heaps_are_read_off_the_proven_period(code, p, s):
    g = [int(v) for v in octal.values(code, s + 2 * p, engine="reference")]

    def at(n):
        return g[n if n < s else s + (n - s) % p]

    n = 10**12
    got = octal.values(code, n, start=n - 3)
    assert [int(v) for v in got] == [at(i) for i in range(n - 3, n)]


def test_far_heaps_of_16_are_answered():
    # .16: period 149459 from n = 105351 (docs/periodicity.md's published
    # values); the first period's values computed directly.
    p, s = 149459, 105351
    g = octal.values(".16", s + p)
    n = 10**12
    got = octal.values(".16", n, start=n - 3)
    assert [int(v) for v in got] == [int(g[s + (i - s) % p]) for i in range(n - 3, n)]
