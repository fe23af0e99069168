//! A windowed run in progress: computing a step, sliding the window,
//! growing the prefix when a heap needs it, resizing, checkpointing, and
//! the loop that runs it ([`Windowed::run`]; the window's own, as its
//! values slide out of memory rather than into a backing).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::error::WindowError;
use super::file;
use super::kept::KeptValues;
use super::meta::{checked_code, reach, Grown, Meta, Sizes};
use super::ring::Ring;
use super::summary::WindowSummary;
use crate::code::Code;
use crate::engine::{Engine, Halt, MaskSpec, Overflow, Sparse, SparseError};
use crate::period::{Detector, SHORT};
use crate::run::{Progress, Summary};
use crate::stats::Stats;
use crate::store::stream::Streamer;
use crate::store::StoreError;

/// Values computed before a game is judged to have no sparse space.
pub const PROBE: usize = 1 << 14;
/// Exit status of a windowed run stopped at a heap it cannot decide.
pub const EXIT_UNDECIDED: u8 = 4;

/// How a windowed run ended.
#[derive(Debug)]
pub enum WindowEnding {
    /// At its target, or at a proven period.
    Done,
    /// Stopped by a signal (the status it asked for), checkpoint saved.
    Stopped(usize),
    /// Stopped at a heap it could not decide: the one-line reason.
    Halted(String),
}

/// What a run tells of each growth of its prefix ([`Windowed::on_grow`]).
type OnGrow = Box<dyn FnMut(&Grown) + Send>;

/// A windowed run in progress.
pub struct Windowed {
    code: Code,
    meta: Meta,
    ring: Ring,
    engine: Sparse,
    /// The largest distance of a move: how far before a heap its own
    /// options reach besides the pairs.
    reach: u64,
    /// Where its checkpoints go (none for a run in memory only).
    file: Option<file::Locked>,
    /// The sequence file the values stream into, if any.
    export: Option<Streamer>,
    /// The sequence file finished at the end of this session.
    exported: Option<PathBuf>,
    /// Told of each growth of the prefix as it happens.
    on_grow: Option<OnGrow>,
}

/// Refuses games that a window cannot serve, before anything is run
/// long: three-heap splits, and splits without sparse space in the first
/// [`PROBE`] values.
fn check_game(code: &Code) -> Result<(), WindowError> {
    let rules = code.rules();
    let unsupported = |why: String| WindowError::Unsupported {
        code: code.to_string(),
        why,
    };
    if rules.has_split3() {
        return Err(unsupported("it splits heaps in three".into()));
    }
    if rules.take_split.is_empty() {
        return Ok(());
    }
    let mut probe =
        Sparse::new(code, 1, MaskSpec::Sparse).map_err(|e| unsupported(e.to_string()))?;
    let mut g = vec![0u32; PROBE];
    probe.extend_u32(&mut g, 0).expect("values fit in u32");
    if probe.mask().is_none() {
        return Err(unsupported(format!(
            "no sparse space in its first {PROBE} values (every mask leaves over a fifth of the positions rare)"
        )));
    }
    Ok(())
}

impl Windowed {
    /// A new windowed run of `code` to `to` values, its checkpoints in
    /// `path` (none: in memory only).
    pub fn new(
        code: &Code,
        to: u64,
        sizes: Sizes,
        threads: usize,
        path: Option<&Path>,
    ) -> Result<Windowed, WindowError> {
        check_game(code)?;
        let file = match path {
            Some(p) => Some(file::Locked::create(p)?),
            None => None,
        };
        let meta = Meta {
            code: code.to_string(),
            to,
            sizes,
            prefix: 0,
            lo: 0,
            done: 0,
            stats: Stats::default(),
            histogram: Vec::new(),
            powers: Vec::new(),
            marks: Vec::new(),
            detector: Detector::new(code),
            engine: None,
            seconds: 0.0,
            halted: None,
            export: None,
            grow_to: None,
            prefix_grown: Vec::new(),
        };
        Windowed::with(code, meta, threads, file, |_| Ok(()))
    }

