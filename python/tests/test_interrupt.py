"""Ctrl-C: a long computation stops within a second with KeyboardInterrupt,
and a run kept in a store checkpoints first."""

import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import octal

SCRIPT = textwrap.dedent(
    """
    import signal, sys, time, octal
    # A shell without job control starts background jobs with SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler:
    # take Ctrl-C as an interactive session does, wherever the suite runs.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    what = sys.argv[1]
    if what == "period":
        import numpy as np
        # No period: the detector reads them all.
        values = np.random.default_rng(1).integers(0, 1000, 4 * 10**8, dtype=np.uint16)
    if what == "bfile-array":
        import numpy as np
        values = np.zeros(3 * 10**8, np.uint16)
    print("started", flush=True)
    try:
        if what == "values":
            octal.values("0.6", 10**9)
        elif what == "reference":
            octal.values("0.6", 10**7, engine="reference")
        elif what == "store":
            octal.run("0.6", 10**9, store=sys.argv[2], checkpoint_every=3600)
        elif what == "board":
            octal.cookie_cutter(2, 8, 16)
        elif what == "period":
            octal.period(values, "0.6")
        elif what == "bfile-array":
            octal.to_bfile(sys.argv[2], values)
        elif what == "bfile-store":
            octal.open(sys.argv[2]).to_bfile(sys.argv[3])
        elif what == "verify":
            octal.open(sys.argv[2]).verify(recompute=10**6)
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt", e, flush=True)
        sys.exit(0)
    print("finished", flush=True)
    sys.exit(1)
    """
)


def interrupt(tmp_path, *args, after=2.0):
    """Runs the script, sends SIGINT `after` seconds after it started its
    work; returns (seconds from SIGINT to exit, its output)."""
    script = tmp_path / "interrupted.py"
    script.write_text(SCRIPT)
    p = subprocess.Popen(
        [sys.executable, str(script), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert p.stdout.readline().strip() == "started"
    time.sleep(after)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    took = time.monotonic() - sent
    assert p.returncode == 0, out + err
    assert out.startswith("KeyboardInterrupt"), out + err
    return took, out


@pytest.mark.parametrize("what", ["values", "reference", "board", "period"])
def test_interrupting_stops_within_a_second(tmp_path, what):
    took, _ = interrupt(tmp_path, what, after=0.3 if what == "period" else 2.0)
    assert took < 1.0, f"{what}: {took:.2f} s after Ctrl-C"


def test_interrupting_a_stored_run_checkpoints_it(tmp_path, cli):
    store = tmp_path / "s.octal"
    took, out = interrupt(tmp_path, "store", store, after=3.0)
    assert took < 1.0, f"{took:.2f} s after Ctrl-C"
    assert "checkpoint saved at" in out
    saved = int(out.split("checkpoint saved at ")[1].split()[0])
    assert saved > 0
    v = cli("verify", store)
    assert v.stdout.startswith("ok"), v.stdout
    s = octal.open(store)
    assert len(s) == saved
    assert np.array_equal(s[:], octal.values("0.6", saved))
    # The same call goes on from the checkpoint.
    more = octal.run("0.6", saved + 1000, store=store)
    assert more.resumed_from == saved
    assert more.checksum == octal.run("0.6", saved + 1000).checksum


def test_interrupting_a_verify(tmp_path):
    store = tmp_path / "v.octal"
    octal.run("0.6", 10**6, store=store)
    took, _ = interrupt(tmp_path, "verify", store, after=1.0)
    assert took < 1.0


def test_interrupting_a_write_removes_the_file(tmp_path):
    out = tmp_path / "out.b"
    took, _ = interrupt(tmp_path, "bfile-array", out, after=0.5)
    assert took < 1.0 and not out.exists()
    store = tmp_path / "s.octal"
    octal.run("0.333", 10**8, store=store, keep_going=True)
    took, _ = interrupt(tmp_path, "bfile-store", store, out, after=0.5)
    assert took < 1.0 and not out.exists()
