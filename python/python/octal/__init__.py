"""octal: exact Grundy sequences of octal games, as numpy arrays.

    >>> import octal
    >>> octal.values(".77", 12)                   # Kayles
    array([0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6], dtype=uint16)
    >>> octal.run(".77", 10**4).period             # proven periodic
    12

The engine is the one of the ``octal`` command line: ``values`` and ``run``
compute in memory (``run(..., store=PATH)`` on disk, resumable), ``open``
reads a store or an exported ``.oseq`` file, ``period`` finds and proves
the period of any array of values, and ``to_bfile``/``read_bfile`` exchange
OEIS b-files. Long computations release the GIL, show a progress bar with
``progress=True`` (tqdm if installed) and stop on Ctrl-C within a second.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import math
import operator
import os
import sys
import time
import warnings
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence as _Seq, Union

import numpy as np

from . import _octal
from ._octal import Code, Comparison, Period, Summary, Window

#: The package's version: the Rust crate's, compiled into the extension.
__version__: str = _octal.__version__

__all__ = [
    "Code",
    "Comparison",
    "Period",
    "Sequence",
    "Summary",
    "VerifyResult",
    "Window",
    "census",
    "compare",
    "cookie_cutter",
    "equiv",
    "open",
    "period",
    "read_bfile",
    "resume",
    "run",
    "to_bfile",
    "to_csv",
    "values",
    "vertex_deletion",
]

CodeLike = Union[str, Code]
Count = Union[int, str, float]
PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[bool, Callable[[int, int], Any]]


def _count(n: Any, name: str) -> int:
    """A count: an int, a whole float (1e6) or a string as the CLI takes it
    ("1e6", "2^20", "1_000_000")."""
    if isinstance(n, str):
        return _octal.parse_count(n)
    if isinstance(n, bool):
        raise TypeError(f"{name} must be a whole number, not a bool")
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"{name} must be a whole number (or a string such as '1e6'), "
            f"not {type(n).__name__}"
        ) from None
    if n < 0:
        raise ValueError(f"{name} must be at least 0, not {n}")
    if n > _octal.max_count():
        raise ValueError(f"{name} = {n} is too large (at most 2^48)")
    return n


def _optional_count(n: Optional[Count], name: str) -> Optional[int]:
    return None if n is None else _count(n, name)


def _threads(threads: Optional[int]) -> Optional[int]:
    if threads is None:
        return None
    t = operator.index(threads)
    if t < 1:
        raise ValueError(f"threads must be at least 1, not {t}")
    return t


def _engine(engine: str, threads: Optional[int], mask: str = "auto") -> "dict[str, Any]":
    """The engine options every computing function of ``_octal`` takes."""
    return {"engine": engine, "threads": _threads(threads), "mask": mask}


class _Bar:
    """A progress display: tqdm if installed, else a line on stderr."""

    def __init__(self, desc: str, unit: str) -> None:
        self.desc = desc
        self.unit = unit
        self.bar: Any = None
        self.shown = 0.0
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self.tqdm = None
        else:
            self.tqdm = tqdm

    def __call__(self, done: int, total: int) -> None:
        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(
                    total=total or None, desc=self.desc, unit=" " + self.unit,
                    unit_scale=True,
                )
            if total and self.bar.total != total:
                self.bar.total = total
            self.bar.update(done - self.bar.n)
            return
        now = time.monotonic()
        if now - self.shown < 0.5 and done != total:
            return
        self.shown = now
        of = f" of {total:,}" if total else ""
        pct = f" ({100 * done // total}%)" if total else ""
        sys.stderr.write(f"\r{self.desc}: {done:,}{of} {self.unit}{pct}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.tqdm is None and self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


@contextlib.contextmanager
def _progress(progress: Progress, desc: str, unit: str = "values") -> Iterator[Any]:
    if callable(progress):
        yield progress
    elif progress:
        bar = _Bar(desc, unit)
        try:
            yield bar
        finally:
            bar.close()
    else:
        yield None


def values(
    code: CodeLike,
    n: Count,
    *,
    start: Count = 0,
    engine: str = "sparse",
    threads: Optional[int] = None,
    progress: Progress = False,
    mask: str = "auto",
) -> np.ndarray:
    """G(start), …, G(n−1) of the game ``code`` as a numpy array: uint16,
    or uint32 when a value needs it. The same values as ``octal values CODE
    --to N --from START``.

    ``engine`` is "sparse" (the fast one, default) or "reference" (the
    quadratic oracle); ``threads`` defaults to every core; ``mask`` is the
    sparse-space mask as ``--mask`` takes it (auto, none, 0x1ee, 0x1ee+p).
    ``n`` = ``start``
    (``values(code, 0)``) gives an empty array, as ``range`` does. Values
    past a proven period are read off it, and a ``UserWarning`` says so.
    """
    n = _count(n, "n")
    start = _count(start, "start")
    if start > n:
        raise ValueError(f"start {start} must be at most n {n}")
    if start == n:
        Code(code)  # a bad code is an error still
        return np.zeros(0, np.uint16)
    with _progress(progress, str(code)) as cb:
        a, note = _octal.values(code, n, start, _engine(engine, threads, mask), cb)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=2)
    return a


def run(
    code: CodeLike,
    n: Count,
    *,
    engine: str = "sparse",
    threads: Optional[int] = None,
    store: Optional[PathLike] = None,
    keep_going: bool = False,
    checkpoint_every: float = 60.0,
    progress: Progress = False,
    mask: str = "auto",
    window: Optional[Count] = None,
    prefix: Optional[Count] = None,
    grow_prefix_to: Optional[Count] = None,
    export: Optional[PathLike] = None,
) -> Summary:
    """Computes G(0), …, G(n−1) of ``code`` and returns the summary ``octal
    run CODE --to N --json`` prints. Stops as soon as the values prove the
    sequence periodic, unless ``keep_going``.

    In memory by default; with ``store=PATH`` the values go to a store on
    disk (created, or resumed if it holds the same code), checkpointed every
    ``checkpoint_every`` seconds. Ctrl-C then checkpoints before raising
    KeyboardInterrupt, and the same call (or ``octal resume PATH``) goes on.
    ``mask`` is the sparse-space mask, as ``octal run --mask`` takes it.

    ``window=W`` (``prefix=P``, default W/4) is ``--window W --prefix P``:
    only a prefix and the last W values are kept, so ``n`` may exceed
    memory (sparse-space games only); ``store`` is then the window's
    checkpoint file, and ``octal.resume(store)`` goes on after Ctrl-C.
    When a heap needs a longer prefix, G(0..2P) is recomputed from scratch
    and the run goes on, up to ``grow_prefix_to`` values (default: as far
    as the window allows), each time with a ``UserWarning``;
    ``summary.window`` holds the window's own facts. ``export=FILE``
    writes the values to a sequence file as they are made (a new run
    only), as ``--export`` does.
    """
    n = _count(n, "n")
    if n < 1:
        raise ValueError("n must be at least 1")
    path = None if store is None else os.fspath(store)
    how = {
        "store": path, "keep_going": bool(keep_going),
        "checkpoint_every": float(checkpoint_every),
    }
    if window is None and (prefix, grow_prefix_to, export) != (None, None, None):
        raise ValueError("prefix, grow_prefix_to and export go with window only")
    with _progress(progress, str(code)) as cb:
        if window is not None:
            how["window"] = _count(window, "window")
            how["prefix"] = None if prefix is None else _count(prefix, "prefix")
            how["grow_prefix_to"] = _optional_count(grow_prefix_to, "grow_prefix_to")
            how["export"] = None if export is None else os.fspath(export)
            return _octal.run_window(code, n, _engine(engine, threads, mask), how, cb)
        return _octal.run(code, n, _engine(engine, threads, mask), how, cb)


def resume(
    path: PathLike,
    n: Optional[Count] = None,
    *,
    threads: Optional[int] = None,
    window: Optional[Count] = None,
    prefix: Optional[Count] = None,
    grow_prefix_to: Optional[Count] = None,
    keep_going: bool = False,
    checkpoint_every: float = 60.0,
    progress: Progress = False,
) -> Summary:
    """Goes on with the windowed run checkpointed at ``path`` (to ``n``
    values, default the target it was given; fewer than it has done are
    refused, since the window no longer holds them), as ``octal resume
    PATH``; ``window``/``prefix`` change its sizes where that is sound, and
    ``grow_prefix_to`` caps the prefix's growth. A store of a full run goes
    on through ``run(code, n, store=path)``.
    """
    how = {
        "store": os.fspath(path), "keep_going": bool(keep_going),
        "checkpoint_every": float(checkpoint_every),
        "window": _optional_count(window, "window"),
        "prefix": _optional_count(prefix, "prefix"),
        "grow_prefix_to": _optional_count(grow_prefix_to, "grow_prefix_to"),
        "export": None,
    }
    if how["window"] is None and prefix is not None:
        raise ValueError("prefix goes with window only")
    to = None if n is None else _count(n, "n")
    if to == 0:
        raise ValueError("n must be at least 1")
    with _progress(progress, os.fspath(path)) as cb:
        return _octal.resume_window(os.fspath(path), to, _threads(threads), how, cb)


def _side(x: Any) -> "dict[str, Any]":
    """One side of ``compare`` as the compiled half takes it."""
    if isinstance(x, (str, Code)):
        return {"name": str(Code(x)), "code": x, "values": None, "period": None}
    if isinstance(x, Sequence):
        s = x.summary
        proven = (s.period, s.preperiod) if s.proven else None
        return {"name": str(x.code), "code": x.code, "values": _as_values(x[:]),
                "period": proven}
    return {"name": "values", "code": None, "values": _as_values(x), "period": None}


def compare(
    a: Any,
    b: Any,
    *,
    to: Optional[Count] = None,
    shift: Union[int, str] = 0,
    engine: str = "sparse",
    threads: Optional[int] = None,
    progress: Progress = False,
) -> Comparison:
    """Compares G_a(n) with G_b(n + shift), as ``octal compare A B --shift
    K --to N``: ``a`` and ``b`` are codes, opened stores or files
    (``octal.open``), or arrays of values. A code is computed to ``to``
    (default 10^6, or until its period is proven); two proven periods
    settle every n. ``shift="auto"`` searches every shift that can matter
    (codes only) and answers with the one that holds.

    The ``Comparison`` has ``verdict`` ("differ", "equal_to",
    "equal_forever"), ``holds``, ``at``/``value_a``/``value_b`` (differ),
    ``to``, ``checked_to``, and with auto ``searched`` and ``holding``.
    """
    if isinstance(shift, str):
        if shift.strip() != "auto":
            raise ValueError(f'shift {shift!r}: give an int or "auto"')
        k = None
    elif isinstance(shift, bool) or not isinstance(shift, int):
        raise ValueError(f'shift {shift!r}: give an int or "auto"')
    else:
        k = shift
    n = None if to is None else _count(to, "to")
    with _progress(progress, "compare") as cb:
        return _octal.compare(_side(a), _side(b), k, n, _engine(engine, threads), cb)


def census(path: Optional[PathLike] = None) -> "list[dict[str, Any]]":
    """The rows of a census (one dict a class, as census.jsonl holds them):
    ``path`` is a census directory or its census.jsonl; None reads the
    shipped census of every code of up to 3 digits (to 2^25).
    ``pandas.DataFrame(octal.census())`` makes a table of it.
    """
    _, rows = _octal.census(None if path is None else os.fspath(path))
    return rows


def equiv(code: CodeLike, *, census: Optional[PathLike] = None) -> "dict[str, Any]":
    """Which codes are the same game as ``code``, and shifted by how much:
    the dict ``octal equiv CODE --json`` prints (``class``, ``status``,
    ``members`` with each ``shift`` and ``equation``), from the shipped
    censuses (up to three digits to 2^25, then up to four to 2^22) or
    ``census`` (a census directory or its census.jsonl).
    ValueError when the code is not in it.
    """
    return _octal.equiv(code, None if census is None else os.fspath(census))


def _as_values(values: Any) -> np.ndarray:
    """A one-dimensional contiguous uint16 or uint32 array of the values."""
    a = np.asarray(values)
    if a.ndim != 1:
        raise ValueError(f"values must be one-dimensional, not of shape {a.shape}")
    if a.dtype in (np.uint16, np.uint32):
        return np.ascontiguousarray(a)
    if a.size == 0:
        return np.zeros(0, np.uint16)
    if a.dtype.kind not in "iub":
        raise ValueError(f"values must be whole numbers, not {a.dtype}")
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi > 0xFFFF_FFFF:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{bad} is not a Grundy value (0 to 2^32 − 1)")
    return np.ascontiguousarray(a, dtype=np.uint16 if hi <= 0xFFFF else np.uint32)


def period(values: Any, code: CodeLike, *, progress: Progress = False) -> Optional[Period]:
    """The period of ``values``, taken as G(0), G(1), … of the game ``code``:
    proven (``Period.proven``) when the values reach the Guy–Smith bound,
    else the apparent one, or None.

    A proof holds only for the game's own values: before calling a period
    proven, the game's values up to the proof's bound are computed and
    compared. Values that are not the game's (a RuntimeWarning names the
    first n where they differ) have at most an apparent period.
    """
    with _progress(progress, f"checking {code}") as cb:
        return _octal.period(_as_values(values), code, cb)


_NO_BFILE = (0, 0, "")


def _bfile(
    game: str, first: int, offset: Optional[Count], index_shift: int, command: str
) -> "tuple[int, int, str]":
    """A b-file's layout: (first term, index shift, ``#`` header), with a
    UserWarning when the values start past the offset asked for."""
    off = None if offset is None else _count(offset, "offset")
    shift = operator.index(index_shift)
    header, note, at = _octal.bfile_header(game, first, off, shift, command)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=3)
    return at, shift, header


def _write(
    path: PathLike, values: np.ndarray, fmt: str, start: int,
    bfile: "tuple[int, int, str]" = _NO_BFILE,
) -> None:
    if isinstance(path, str) and path == "-":
        step = 1 << 20
        for at in range(0, max(len(values), 1), step):
            text = _octal.render(values[at:at + step], fmt, start + at, bfile, at == 0)
            sys.stdout.write(text.decode("ascii"))
        sys.stdout.flush()
        return
    _octal.write_values(os.fspath(path), values, fmt, start, bfile)


def to_bfile(
    path: PathLike,
    values: Any,
    offset: Optional[Count] = None,
    *,
    start: Count = 0,
    index_shift: int = 0,
    code: Optional[CodeLike] = None,
) -> None:
    """Writes an OEIS b-file: ``#`` lines naming the game (``code``, if
    given) and the call, then lines ``n a(n)`` with a(n) = G(n −
    index_shift), as ``octal values … --format bfile --offset OFFSET
    --index-shift SHIFT``. ``values`` are G(start), G(start+1), …;
    ``offset`` is the first n written (OEIS entries use 0, as Kayles
    A002186 and Grundy's game A002188, or 1, as most A0714xx entries);
    by default the first value given, so nothing is dropped. An offset
    below the first value given cannot be met: the terms start later and
    a UserWarning says so. ``path`` "-" is standard output."""
    start = _count(start, "start")
    game = "the values given" if code is None else f"the game {code}"
    args = "" if offset is None else f", offset={offset!r}"
    if index_shift:
        args += f", index_shift={index_shift!r}"
    layout = _bfile(game, start, offset, index_shift, f"octal.to_bfile(...{args})")
    _write(path, _as_values(values), "bfile", start, layout)


def to_csv(path: PathLike, values: Any, *, start: int = 0) -> None:
    """Writes CSV: a header ``n,value`` and a row ``n,G(n)`` per value;
    ``values`` are G(start), …; ``path`` "-" is standard output."""
    _write(path, _as_values(values), "csv", _count(start, "start"))


def read_bfile(path: PathLike) -> "tuple[int, np.ndarray]":
    """Reads a b-file back: (its offset, the values a(offset), …) with the
    values as uint16 (or uint32 when needed). Lines starting with # and
    blank lines are skipped; the indices must be consecutive."""
    return _octal.read_bfile(os.fspath(path))


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """What ``Sequence.verify`` found, as ``octal verify`` reports it.
    True when ``ok``."""

    status: str
    line: str
    problems: "list[str]"
    lost_slot: Optional[str]
    seed: int

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def __bool__(self) -> bool:
        return self.ok


class Sequence:
    """A store or an exported sequence file, opened by ``octal.open``.

    ``len(s)`` values G(0), …; ``s[i]`` is an int and ``s[a:b]`` a numpy
    array: a read-only view of a store's memory map (no copy), or the
    decompressed values of an exported file. Values read from a store are
    checked against their chunk checksums the first time.
    """

    __slots__ = ("_raw", "_summary")

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self._summary: Optional[Summary] = None

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return (
            f"<octal.Sequence: {self.kind} of {self.code}, {len(self):,} values, "
            f"{os.fspath(self.path)!r}>"
        )

    @property
    def code(self) -> Code:
        return self._raw.code

    @property
    def path(self) -> str:
        return os.fspath(self._raw.path)

    @property
    def kind(self) -> str:
        """"store" or "export"."""
        return self._raw.kind

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.uint16 if self._raw.width == 2 else np.uint32)

    @property
    def summary(self) -> Summary:
        """The summary of the values held (see ``Summary``)."""
        if self._summary is None:
            self._summary = self._raw.summary()
        return self._summary

    def __getitem__(self, key: Any) -> Any:
        n = len(self)
        if isinstance(key, slice):
            r = range(*key.indices(n))
            if len(r) == 0:
                return self._raw.slice(0, 0)
            lo, hi = min(r[0], r[-1]), max(r[0], r[-1]) + 1
            a = self._raw.slice(lo, hi)
            return a if r.step == 1 else a[r[0] - lo::r.step][:len(r)]
        try:
            i = operator.index(key)
        except TypeError:
            raise TypeError(
                f"indices must be integers or slices, not {type(key).__name__}"
            ) from None
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"index {key} is out of range: {n} values")
        return self._raw.get(i)

    def __iter__(self) -> Iterator[int]:
        step = 1 << 16
        for at in range(0, len(self), step):
            yield from self[at:at + step].tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self[:]
        if dtype is not None:
            a = a.astype(dtype)
        elif copy:
            a = a.copy()
        return a

    def verify(
        self, recompute: int = 0, *, seed: Optional[int] = None, progress: Progress = False
    ) -> VerifyResult:
        """Checks every value against its checksum, and ``recompute`` values
        (picked by ``seed``, and the last) against the reference engine, as
        ``octal verify PATH --recompute K`` does."""
        if seed is None:
            seed = time.time_ns() & (2**64 - 1)
        with _progress(progress, f"verifying {self.path}") as cb:
            line, problems, lost = self._raw.verify(_count(recompute, "recompute"), seed, cb)
        if problems:
            status = "damaged"
        elif lost is not None:
            status = "checkpoint lost"
        else:
            status = "ok"
        return VerifyResult(status, line, problems, lost, seed)

    def _range(self, start: Any, stop: Any) -> "tuple[int, int]":
        r = range(*slice(start, stop).indices(len(self)))
        return r.start, max(r.start, r.stop)

    def _write(
        self, path: PathLike, fmt: str, start: Any, stop: Any,
        offset: Optional[Count] = None, index_shift: int = 0,
    ) -> None:
        a, b = self._range(start, stop)
        bfile = _NO_BFILE
        if fmt == "bfile":
            args = "" if offset is None else f", offset={offset!r}"
            if index_shift:
                args += f", index_shift={index_shift!r}"
            command = f"octal.open({self.path!r}).to_bfile(..., start={a}, stop={b}{args})"
            bfile = _bfile(f"the game {self.code}", a, offset, index_shift, command)
        if isinstance(path, str) and path == "-":
            step = 1 << 20
            for at in range(a, max(b, a + 1), step):
                piece = self[at:min(at + step, b)]
                sys.stdout.write(_octal.render(piece, fmt, at, bfile, at == a).decode("ascii"))
            sys.stdout.flush()
            return
        self._raw.write(os.fspath(path), fmt, (a, b), bfile, None)

    def to_bfile(
        self, path: PathLike, offset: Optional[Count] = None, *, start: Optional[int] = None,
        stop: Optional[int] = None, index_shift: int = 0,
    ) -> None:
        """Writes the values (or G(start..stop)) as an OEIS b-file, as the
        module's ``to_bfile`` does (``#`` header, ``offset`` defaulting to
        the first value written, ``index_shift``); "-" is standard output."""
        self._write(path, "bfile", start, stop, offset, index_shift)

    def to_csv(
        self, path: PathLike, *, start: Optional[int] = None, stop: Optional[int] = None
    ) -> None:
        """Writes the values (or G(start..stop)) as CSV, ``n,value``."""
        self._write(path, "csv", start, stop)

    def to_npy(
        self, path: PathLike, *, start: Optional[int] = None, stop: Optional[int] = None
    ) -> None:
        """Writes the values (or G(start..stop)) with ``numpy.save`` (never
        over the store or file they come from)."""
        buf = io.BytesIO()
        np.save(buf, self[slice(start, stop)])
        p = os.fspath(path)
        if not p.endswith(".npy"):
            p += ".npy"
        _octal.write_file(p, buf.getvalue(), [self.path])


def open(path: PathLike) -> Sequence:
    """Opens a store (``runs/0.6.octal``) or an exported sequence file
    (``0.6.oseq``) for reading."""
    s = Sequence(_octal.open(os.fspath(path)))
    lost = s._raw.lost_slot
    if lost is not None:
        warnings.warn(f"{s.path}: {lost}", RuntimeWarning, stacklevel=2)
    return s


def cookie_cutter(
    k: Union[int, str, float],
    rows: int,
    cols: int,
    *,
    engine: str = "sparse",
    threads: Optional[int] = None,
    max_positions: int = 1 << 24,
    progress: Progress = False,
) -> int:
    """The value of Cookie Cutter with a k×k cutter on a rows×cols board
    (``k`` = ``math.inf`` or "inf": an arbitrarily large cutter), as ``octal
    cookie-cutter --k K --grid RxC``: a strip 1×n is the octal game 0.33…37
    at heap n, computed by the engine; other boards (at most 128 squares)
    by exact search, keeping at most ``max_positions`` positions."""
    if isinstance(k, float) and math.isinf(k) and k > 0:
        k = "inf"
    elif not isinstance(k, str):
        k = str(_count(k, "k"))
    with _progress(progress, f"cookie cutter k={k} {rows}x{cols}", "positions") as cb:
        return _octal.cookie_cutter(
            k, _count(rows, "rows"), _count(cols, "cols"), _engine(engine, threads),
            _count(max_positions, "max_positions"), cb,
        )


def _arcs(arcs: Union[str, Iterable[Any]]) -> str:
    if isinstance(arcs, str):
        return arcs
    out = []
    for arc in arcs:
        u, v = arc
        out.append(f"{operator.index(u)}>{operator.index(v)}")
    return ",".join(out)


def vertex_deletion(
    *,
    directed_path: Optional[Count] = None,
    directed_paths: Union[None, str, _Seq[Count]] = None,
    arcs: Union[None, str, Iterable[Any]] = None,
    vertices: Optional[int] = None,
    variant: str = "odd-odd",
    engine: str = "sparse",
    threads: Optional[int] = None,
    progress: Progress = False,
) -> int:
    """The value of Vertex Deletion, as ``octal vertex-deletion``: give
    exactly one of ``directed_path=N`` (a path of N vertices, every arc the
    same way: the octal game 0.6 at heap N), ``directed_paths=[5, 8, 13]``
    (their disjoint union: the nim-sum), or ``arcs`` ("0>1,1>2" or pairs
    [(0, 1), (1, 2)]; at most 24 vertices, ``vertices`` adds isolated ones)
    for exact search. ``variant``: "odd-odd" (default) or "even-even"
    (arcs only)."""
    given = [x is not None for x in (directed_path, directed_paths, arcs)]
    if sum(given) != 1:
        raise ValueError(
            "give exactly one of directed_path=N, directed_paths=[A, B, …] or arcs=…"
        )
    if arcs is not None:
        v = None if vertices is None else _count(vertices, "vertices")
        return _octal.digraph_value(_arcs(arcs), v, variant)
    if vertices is not None:
        raise ValueError("vertices goes with arcs only")
    if not _octal.is_odd_odd(variant):
        raise ValueError(
            "directed paths reduce to an octal game in the odd-odd variant only; use arcs"
        )
    if directed_path is not None:
        heaps = [_count(directed_path, "directed_path")]
    elif isinstance(directed_paths, str):
        heaps = _octal.parse_paths(directed_paths)
    else:
        heaps = [_count(h, "directed_paths") for h in directed_paths]
    with _progress(progress, "0.6") as cb:
        found = _octal.directed_paths(heaps, _engine(engine, threads), cb)
    x = 0
    for v in found:
        x ^= v
    return x