    /// Streams the values into the sequence file `path` as they are made
    /// (a new run only).
    pub fn export_to(&mut self, path: &Path) -> Result<(), WindowError> {
        assert_eq!(self.meta.done, 0, "export_to before the run starts");
        let frame = self
            .meta
            .sizes
            .chunk()
            .min(crate::store::seqfile::DEFAULT_FRAME_VALUES);
        self.export = Some(Streamer::create(path, &self.meta.code, frame)?);
        Ok(())
    }

    /// Lets the prefix grow, up to `cap` values (and the window's
    /// [`Sizes::room`]), when a heap cannot be decided from the kept
    /// values: G(0..P') is recomputed from scratch, with P' twice the
    /// prefix or the cap, and the run goes on ([`Meta::prefix_grown`]).
    /// A cap no longer than the prefix keeps it as it is.
    pub fn grow_prefix_to(&mut self, cap: u64) {
        self.meta.grow_to = Some(cap);
        // A run that stopped at a heap tries it again (and stops again
        // where growing cannot help).
        self.meta.halted = None;
    }

    /// Lets the prefix grow up to `cap`, or without one as far as the
    /// window allows (unless an earlier session of the run set a cap,
    /// which then holds).
    pub fn allow_growth(&mut self, cap: Option<u64>) {
        if let Some(cap) = cap.or(self.meta.grow_to.is_none().then_some(u64::MAX)) {
            self.grow_prefix_to(cap);
        }
    }

    /// Calls `f` with each growth of the prefix as it happens.
    pub fn on_grow(&mut self, f: impl FnMut(&Grown) + Send + 'static) {
        self.on_grow = Some(Box::new(f));
    }

    /// Goes on with other sizes, where that is sound: a window no longer
    /// than the values it kept (the last values are never recomputed), a
    /// prefix within what the new window can keep and holding every rare
    /// position (a longer one is recomputed from scratch). A run that
    /// stopped at a heap tries it again with the new sizes.
    pub fn resize(&mut self, sizes: Sizes) -> Result<(), WindowError> {
        if sizes == self.meta.sizes {
            return Ok(());
        }
        let refuse = |why: String| Err(WindowError::Size(why));
        let m = &self.meta;
        let (w, p) = (sizes.window, sizes.prefix);
        if m.export.is_some() {
            return refuse(format!(
                "--window {w}: this run writes an --export, whose frames are cut to its window; resume it with --window {} --prefix {}",
                m.sizes.window, m.sizes.prefix
            ));
        }
        if m.prefix == 0 {
            // Nothing dropped yet: every value is kept, any sizes do.
            self.meta.sizes = sizes;
            self.meta.halted = None;
            return Ok(());
        }
        let kept = m.done - m.lo;
        if sizes.back() > kept {
            return refuse(format!(
                "--window {w} needs the last {} values, and the checkpoint kept {kept} (G({}..{})); dropped values are not recomputed: resume with --window {} or less, or start anew",
                sizes.back(),
                m.lo,
                m.done,
                kept / 3 * 4 / 1024 * 1024
            ));
        }
        let last_rare = self.engine.rare_positions().last().copied().unwrap_or(0);
        let prefix = p.max(last_rare + 1);
        let room = sizes.room(&self.code);
        if prefix > room {
            return refuse(format!(
                "--window {w} keeps a prefix of {room} values at most, and the run needs {prefix} (--prefix, and the rare position at heap {last_rare}): give a larger --window"
            ));
        }
        let (old, old_lo, lo) = (m.prefix, m.lo, m.done - sizes.back());
        if prefix > old {
            self.recompute_prefix(prefix)?;
        }
        // What the new sizes no longer keep goes (pages wholly inside it).
        let release = [(prefix, old.min(old_lo)), (old_lo.max(prefix), lo)];
        for (a, b) in release {
            if a < b {
                self.ring
                    .release(a as usize, b as usize)
                    .map_err(|error| WindowError::Memory {
                        what: "releasing what the new window does not keep",
                        error,
                    })?;
            }
        }
        let m = &mut self.meta;
        m.sizes = sizes;
        m.prefix = prefix;
        m.lo = lo;
        m.halted = None;
        m.detector.forget_before(lo);
        self.engine.keep_window(prefix as usize, lo as usize);
        Ok(())
    }

