"""Shared fixtures: the repository, the seed tables and the `octal` CLI.

tests/python.rs runs these tests with OCTAL_BIN naming the CLI the Rust
suite built; without it, `octal` on PATH or the repository's release
build is used, and the tests that compare with the CLI skip when there is
none.
"""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Table:
    path: Path
    code: str = ""
    start: int = -1
    values: list = field(default_factory=list)
    period: "int | None" = None
    errata: dict = field(default_factory=dict)

    def expected(self):
        v = list(self.values)
        for n, computed in self.errata.items():
            v[n - self.start] = computed
        return v


def read_table(path):
    """A seed table of data/sequences (format: docs/test-data.md)."""
    t = Table(path)
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            key, value = key.strip(), value.strip()
            if key == "code":
                t.code = value
            elif key == "from":
                t.start = int(value)
            elif key == "period":
                t.period = int(value)
            elif key == "erratum":
                f = dict(w.split("=") for w in value.split())
                t.errata[int(f["n"])] = int(f["computed"])
            continue
        t.values.extend(int(w) for w in line.split())
    assert t.code and t.start >= 0 and t.values, path
    return t


def checksum(g):
    """FNV-1a-64 over the values as little-endian u32 (README.md)."""
    h = 0xCBF29CE484222325
    for b in np.asarray(g, dtype="<u4").tobytes():
        h = ((h ^ b) * 0x100000001B3) % 2**64
    return f"{h:016x}"


def seed_tables():
    return [read_table(p) for p in sorted((REPO / "data/sequences").glob("*.txt"))]


def _cli_path():
    env = os.environ.get("OCTAL_BIN")
    if env:
        return env
    found = shutil.which("octal")
    if found:
        return found
    built = REPO / "target/release/octal"
    return str(built) if built.exists() else None


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, cwd=None, check=True):
        out = subprocess.run(
            [self.path, *map(str, args)], capture_output=True, text=True, cwd=cwd
        )
        if check and out.returncode != 0:
            raise AssertionError(f"octal {' '.join(map(str, args))}: {out.stderr}")
        return out

    def values(self, *args):
        return [int(x) for x in self("values", *args).stdout.split()]

    def json(self, *args):
        return json.loads(self(*args).stdout)


@pytest.fixture(scope="session")
def cli():
    path = _cli_path()
    if path is None:
        pytest.skip("no octal binary: set OCTAL_BIN or build with cargo build --release")
    return Cli(path)
