#!/usr/bin/env python3
"""Check octal certificates (CODE.cert.json) without trusting octal.

    scripts/check-certificate.py CERT.json [CERT.json ...]

Standalone: Python 3 and numpy, nothing of octal. For each certificate it
reads the code itself, recomputes G(0..N) by enumerating every move, and
checks (1) the SHA-256 of the values, (2) G(n+p) = G(n) for s <= n <= N-p,
(3) that s is least: G(s-1) != G(s-1+p), (4) that p is least: no proper
divisor of p is a period from s on. One line per certificate; exit 0 when
all pass, 1 otherwise. docs/certificates.md states the theorem.
"""
import hashlib
import json
import sys
import time

import numpy as np


def moves(code):
    """(take_all, leave_one, split): lists of i for the digits of 0.ddd / 4.ddd."""
    before, point, after = code.partition(".")
    if not point or before not in ("", "0", "4") or any(c not in "01234567" for c in after):
        raise ValueError(f"{code!r} is not an octal code 0.ddd or 4.ddd (digits 0-7)")
    digits = [int(before or 0)] + [int(c) for c in after]
    return tuple([i for i, d in enumerate(digits) if d & bit] for bit in (1, 2, 4))


def last_heap(take_all, leave_one, split, p, s):
    """N: the last heap the proof needs (the Guy-Smith bound, docs/periodicity.md)."""
    s1 = max(s, 1)
    n0 = s
    if take_all:
        n0 = max(n0, max(take_all) + 1)
    if leave_one:
        n0 = max(n0, s1 + max(leave_one))
    if split:
        n0 = max(n0, 2 * s1 + p + max(split) - 1)
    return p + n0 - 1


def values(take_all, leave_one, split, last):
    """G(0..last) by mex over every option; a split's values vectorised per heap."""
    g = np.zeros(last + 1, dtype=np.int64)
    pairs = {}  # m -> boolean array of the values G(a) ^ G(m-a), 1 <= a <= m/2
    size = 1  # a power of two above every value so far
    for n in range(last + 1):
        h = n // 2
        if split:
            x = g[1:h + 1] ^ g[n - h:n][::-1]
            pairs[n] = np.bincount(x, minlength=size) > 0
            pairs.pop(n - max(split) - 1, None)
        seen = np.zeros(size + 1, dtype=bool)
        if n in take_all:
            seen[0] = True
        for i in leave_one:
            if n > i:
                seen[g[n - i]] = True
        for i in split:
            if n >= i + 2:
                m = pairs[n - i]
                seen[:len(m)] |= m
        g[n] = int(np.argmin(seen))  # the first False: seen has size+1 slots
        while g[n] >= size:
            size *= 2
    return g


def check(path):
    cert = json.load(open(path))
    if cert.get("format") != "octal-certificate" or cert.get("version") != 1:
        return "not an octal certificate of version 1"
    c, v = cert["claim"], cert["values"]
    code, p, s, n = c["code"], c["period"], c["preperiod"], c["n"]
    take_all, leave_one, split = moves(code)
    t = max(split) if split else None
    if p < 1 or t != c["t"] or n != last_heap(take_all, leave_one, split, p, s):
        return f"claim inconsistent: p={p}, i={s}, t={c['t']}, N={n} do not fit the bound of {code}"
    if split:
        print(f"{path}: N = {n}, {n * n // 4:,} pairs; numpy does ~2e8 a second, so about {n * n / 4 / 2e8:.0f} s",
              file=sys.stderr, flush=True)
    g = values(take_all, leave_one, split, n)
    width = 4 if g.max() > 65535 else 2
    digest = hashlib.sha256(g.astype("<u%d" % width).tobytes()).hexdigest()
    if width != v["width"] or digest != v["sha256"]:
        return f"hash mismatch: recomputed {digest} (width {width})"
    bad = np.nonzero(g[s + p:] != g[s:n + 1 - p])[0]
    if len(bad):
        k = s + int(bad[0])
        return f"period fails: G({k}) = {g[k]} but G({k + p}) = {g[k + p]}"
    if s > 0 and g[s - 1] == g[s - 1 + p]:
        return f"i not least: G({s - 1}) = G({s - 1 + p})"
    for d in range(1, p):
        if p % d == 0 and np.array_equal(g[s + d:], g[s:n + 1 - d]):
            return f"p not least: {d} is a period from {s} on"
    return None


def main(paths):
    if not paths:
        sys.exit(__doc__)
    failed = 0
    for path in paths:
        start = time.time()
        try:
            why = check(path)
        except (OSError, ValueError, KeyError, TypeError) as e:
            why = f"cannot check: {e}"
        if why:
            failed += 1
            print(f"FAILED {path}: {why}")
        else:
            print(f"ok {path}: values recomputed, hash, period and leastness hold ({time.time() - start:.1f} s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