    /// Makes G(0..to) kept, computed from scratch by a full-run engine,
    /// after checking that it gives the values already kept.
    fn recompute_prefix(&mut self, to: u64) -> Result<(), WindowError> {
        let (from, lo, done) = (self.meta.prefix, self.meta.lo, self.meta.done);
        let (to_, old) = (to as usize, from as usize);
        let overlap = (lo.min(to) as usize)..to_;
        let fresh = {
            let mut e = Sparse::new(&self.code, self.engine.info().threads, MaskSpec::Sparse)
                .map_err(WindowError::Engine)?;
            let mut g = vec![0u16; to_];
            e.extend_u16(&mut g, 0)
                .map_err(|o| WindowError::Recompute(o.at as u64))?;
            g
        };
        let held = self.ring.slice(done as usize);
        let differs = (0..old).chain(overlap).find(|&n| held[n] != fresh[n]);
        if let Some(n) = differs {
            return Err(WindowError::Recompute(n as u64));
        }
        self.ring
            .open(old, to_)
            .map_err(|error| WindowError::Memory {
                what: "backing the longer prefix",
                error,
            })?;
        let g = self.ring.slice(to_);
        let fresh_part = (lo.min(to) as usize).max(old);
        g[old..fresh_part].copy_from_slice(&fresh[old..fresh_part]);
        Ok(())
    }

    /// After a heap the kept values could not decide: grows the prefix
    /// (doubled, within the cap and the window's room) and tries the heap
    /// again; false when it cannot grow.
    fn grow(&mut self, at: u64) -> Result<bool, WindowError> {
        let Some(cap) = self.meta.grow_to else {
            return Ok(false);
        };
        let from = self.meta.prefix;
        let to = (2 * from).min(cap).min(self.meta.sizes.room(&self.code));
        if to <= from {
            return Ok(false);
        }
        let t = Instant::now();
        self.recompute_prefix(to)?;
        self.meta.prefix = to;
        self.engine.keep_window(to as usize, self.meta.lo as usize);
        let grown = Grown {
            at,
            from,
            to,
            seconds: t.elapsed().as_secs_f64(),
        };
        self.meta.seconds += grown.seconds;
        self.meta.prefix_grown.push(grown);
        if let Some(f) = &mut self.on_grow {
            f(&grown);
        }
        Ok(true)
    }

    /// The sequence file this session finished writing, if any.
    pub fn exported(&self) -> Option<&Path> {
        self.exported.as_deref()
    }

    /// Takes up the run checkpointed in `path`, to `to` values if given.
    pub fn resume(path: &Path, to: Option<u64>, threads: usize) -> Result<Windowed, WindowError> {
        let (locked, mut meta, values) = file::Locked::open(path)?;
        let code = checked_code(path, &meta, &values)?;
        if let Some(to) = to {
            if to < meta.done {
                return Err(WindowError::Below {
                    path: path.display().to_string(),
                    done: meta.done,
                    to,
                });
            }
            meta.to = to;
        }
        let damaged = |what: String| WindowError::Store(StoreError::damaged(path, what));
        let [(a0, a1), (b0, b1)] = meta.kept_ranges();
        if values.len() as u64 != (a1 - a0) + (b1 - b0) {
            return Err(damaged("its values do not match its header".into()));
        }
        let engine_state = meta.engine.clone();
        let mut w = Windowed::with(&code, meta, threads, Some(locked), |ring| {
            let (first, second) = values.split_at((a1 - a0) as usize);
            ring.open(a0 as usize, a1 as usize)
                .and_then(|_| ring.open(b0 as usize, b1 as usize))
                .map_err(|error| WindowError::Memory {
                    what: "backing the checkpoint's values",
                    error,
                })?;
            let g = ring.slice(b1.max(a1) as usize);
            g[a0 as usize..a1 as usize].copy_from_slice(first);
            g[b0 as usize..b1 as usize].copy_from_slice(second);
            Ok(())
        })?;
        if let Some(state) = engine_state {
            let prefix = w.meta.prefix as usize;
            let g = w.ring.slice(prefix);
            w.engine.restore_window(&state, g).map_err(damaged)?;
            w.engine.keep_window(prefix, w.meta.lo as usize);
        }
        if let Some(state) = &w.meta.export {
            // The values after its last whole frame go in again: they are
            // in the window (a frame is at most a step, and the window
            // reaches a step and more back).
            let mut x = Streamer::resume(state, &w.meta.code)?;
            let from = x.values_in_frames();
            let [_, (b0, _)] = w.meta.kept_ranges();
            if w.meta.prefix > 0 && from < b0 {
                return Err(damaged("the export's frames end before the window".into()));
            }
            let done = w.meta.done as usize;
            x.push(&w.ring.slice(done)[from as usize..])?;
            w.export = Some(x);
        }
        Ok(w)
    }

