"""Type stubs of the compiled half of the octal package (``octal._octal``).

The public API is ``octal``'s; these functions take their arguments
already checked and shaped by it.
"""

import os
from typing import Any, Callable, Dict, Optional, Union

import numpy as np
import numpy.typing as npt

_Progress = Optional[Callable[[int, int], Any]]
_Values = Union[npt.NDArray[np.uint16], npt.NDArray[np.uint32]]
_Path = Union[str, "os.PathLike[str]"]
#: {"engine": "sparse" | "reference", "threads": int | None, "mask": str}
_Engine = dict[str, Any]

__version__: str

class Code:
    """An octal code, parsed: ``Code("0.6")``, ``Code(".137")``,
    ``Code("4.0u")``, ``Code("grundy")``. A bad code raises ValueError with
    the message the CLI prints. Codes compare equal when they are the same
    game; ``str`` gives the canonical spelling."""

    def __init__(self, code: Union[str, "Code"]) -> None: ...
    @staticmethod
    def cookie_cutter(k: int) -> "Code":
        """Cookie Cutter's strip game for a k×k cutter: 0.33…37, k−1 threes."""
    @staticmethod
    def grundy() -> "Code":
        """Grundy's game, 4.0u."""
    @property
    def digits(self) -> list[int]:
        """The digits, d0 (before the point) first, without trailing zeros."""
    @property
    def rules(self) -> dict[str, Any]:
        """The moves by kind: ``take_all``, ``take_leave_one``,
        ``take_split``, ``take_split3`` (lists of how many tokens each move
        removes) and ``unequal_splits`` (bool)."""
    @property
    def is_octal(self) -> bool:
        """True for a plain octal code: every digit below 8 and no ``u``."""
    @property
    def unequal_splits(self) -> bool:
        """True with the ``u`` suffix."""
    @property
    def period_provable(self) -> bool:
        """False when no period of this game can be proven."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type, tuple[str]]: ...

class Period:
    """A period of a sequence: G(n + period) = G(n) for every n ≥
    preperiod. ``proven``: the values prove it for ever (the Guy–Smith
    bound), once ``proven_at`` values were seen; otherwise it is apparent,
    holding over the ``proven_at`` values seen, and ``bound`` is the number
    of values a proof needs (None when no proof exists for the game).
    Frozen: its attributes cannot be assigned."""

    def __init__(
        self,
        period: int,
        preperiod: int,
        proven_at: int,
        bound: Optional[int],
        proven: bool,
        notation: Optional[str] = None,
        notation_latex: Optional[str] = None,
    ) -> None: ...
    @property
    def period(self) -> int: ...
    @property
    def preperiod(self) -> int: ...
    @property
    def proven_at(self) -> int: ...
    @property
    def bound(self) -> Optional[int]: ...
    @property
    def proven(self) -> bool: ...
    @property
    def notation(self) -> Optional[str]:
        """The values to the end of the first period in the lecture notes'
        notation, the period's ends dotted (at most 200 characters)."""
    @property
    def notation_latex(self) -> Optional[str]: ...
    @property
    def last_irregular(self) -> Optional[int]:
        """The last n with G(n) ≠ G(n + period), preperiod − 1 (None when
        periodic from 0)."""
    def __eq__(self, other: object) -> bool: ...

class Summary:
    """What a run ends with: the fields of ``octal run --json`` as
    attributes, with the proven period's ``period``, ``preperiod``,
    ``proven_at`` and ``bound`` flattened (None without a proof). ``json``
    is the object exactly as the CLI prints it; ``str()`` the text of
    ``octal run``. Summaries of an opened store or file have the facts the
    file records; the others (``threads``, ``isa``, the sparse-space facts,
    and for an exported file ``seconds`` and ``engine``) are None. Frozen:
    its attributes cannot be assigned."""

    code: str
    values: int
    max_value: int
    first_max_at: int
    zeros: int
    zeros_from_1: int
    last_value: int
    checksum: str
    seconds: Optional[float]
    values_per_second: Optional[float]
    bytes_per_value: int
    engine: Optional[str]
    threads: Optional[int]
    rare_mask: Optional[int]
    rare_positions: Optional[int]
    rare_positions_with_0: Optional[int]
    last_rare_at: Optional[int]
    isa: Optional[str]
    period: Optional[int]
    preperiod: Optional[int]
    proven_at: Optional[int]
    bound: Optional[int]
    proven: bool
    apparent_period: Optional[Period]
    period_provable: bool
    #: games beyond octal: ``{"period", "preperiod", "saltus", "checked_to"}``
    #: when G(n + period) = G(n) + saltus over the values (apparent only)
    arithmetic_period: Optional[Dict[str, int]]
    period_notation: Optional[str]
    period_notation_latex: Optional[str]
    store: Optional[str]
    resumed_from: Optional[int]
    held: Optional[int]
    target: Optional[int]
    #: ``{"mask": "0x1ee", "position_parity": False, "parity": 0, "rule": "..."}``
    rare_class: Optional[dict[str, Any]]
    #: The rare positions n ≥ 1 with their values, shape (k, 2).
    rare_list: Optional[npt.NDArray[np.int64]]
    rare_list_complete: Optional[bool]
    #: A windowed run's own facts; None for the others.
    window: Optional[Window]
    json: dict[str, Any]
    def is_rare_value(self, g: int, n: Optional[int] = None) -> bool: ...
    def is_rare(self, n: int) -> bool: ...

