"""Cookie Cutter and Vertex Deletion give what the CLI gives."""

import pytest

import octal


def cli_value(cli, *args):
    return int(cli(*args).stdout.split()[-1])


@pytest.mark.parametrize("k,rows,cols", [(3, 1, 100_000), (2, 4, 4), ("inf", 2, 7), (5, 30, 1),
                                         (2, 3, 5), ("inf", 1, 5000), (1, 1, 1)])
def test_cookie_cutter(cli, k, rows, cols):
    want = cli_value(cli, "cookie-cutter", "--k", k, "--grid", f"{rows}x{cols}", "--quiet")
    assert octal.cookie_cutter(k, rows, cols) == want


def test_cookie_cutter_inf():
    import math

    assert octal.cookie_cutter(math.inf, 2, 7) == 14
    assert octal.cookie_cutter("inf", 1, 10**6) == 10**6


def test_vertex_deletion(cli):
    assert octal.vertex_deletion(directed_path=10**5) == cli_value(
        cli, "vertex-deletion", "--directed-path", "1e5", "--quiet")
    assert octal.vertex_deletion(directed_path="1e5") == octal.values("0.6", 10**5 + 1)[-1]
    assert octal.vertex_deletion(directed_paths=[5, 8, 13]) == cli_value(
        cli, "vertex-deletion", "--directed-paths", "5,8,13", "--quiet")
    assert octal.vertex_deletion(directed_paths="5,8,13") == octal.vertex_deletion(
        directed_paths=(5, 8, 13))
    assert octal.vertex_deletion(arcs="0>1,1>2,2>0") == 0
    assert octal.vertex_deletion(arcs=[(0, 1), (1, 2), (2, 0)]) == 0
    assert octal.vertex_deletion(arcs="0>1", vertices=4, variant="even-even") == cli_value(
        cli, "vertex-deletion", "--arcs", "0>1", "--vertices", "4", "--variant", "even-even")