    fn with(
        code: &Code,
        meta: Meta,
        threads: usize,
        file: Option<file::Locked>,
        fill: impl FnOnce(&mut Ring) -> Result<(), WindowError>,
    ) -> Result<Windowed, WindowError> {
        let mut ring = Ring::reserve(meta.to.max(meta.done) as usize).map_err(|error| {
            WindowError::Reserve {
                values: meta.to,
                error,
            }
        })?;
        fill(&mut ring)?;
        let engine = Sparse::new(code, threads, MaskSpec::Sparse).map_err(|e| match e {
            SparseError::Unsupported { .. } => WindowError::Unsupported {
                code: code.to_string(),
                why: e.to_string(),
            },
            e => WindowError::Engine(e),
        })?;
        Ok(Windowed {
            code: code.clone(),
            reach: reach(code),
            meta,
            ring,
            engine,
            file,
            export: None,
            exported: None,
            on_grow: None,
        })
    }

    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    pub fn code(&self) -> &Code {
        &self.code
    }

    /// The checkpoint file, if the run has one.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path())
    }

    /// The values the run holds now: G(0..prefix) and G(lo..done) (all of
    /// G(0..done) before anything is dropped).
    pub fn kept_values(&mut self) -> KeptValues<'_> {
        let [(_, a1), (b0, b1)] = self.meta.kept_ranges();
        let g = &self.ring.slice(b1.max(a1) as usize)[..];
        KeptValues {
            prefix: &g[..a1 as usize],
            lo: b0 as usize,
            ring: &g[b0 as usize..b1 as usize],
        }
    }

    /// The mask in use (frozen once values are dropped).
    pub fn mask(&self) -> Option<crate::engine::Mask> {
        self.engine.mask()
    }

    /// Bytes of values the run keeps in memory at most.
    pub fn kept_bytes(&self) -> u64 {
        2 * (self.meta.sizes.window + self.meta.sizes.prefix.max(self.meta.prefix))
    }

    /// Computes until the target, a proven period when `stop_at_proof`,
    /// a signal in `stop`, or a heap it cannot decide; checkpoints every
    /// `every` (and at the end) when it has a file.
    pub fn run(
        &mut self,
        stop_at_proof: bool,
        every: Duration,
        stop: Option<&AtomicUsize>,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<WindowEnding, WindowError> {
        let mut last = Instant::now();
        let to = self.meta.to;
        let ending = loop {
            if let Some(why) = &self.meta.halted {
                break WindowEnding::Halted(why.clone());
            }
            if self.meta.done >= to || (stop_at_proof && self.meta.detector.proven().is_some()) {
                break WindowEnding::Done;
            }
            if let Some(status) = stop.map(|s| s.load(Ordering::SeqCst)).filter(|&s| s != 0) {
                break WindowEnding::Stopped(status);
            }
            self.step(stop_at_proof)?;
            progress(&Progress {
                done: self.meta.done,
                to,
                max_value: self.meta.stats.max_value,
                rare_positions: self.engine.info().rare_positions,
                last_rare_at: self.engine.info().last_rare_at,
                period: self.meta.detector.shown(),
            });
            if self.file.is_some() && last.elapsed() >= every {
                self.checkpoint()?;
                last = Instant::now();
            }
        };
        if !matches!(ending, WindowEnding::Stopped(_)) {
            if let Some(x) = self.export.take() {
                self.exported = Some(x.finish(&self.meta.stats, self.meta.detector.proven())?);
            }
        }
        self.checkpoint()?;
        Ok(ending)
    }

    /// Computes the next step of values and drops what falls out of the
    /// window.
    fn step(&mut self, stop_at_proof: bool) -> Result<(), WindowError> {
        let t = Instant::now();
        let m = &self.meta;
        let done = m.done;
        // Short steps at first, so that small runs and proofs stop early.
        let mut end = (done + (done / 8).clamp(1 << 10, m.sizes.chunk())).min(m.to);
        if stop_at_proof {
            if let Some(want) = m.detector.wants() {
                end = end.min(want.max(done + 64));
            }
        }
        let (d, e) = (done as usize, end as usize);
        self.ring.open(d, e).map_err(|error| WindowError::Memory {
            what: "backing the window",
            error,
        })?;
        let g = self.ring.slice(e);
        let good = match self.engine.extend_u16(g, d) {
            Ok(()) => self.engine.halted().map_or(e, |h| h.at),
            Err(Overflow { at, value }) => {
                self.meta.halted = Some(format!(
                    "G({at}) = {value} does not fit the 16-bit values of a windowed run; run it without --window"
                ));
                at
            }
        };
        let g = &self.ring.slice(good)[..];
        if let Some(x) = &mut self.export {
            x.push(&g[d..])?;
        }
        let m = &mut self.meta;
        m.stats.push(&g[d..]);
        for (n, &v) in g.iter().enumerate().skip(d) {
            let v = v as usize;
            if m.histogram.len() <= v {
                m.histogram.resize(v + 1, 0);
            }
            m.histogram[v] += 1;
            if n.is_power_of_two() {
                m.powers.push((n as u64, v as u32));
            }
        }
        m.detector.feed(g);
        m.done = good as u64;
        m.seconds += t.elapsed().as_secs_f64();
        if let Some(h) = self.engine.halted() {
            if !self.grow(h.at as u64)? {
                self.meta.halted = Some(self.halt_message(h));
            }
            return Ok(());
        }
        if self.meta.halted.is_none() {
            self.slide()?;
        }
        Ok(())
    }

    /// Drops the values that fall out of the window, once there are any;
    /// the first time, fixes the prefix and freezes the mask.
    fn slide(&mut self) -> Result<(), WindowError> {
        let m = &self.meta;
        let back = m.sizes.back();
        let Some(new_lo) = m.done.checked_sub(back) else {
            return Ok(());
        };
        let mut prefix = m.prefix;
        if prefix == 0 {
            // The first drop: the prefix must hold every rare position
            // and leave the pairs of the prefix with recent partners.
            let last_rare = self.engine.rare_positions().last().copied().unwrap_or(0);
            prefix = m.sizes.prefix.max(last_rare + 1);
            if new_lo <= prefix {
                return Ok(());
            }
            if !self.code.rules().take_split.is_empty() && self.engine.mask().is_none() {
                // Nothing is dropped yet: the values so far stand.
                self.meta.halted = Some(format!(
                    "{} has no sparse space at {} values; every split pair is needed, and so is every value: go on without --window",
                    self.code, m.done
                ));
                return Ok(());
            }
            let room = m.sizes.room(&self.code);
            if prefix > room {
                // Nothing is dropped yet: every value so far is kept and
                // exact, and the run stops (and checkpoints) here.
                let need = (4 * (last_rare + 1 + self.reach + SHORT as u64 + 64)).div_ceil(3);
                self.meta.halted = Some(format!(
                    "the rare position at heap {last_rare} must stay in the prefix, and the window of {} cannot keep a prefix that long; run again with --window {} or more, or with a full store (without --window)",
                    m.sizes.window,
                    need.next_power_of_two()
                ));
                return Ok(());
            }
        }
        let old_lo = m.lo.max(prefix);
        if new_lo <= old_lo {
            return Ok(());
        }
        self.ring
            .release(old_lo as usize, new_lo as usize)
            .map_err(|error| WindowError::Memory {
                what: "releasing what fell out of it",
                error,
            })?;
        self.meta.prefix = prefix;
        self.meta.lo = new_lo;
        self.meta.detector.forget_before(new_lo);
        self.engine.keep_window(prefix as usize, new_lo as usize);
        Ok(())
    }

    fn halt_message(&self, h: Halt) -> String {
        let (w, p) = (
            self.meta.sizes.window,
            self.meta.prefix.max(self.meta.sizes.prefix),
        );
        let Halt { at, values } = h;
        // The longest prefix `--prefix` takes with this window.
        let most = w / 4 * 3 - 2 * SHORT as u64;
        let remedy = if p < most && self.file.is_some() {
            // Growing was capped (--grow-prefix-to): the window has room.
            format!(
                "resume with a larger prefix (--window {w} --prefix {}, recomputed from G(0)), run again with a larger window (--window {} --prefix {})",
                (2 * p).min(most),
                2 * w,
                2 * p
            )
        } else {
            format!(
                "run again with a larger prefix (--window {} --prefix {}, now {w} and {p})",
                2 * w,
                2 * p
            )
        };
        format!(
            "heap {at} cannot be decided from the values kept: {values} value(s) of its class have no witness among the split pairs with a part below {p} or in the window (a pair in the dropped range might reach them, or, with none, heap {at} is a new rare position); {remedy} or with a full store (without --window)"
        )
    }

    /// Writes the checkpoint (atomically), if the run has a file.
    pub fn checkpoint(&mut self) -> Result<(), WindowError> {
        let m = &mut self.meta;
        if m.done > 0 && m.marks.last().map(|x| x.0) != Some(m.done - 1) {
            let n = m.done - 1;
            let v = self.ring.slice(m.done as usize)[n as usize] as u32;
            m.marks.push((n, v));
        }
        m.engine = if m.prefix > 0 {
            self.engine.window_state()
        } else {
            None
        };
        // The export's frames are durable before the checkpoint says so;
        // once finished, it is no longer the run's.
        m.export = match &mut self.export {
            Some(x) => Some(x.sync()?),
            None => None,
        };
        let Some(f) = &self.file else { return Ok(()) };
        let [(a0, a1), (b0, b1)] = m.kept_ranges();
        let g = self.ring.slice(m.done as usize);
        f.write(
            m,
            &g[a0 as usize..a1 as usize],
            &g[b0 as usize..b1 as usize],
        )?;
        Ok(())
    }

    /// The run's summary, in the same form as a full run's, with the
    /// window's own facts beside it.
    pub fn summary(&mut self) -> WindowSummary {
        let m = &self.meta;
        let mut s = Summary::new(&self.code, &m.stats, m.seconds, 2, self.engine.info());
        let [(_, prefix), _] = m.kept_ranges();
        let g = &self.ring.slice(prefix as usize)[..];
        s.set_period(&self.code, &m.detector, crate::seq::SeqRef::U16(g));
        // Every rare position lies in the kept prefix.
        s.set_rare(&self.engine, crate::seq::SeqRef::U16(g));
        WindowSummary {
            summary: s,
            window: m.sizes.window,
            prefix: m.prefix.max(m.sizes.prefix),
            kept_from: m.lo,
            memory_bytes: self.kept_bytes(),
            periods_searched_up_to: m.sizes.back() - SHORT as u64,
            histogram: m.histogram.clone(),
            powers_of_two: m.powers.clone(),
            checkpoints: m.marks.clone(),
            halted: m.halted.clone(),
            prefix_grown: m.prefix_grown.clone(),
            exported: self.exported.clone(),
        }
    }
}

/// The default checkpoint file of a windowed run of `code`.
pub fn default_path(code: &Code) -> PathBuf {
    PathBuf::from("runs").join(format!("{code}.window"))
}