class Window:
    """What a windowed run's summary has besides a full run's: its sizes,
    what it keeps, each growth of its prefix and its exported file."""

    window: int
    prefix: int
    kept_from: int
    memory_bytes: int
    periods_searched_up_to: int
    #: Each growth: ``{"at": heap, "from": values, "to": values, "seconds": s}``.
    prefix_grown: list[dict[str, Any]]
    exported: Optional[str]

class Comparison:
    a: str
    b: str
    shift: int
    verdict: str
    holds: bool
    at: Optional[int]
    value_a: Optional[int]
    value_b: Optional[int]
    to: Optional[int]
    checked_to: Optional[int]
    searched: Optional[tuple[int, int]]
    holding: list[int]
    words: str
    def __bool__(self) -> bool: ...

class _Sequence:
    def __len__(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def path(self) -> "os.PathLike[str]": ...
    @property
    def code(self) -> Code: ...
    @property
    def width(self) -> int: ...
    @property
    def lost_slot(self) -> Optional[str]: ...
    def get(self, i: int) -> int: ...
    def slice(self, start: int, stop: int) -> _Values: ...
    def summary(self) -> Summary: ...
    def verify(
        self, recompute: int, seed: int, progress: _Progress
    ) -> tuple[str, list[str], Optional[str]]: ...
    def write(
        self, path: _Path, format: str, range: tuple[int, int], bfile: "_BFile", progress: _Progress
    ) -> None: ...

def parse_count(s: str) -> int: ...
def max_count() -> int: ...
def values(
    code: Union[str, Code],
    n: int,
    start: int,
    engine: _Engine,
    progress: _Progress,
) -> tuple[_Values, Optional[str]]: ...
def run(
    code: Union[str, Code],
    n: int,
    engine: _Engine,
    how: dict[str, Any],
    progress: _Progress,
) -> Summary: ...
def open(path: _Path) -> _Sequence: ...
def period(
    values: _Values, code: Union[str, Code], progress: _Progress = None
) -> Optional[Period]: ...
_BFile = tuple[int, int, str]
def write_values(path: _Path, values: _Values, format: str, start: int, bfile: _BFile) -> None: ...
def render(values: _Values, format: str, start: int, bfile: _BFile, header: bool) -> bytes: ...
def bfile_header(
    game: str, first: int, offset: Optional[int], shift: int, command: str
) -> tuple[str, Optional[str], int]: ...
def read_bfile(path: _Path) -> tuple[int, _Values]: ...
def cookie_cutter(
    k: str,
    rows: int,
    cols: int,
    engine: _Engine,
    max_positions: int,
    progress: _Progress,
) -> int: ...
def directed_paths(
    paths: list[int], engine: _Engine, progress: _Progress
) -> list[int]: ...
def parse_paths(list: str) -> list[int]: ...
def is_odd_odd(variant: str) -> bool: ...
def digraph_value(arcs: str, vertices: Optional[int], variant: str) -> int: ...
#: {"name": str, "code": str | Code | None, "values": _Values | None,
#:  "period": (period, preperiod) | None}
_Side = dict[str, Any]
def compare(
    a: _Side,
    b: _Side,
    shift: Optional[int],
    to: Optional[int],
    engine: _Engine,
    progress: _Progress,
) -> Comparison: ...
def census(path: Optional[_Path]) -> tuple[str, list[dict[str, Any]]]: ...
def equiv(code: Union[str, Code], path: Optional[_Path]) -> dict[str, Any]: ...
def run_window(
    code: Union[str, Code],
    n: int,
    engine: _Engine,
    how: dict[str, Any],
    progress: _Progress,
) -> Summary: ...
def resume_window(
    path: _Path,
    n: Optional[int],
    threads: Optional[int],
    how: dict[str, Any],
    progress: _Progress,
) -> Summary: ...
