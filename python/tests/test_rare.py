"""Rare positions as data: ``Summary.rare_list`` and the ``is_rare``
helpers, against the reference engine's values and the definition of
sparse space."""

import numpy as np
import pytest

import octal


def rare_by_definition(g, mask, pp, i0):
    """Heaps n ≥ 1 whose value has the parity common × common splits make:
    popcount(G & mask) even, or ≡ n + i0 (mod 2) with position parity."""
    return [n for n in range(1, len(g))
            if bin(int(g[n]) & mask).count("1") % 2 == ((n + i0) % 2 if pp else 0)]


@pytest.mark.parametrize("code,i0", [(".6", 1), (".161", 2), (".16", 2)])
def test_rare_list_is_sparse_space_by_definition(code, i0):
    s = octal.run(code, 20_000)
    g = octal.values(code, 20_000, engine="reference")
    c = s.rare_class
    mask, pp = int(c["mask"], 16), c["position_parity"]
    want = rare_by_definition(g, mask, pp, i0)
    assert isinstance(s.rare_list, np.ndarray) and s.rare_list.shape == (len(want), 2)
    assert s.rare_list[:, 0].tolist() == want
    assert s.rare_list[:, 1].tolist() == [int(g[n]) for n in want]
    assert s.rare_list_complete is True
    assert all(s.is_rare(n) == (n in set(want)) for n in range(1, 2000))
    if not pp:
        assert all(s.is_rare_value(int(g[n])) == (n in set(want)) for n in range(1, 2000))


def test_a_game_without_sparse_space_says_so():
    s = octal.run(".4", 1000)
    assert s.rare_list is None and s.rare_class is None
    with pytest.raises(ValueError, match="without sparse space"):
        s.is_rare(5)
