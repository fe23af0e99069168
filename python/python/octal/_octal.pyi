"""Type stubs of the compiled half of the octal package (``octal._octal``).

The public API is ``octal``'s; these functions take their arguments
already checked and shaped by it.
"""

import os
from typing import Any, Callable, Optional, Union

import numpy as np
import numpy.typing as npt

_Progress = Optional[Callable[[int, int], Any]]
_Values = Union[npt.NDArray[np.uint16], npt.NDArray[np.uint32]]
_Path = Union[str, "os.PathLike[str]"]

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
    def summary_json(self) -> str: ...
    def verify(
        self, recompute: int, seed: int, progress: _Progress
    ) -> tuple[str, list[str], Optional[str]]: ...
    def write(
        self, path: _Path, format: str, start: int, stop: int, bfile: "_BFile", progress: _Progress
    ) -> None: ...

def parse_count(s: str) -> int: ...
def max_count() -> int: ...
def summary_text(json: str) -> str: ...
def values(
    code: Union[str, Code],
    n: int,
    start: int,
    engine: str,
    threads: Optional[int],
    progress: _Progress,
    mask: str = "auto",
) -> tuple[_Values, Optional[str]]: ...
def run(
    code: Union[str, Code],
    n: int,
    engine: str,
    threads: Optional[int],
    store: Optional[_Path],
    keep_going: bool,
    checkpoint_every: float,
    progress: _Progress,
    mask: str = "auto",
) -> str: ...
def open(path: _Path) -> _Sequence: ...
def period(
    values: _Values, code: Union[str, Code], progress: _Progress = None
) -> tuple[
    bool,
    Optional[tuple[int, int, int, Optional[int], bool, Optional[str], Optional[str]]],
    Optional[tuple[int, int, int]],
]: ...
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
    engine: str,
    threads: Optional[int],
    max_positions: int,
    progress: _Progress,
) -> int: ...
def directed_paths(
    paths: list[int], engine: str, threads: Optional[int], progress: _Progress
) -> list[int]: ...
def parse_paths(list: str) -> list[int]: ...
def is_odd_odd(variant: str) -> bool: ...
def digraph_value(arcs: str, vertices: Optional[int], variant: str) -> int: ...
