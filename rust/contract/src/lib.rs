//! The program contract of DESIGN section 3 for every Rust workload: the
//! generic flags, the id rule, the untimed warm-up, the timed passes, the
//! lockstep protocol, rusage, the one JSON line and the exit codes.  A
//! workload hands [`main`] its name, its own flags, a check that turns the
//! flags into its configuration, and its variants; its `src/main.rs` is one
//! call, as Go's `cmd/<workload>/main.go` is.
//!
//! In brief, as in C, Go and Node:
//!
//! - Flags: `--iterations N` (>= 1, default 10000), `--concurrency K` (>= 0;
//!   bounded mode turns 0 into [`DEFAULT_BOUND`]), `--warmup N` (>= 0),
//!   `--passes P` (1 to [`MAX_PASSES`]), `--lockstep 0|1`, `--variant NAME`,
//!   `--help`, and the workload's own.  A value follows its flag or is joined
//!   to it by `=`; a number is decimal digits only (no sign, blank or base
//!   prefix; `010` is ten).
//! - Success: exactly one JSON line on stdout, nothing on stderr, exit 0.
//! - Failure: nothing on stdout, one line on stderr (followed by the usage for
//!   a usage error), exit [`EXIT_VERIFY`], [`EXIT_USAGE`] or [`EXIT_ENV`].
//! - Rust's standard library opens /dev/null read-write on a closed fd 0, 1
//!   or 2 before `main` runs, as Go's runtime does, so a read-write /dev/null
//!   on fd 1 is taken for a closed stdout (exit 3 before anything runs), and
//!   it ignores SIGPIPE, so a line that cannot be written is an error the
//!   program reports (exit 3), never a silent death.
//! - Out of memory is not caught: Rust's allocator aborts the process
//!   (SIGABRT, "memory allocation of N bytes failed"), as Go's runtime dies.

use std::fmt::Write as _;
use std::io::{self, BufRead, Read, Write};
use std::time::{Duration, Instant};

mod usage;
pub use usage::{getrusage, Usage};
#[cfg(feature = "pool")]
pub mod pool;

/// Every completion verified.
pub const EXIT_OK: i32 = 0;
/// A wrong completion, a failed operation or a short count.
pub const EXIT_VERIFY: i32 = 1;
/// A bad flag or value, an unknown variant, a stray argument.
pub const EXIT_USAGE: i32 = 2;
/// The environment is wrong: a missing fixture, a closed stdout, ...
pub const EXIT_ENV: i32 = 3;

/// Operations in flight in bounded mode when `--concurrency` is 0; the
/// catalog's suite.json `bound` must equal it.
pub const DEFAULT_BOUND: u64 = 64;
/// N when `--iterations` is not given.
pub const DEFAULT_ITERATIONS: u64 = 10000;
/// The most timed passes one process runs, as C's, Go's and Node's.
pub const MAX_PASSES: u64 = 10000;
/// The longest lockstep command line read; a longer one is refused.
pub const MAX_COMMAND: usize = 64;

/// The language field of every Rust line.
pub const LANG: &str = "rust";
/// The method of every Rust variant: timed inside the program.
pub const IN_PROCESS: &str = "inprocess";

/// One operation in flight.
pub const SEQUENTIAL: &str = "sequential";
/// All N issued at once.
pub const PARALLEL: &str = "parallel";
/// At most K in flight.
pub const BOUNDED: &str = "bounded";

/// The version of the compiler that built the program, the line's `runtime`.
pub const RUNTIME: &str = env!("ASYNCSTYLES_RUSTC_VERSION");

/// What went wrong, and so the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A verification failure: which iteration and what (exit 1).
    Failure { iteration: u64, reason: String },
    /// A bad command line (exit 2, with the usage).
    Usage(String),
    /// The environment is wrong (exit 3).
    Env(String),
}

impl Error {
    /// A failure of iteration `iteration`.
    pub fn failure(iteration: u64, reason: impl Into<String>) -> Error {
        Error::Failure { iteration, reason: reason.into() }
    }

    /// The exit code of this error.
    pub fn code(&self) -> i32 {
        match self {
            Error::Failure { .. } => EXIT_VERIFY,
            Error::Usage(_) => EXIT_USAGE,
            Error::Env(_) => EXIT_ENV,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Failure { iteration, reason } => write!(f, "iteration {iteration}: {reason}"),
            Error::Usage(m) | Error::Env(m) => f.write_str(m),
        }
    }
}

/// A value of the line: the workload's own fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    U(u64),
    I(i64),
    S(String),
}

impl Value {
    fn write(&self, out: &mut String) {
        match self {
            Value::U(v) => write!(out, "{v}").unwrap(),
            Value::I(v) => write!(out, "{v}").unwrap(),
            Value::S(s) => json_string(out, s),
        }
    }
}

/// Writes s as a JSON string.
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A workload's own flag: its name with the dashes, its default (the
/// catalog's value), what it holds and the help's word for its value.
#[derive(Debug, Clone)]
pub struct Flag {
    pub name: &'static str,
    pub default: &'static str,
    pub arg: &'static str,
    pub about: &'static str,
}

/// The workload's flags as given, for its check.
#[derive(Debug, Clone, Default)]
pub struct Values {
    pairs: Vec<(&'static str, String)>,
}

impl Values {
    /// The value of flag `name` (with its dashes); every declared flag has one.
    pub fn get(&self, name: &str) -> &str {
        self.pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("contract: no flag {name}"))
    }

    /// Values of the flags with their defaults, for tests.
    pub fn defaults(flags: &[Flag]) -> Values {
        Values { pairs: flags.iter().map(|f| (f.name, f.default.to_string())).collect() }
    }

    /// Sets one flag, for tests.
    pub fn set(&mut self, name: &'static str, value: &str) {
        match self.pairs.iter_mut().find(|(n, _)| *n == name) {
            Some(p) => p.1 = value.to_string(),
            None => self.pairs.push((name, value.to_string())),
        }
    }
}

/// The fields that identify a variant (DESIGN section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields {
    pub workload: &'static str,
    pub style: &'static str,
    pub shape: &'static str,
    pub mode: &'static str,
    pub backend: &'static str,
}

impl Fields {
    /// What `--variant` takes: style[-shape]-mode (every Rust variant's
    /// method is inprocess, which the name leaves out).
    pub fn name(&self) -> String {
        let mut name = self.style.to_string();
        if !self.shape.is_empty() {
            name.push('-');
            name.push_str(self.shape);
        }
        name.push('-');
        name.push_str(self.mode);
        name
    }

    /// The id without its workload: lang/name@backend.
    pub fn label(&self) -> String {
        format!("{LANG}/{}@{}", self.name(), self.backend)
    }

    /// The id, unique across the catalog: workload/lang/name@backend.
    pub fn id(&self) -> String {
        format!("{}/{}", self.workload, self.label())
    }
}

/// How many operations a run of `mode` keeps in flight, as the line reports
/// it: 1 sequential, 0 (all) parallel, K bounded (the default bound for 0).
pub fn concurrency(mode: &str, k: u64) -> u64 {
    match mode {
        SEQUENTIAL => 1,
        PARALLEL => 0,
        BOUNDED if k == 0 => DEFAULT_BOUND,
        BOUNDED => k,
        _ => panic!("contract: unknown mode {mode:?}"),
    }
}

/// How many of n operations are in flight at once with K = k as
/// [`concurrency`] gives it: all n for 0, else min(k, n).
pub fn in_flight(n: u64, k: u64) -> u64 {
    if k == 0 || k > n {
        n
    } else {
        k
    }
}

/// What one pass verified.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// Completions whose result was checked.
    pub ok: u64,
    /// Bytes the operations moved (0 for a workload without any).
    pub bytes: u64,
    /// The workload's own fields of the line, in the catalog's order.
    pub extra: Vec<(&'static str, Value)>,
    /// When the N-th operation verified: the clock stops there, and what the
    /// variant does after it (totals against a plain computation) is not
    /// timed.  None: when the variant returned.
    pub done: Option<Instant>,
}

/// One pass of a variant, the warm-up or a timed one: N operations, K of
/// them in flight (it matters to bounded variants only).
///
/// The clock: a variant calls [`Pass::begin`] once, right before its first
/// per-operation allocation, as C's `ab_run_begin`, Go's `Pass.Begin` and
/// Node's `pass.begin()`; what it prepares before that is what no operation
/// owns (a table of expected values).  A pass that never began fails.
/// `begin` records what the pass did since it was made: the bytes malloc
/// holds more (glibc's `mallinfo2`, as C reads them; 0 elsewhere) and the
/// minor page faults, the line's `preclock_heap_bytes` and `preclock_faults`.
#[derive(Debug)]
pub struct Pass {
    pub n: u64,
    pub k: u64,
    start: Option<Instant>,
    mark: Mark,
    pre_heap: i64,
    pre_faults: i64,
}

#[derive(Debug, Clone, Copy)]
struct Mark {
    heap: i64,
    faults: i64,
}

fn mark_now() -> Mark {
    Mark { heap: usage::heap_in_use(), faults: usage::minor_faults() }
}

impl Pass {
    /// A pass of n operations with k in flight, marked now.
    pub fn new(n: u64, k: u64) -> Pass {
        Pass { n, k, start: None, mark: mark_now(), pre_heap: 0, pre_faults: 0 }
    }

    /// Starts the clock.  A second call is a bug in the variant: it panics.
    pub fn begin(&mut self) {
        assert!(self.start.is_none(), "contract: Pass::begin called twice");
        let now = mark_now();
        self.pre_heap = (now.heap - self.mark.heap).max(0);
        self.pre_faults = (now.faults - self.mark.faults).max(0);
        self.start = Some(Instant::now());
    }

    /// When the clock started (None before `begin`).
    pub fn started(&self) -> Option<Instant> {
        self.start
    }
}

/// A variant's run: N operations verified, or the first failure.
pub type Run<C> = fn(&C, &mut Pass) -> Result<Outcome, Error>;

/// One way of running the workload.
pub struct Variant<C> {
    pub style: &'static str,
    pub shape: &'static str,
    pub mode: &'static str,
    pub backend: &'static str,
    pub run: Run<C>,
}

/// What a workload hands [`main`].
pub struct Workload<C> {
    /// The workload field, e.g. "readfile"; the program is rust-<name>.
    pub name: &'static str,
    /// Its own flags with the catalog's defaults.
    pub flags: Vec<Flag>,
    /// Turns the flags into the configuration, after they are parsed and
    /// before the warm-up, knowing which variant runs (so that it starts
    /// only the runtime that variant needs): an [`Error::Usage`] for a bad
    /// value, an [`Error::Env`] for a fixture that is not there.
    pub check: fn(&Values, &Fields) -> Result<C, Error>,
    /// Variants in the catalog's order; the first is `--variant`'s default.
    pub variants: Vec<Variant<C>>,
}

impl<C> Workload<C> {
    /// The fields of variant v.
    pub fn fields(&self, v: &Variant<C>) -> Fields {
        Fields { workload: self.name, style: v.style, shape: v.shape, mode: v.mode, backend: v.backend }
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.variants.iter().map(|v| self.fields(v).name()).collect();
        names.sort();
        names.dedup();
        names
    }

    fn prog(&self) -> String {
        format!("rust-{}", self.name)
    }

    /// The usage text: a synopsis, the variants, the exit codes, every flag.
    pub fn usage(&self) -> String {
        let mut own = String::new();
        for f in &self.flags {
            write!(own, " [{} {}]", f.name, f.arg).unwrap();
        }
        let mut out = format!(
            "usage: {} [--variant NAME] [--iterations N] [--concurrency K] [--warmup N] [--passes P] [--lockstep 0|1]{own}\n",
            self.prog()
        );
        writeln!(out, "Runs one Rust {} variant and prints one JSON line with the result.", self.name).unwrap();
        writeln!(out, "variants: {}", self.names().join(" ")).unwrap();
        out.push_str("exit codes: 0 valid, 1 verification failed, 2 usage error, 3 environment error\n");
        writeln!(out, "  --iterations N   operations in a timed pass, N >= 1 (default {DEFAULT_ITERATIONS})").unwrap();
        writeln!(out, "  --concurrency K  operations in flight in bounded mode (0: the default bound, {DEFAULT_BOUND})").unwrap();
        out.push_str("  --warmup N       untimed operations before the timed passes (default 0)\n");
        writeln!(out, "  --passes P       timed passes of N after the warm-up, 1 to {MAX_PASSES} (default 1)").unwrap();
        out.push_str("  --lockstep 0|1   1: a timed pass per 'pass' on stdin, 'end' to finish (default 0)\n");
        if let Some(v) = self.variants.first() {
            writeln!(out, "  --variant NAME   which variant to run (default {})", self.fields(v).name()).unwrap();
        }
        for f in &self.flags {
            writeln!(out, "  {} {}  {} (default {:?})", f.name, f.arg, f.about, f.default).unwrap();
        }
        out
    }
}

/// The generic flags' values, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub iterations: u64,
    pub concurrency: u64,
    pub warmup: u64,
    pub passes: u64,
    pub lockstep: u64,
    pub variant: Option<String>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Help,
    Run(Settings, Values),
}

fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads a count flag's text: decimal digits only, at least min.
pub fn count(name: &str, text: &str, min: u64) -> Result<u64, Error> {
    match digits(text) {
        Some(n) if n >= min => Ok(n),
        _ => Err(Error::Usage(format!(
            "{name} must be {}, got {text:?}",
            if min == 0 { "a non-negative integer" } else { "a positive integer" }
        ))),
    }
}

/// Reads a flag's text as decimal digits from lo to hi, in the words the
/// other languages share: "--passes must be an integer from 1 to 10000".
pub fn ranged(name: &str, text: &str, lo: u64, hi: u64) -> Result<u64, Error> {
    match digits(text) {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(Error::Usage(format!("{name} must be an integer from {lo} to {hi}, got {text:?}"))),
    }
}

const GENERIC: [&str; 6] = ["--iterations", "--concurrency", "--warmup", "--passes", "--lockstep", "--variant"];

/// Parses the command line (without the program's name) against the
/// generic flags and the workload's own.
pub fn parse(args: &[String], own: &[Flag]) -> Result<Command, Error> {
    let mut texts: Vec<(&str, String)> = Vec::new();
    let mut values = Values::defaults(own);
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--help" || arg == "-h" {
            return Ok(Command::Help);
        }
        if !arg.starts_with("--") || arg.len() == 2 {
            return Err(Error::Usage(format!("unexpected argument {arg:?}")));
        }
        let (name, joined) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg, None),
        };
        let generic = GENERIC.iter().find(|g| **g == name).copied();
        let flag = own.iter().find(|f| f.name == name);
        if generic.is_none() && flag.is_none() {
            return Err(Error::Usage(format!("unknown flag {name:?}")));
        }
        let value = match joined {
            Some(v) => v,
            None if i < args.len() => {
                i += 1;
                args[i - 1].clone()
            }
            None => return Err(Error::Usage(format!("{name} needs a value"))),
        };
        match (generic, flag) {
            (Some(g), _) => texts.push((g, value)),
            (None, Some(f)) => values.set(f.name, &value),
            (None, None) => unreachable!(),
        }
    }
    let text = |name: &str, default: &str| -> String {
        texts.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).unwrap_or_else(|| default.to_string())
    };
    let s = Settings {
        iterations: count("--iterations", &text("--iterations", &DEFAULT_ITERATIONS.to_string()), 1)?,
        concurrency: count("--concurrency", &text("--concurrency", "0"), 0)?,
        warmup: count("--warmup", &text("--warmup", "0"), 0)?,
        passes: ranged("--passes", &text("--passes", "1"), 1, MAX_PASSES)?,
        lockstep: ranged("--lockstep", &text("--lockstep", "0"), 0, 1)?,
        variant: texts.iter().rev().find(|(n, _)| *n == "--variant").map(|(_, v)| v.clone()),
    };
    if s.lockstep == 1 && s.passes != 1 {
        return Err(Error::Usage("--lockstep runs one pass a command: --passes must be 1".into()));
    }
    Ok(Command::Run(s, values))
}

/// The process's usage around one timed pass, read by the contract (a test
/// gives other readings).
pub type ReadUsage = fn() -> Usage;

/// One timed pass: its outcome, its time and what it did before its clock.
struct Timed {
    outcome: Outcome,
    elapsed_ns: u64,
    pre_heap: i64,
    pre_faults: i64,
    before: Usage,
    after: Usage,
}

fn run_pass<C>(cfg: &C, v: &Variant<C>, n: u64, k: u64) -> (Result<Outcome, Error>, Pass, Duration) {
    let mut p = Pass::new(n, k);
    let res = (v.run)(cfg, &mut p);
    let end = Instant::now();
    let Some(start) = p.start else {
        let res = res.and_then(|o| {
            Err(Error::failure(o.ok, "the variant never started its clock (Pass::begin)"))
        });
        return (res, p, Duration::ZERO);
    };
    let stop = match &res {
        Ok(Outcome { done: Some(d), .. }) if *d > start => *d,
        _ => end,
    };
    (res, p, stop - start)
}

/// Runs one timed pass and verifies it: the pass, or the error's line
/// (naming `which`) and its exit code.
fn timed_pass<C>(cfg: &C, v: &Variant<C>, s: &Settings, k: u64, which: &str, read: ReadUsage) -> Result<Timed, (String, i32)> {
    let before = read();
    let (res, p, elapsed) = run_pass(cfg, v, s.iterations, k);
    let after = read();
    let outcome = res.map_err(|e| (format!("{which} {e}"), if e.code() == EXIT_ENV { EXIT_ENV } else { EXIT_VERIFY }))?;
    if outcome.ok != s.iterations {
        return Err((format!("{which} verified {} of {} operations", outcome.ok, s.iterations), EXIT_VERIFY));
    }
    Ok(Timed {
        outcome,
        elapsed_ns: (elapsed.as_nanos() as u64).max(1),
        pre_heap: p.pre_heap,
        pre_faults: p.pre_faults,
        before,
        after,
    })
}

/// The result line of t, in the contract's field order, without a newline.
fn line(f: &Fields, s: &Settings, k: u64, t: &Timed, warmup_ns: u64, pre: (i64, i64), passes: &[u64]) -> String {
    let mut out = String::with_capacity(512);
    out.push('{');
    let field = |out: &mut String, name: &str, v: Value| {
        if out.len() > 1 {
            out.push(',');
        }
        json_string(out, name);
        out.push(':');
        v.write(out);
    };
    let st = |x: &str| Value::S(x.to_string());
    field(&mut out, "workload", st(f.workload));
    field(&mut out, "lang", st(LANG));
    field(&mut out, "style", st(f.style));
    field(&mut out, "shape", st(f.shape));
    field(&mut out, "mode", st(f.mode));
    field(&mut out, "method", st(IN_PROCESS));
    field(&mut out, "backend", st(f.backend));
    field(&mut out, "variant", Value::S(f.id()));
    field(&mut out, "iterations", Value::U(s.iterations));
    let conc = if k > s.iterations { s.iterations } else { k };
    field(&mut out, "concurrency", Value::U(conc));
    field(&mut out, "ok", Value::U(t.outcome.ok));
    field(&mut out, "bytes", Value::U(t.outcome.bytes));
    field(&mut out, "elapsed_ns", Value::U(passes[0]));
    field(&mut out, "user_us", Value::I((t.after.user_us - t.before.user_us).max(0)));
    field(&mut out, "sys_us", Value::I((t.after.sys_us - t.before.sys_us).max(0)));
    // A peak is at least the idle figure read before it (DESIGN section 3).
    field(&mut out, "peak_rss_kb", Value::I(t.after.peak_rss_kb.max(t.before.peak_rss_kb)));
    field(&mut out, "idle_rss_kb", Value::I(t.before.peak_rss_kb));
    field(&mut out, "runtime", st(RUNTIME));
    for (name, v) in &t.outcome.extra {
        field(&mut out, name, v.clone());
    }
    field(&mut out, "preclock_heap_bytes", Value::I(pre.0));
    field(&mut out, "preclock_faults", Value::I(pre.1));
    field(&mut out, "warmup_ns", Value::U(warmup_ns));
    let mut list = String::from("[");
    for (i, p) in passes.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        write!(list, "{p}").unwrap();
    }
    list.push(']');
    out.push_str(",\"passes_elapsed_ns\":");
    out.push_str(&list);
    out.push('}');
    out
}

/// Where the program writes, and what it reads in lockstep.
pub struct Io<'a> {
    pub stdin: &'a mut dyn BufRead,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// stdout was closed when the program started.
    pub stdout_closed: bool,
    pub read_usage: ReadUsage,
}

fn emit(io: &mut Io, prog: &str, what: &str, text: &str) -> i32 {
    if io.stdout_closed {
        let _ = writeln!(io.stderr, "{prog}: cannot write the {what} to stdout: stdout is closed");
        return EXIT_ENV;
    }
    match io.stdout.write_all(text.as_bytes()).and_then(|_| io.stdout.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let _ = writeln!(io.stderr, "{prog}: cannot write the {what} to stdout: {e}");
            EXIT_ENV
        }
    }
}

/// Reads one lockstep command: Ok(None) at the end of stdin, Err for a line
/// longer than [`MAX_COMMAND`] bytes.
fn command(stdin: &mut dyn BufRead) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    let mut limited = stdin.take(MAX_COMMAND as u64 + 1);
    match limited.read_until(b'\n', &mut buf) {
        Ok(0) => return Ok(None),
        Ok(_) => {}
        Err(e) => return Err(format!("stdin: {e}")),
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_COMMAND {
        return Err(format!("a line longer than any command, {}...", String::from_utf8_lossy(&buf[..16])));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

/// The program on a command line (without its name) and its streams: the
/// exit code.
pub fn run_io<C>(w: &Workload<C>, args: &[String], io: &mut Io) -> i32 {
    let prog = w.prog();
    let fail_usage = |io: &mut Io, msg: &str| {
        let _ = writeln!(io.stderr, "{prog}: {msg}");
        let _ = io.stderr.write_all(w.usage().as_bytes());
        EXIT_USAGE
    };
    let (s, values) = match parse(args, &w.flags) {
        Ok(Command::Help) => return emit(io, &prog, "usage", &w.usage()),
        Ok(Command::Run(s, v)) => (s, v),
        Err(e) => return fail_usage(io, &e.to_string()),
    };
    let v = match &s.variant {
        None => w.variants.first().expect("a workload without variants"),
        Some(name) => match w.variants.iter().find(|v| w.fields(v).name() == *name) {
            Some(v) => v,
            None => {
                return fail_usage(io, &format!("unknown variant {name:?} (choose one of {})", w.names().join(" ")))
            }
        },
    };
    if io.stdout_closed {
        let _ = writeln!(io.stderr, "{prog}: stdout is closed: the result line cannot be written");
        return EXIT_ENV;
    }
    if let Err(e) = usage::check_descriptors(3) {
        let _ = writeln!(io.stderr, "{prog}: {e}");
        return EXIT_ENV;
    }
    let f = w.fields(v);
    let cfg = match (w.check)(&values, &f) {
        Ok(c) => c,
        Err(Error::Usage(m)) => return fail_usage(io, &m),
        Err(e) => {
            let _ = writeln!(io.stderr, "{prog}: {e}");
            return if e.code() == EXIT_VERIFY { EXIT_VERIFY } else { EXIT_ENV };
        }
    };
    let id = f.id();
    let k = concurrency(v.mode, s.concurrency);
    let mut warmup_ns = 0u64;
    if s.warmup > 0 {
        let t0 = Instant::now();
        let (res, _, _) = run_pass(&cfg, v, s.warmup, k);
        warmup_ns = (t0.elapsed().as_nanos() as u64).max(1);
        let res = res.and_then(|o| {
            if o.ok == s.warmup {
                Ok(o)
            } else {
                Err(Error::failure(o.ok, format!("verified {} of {} operations", o.ok, s.warmup)))
            }
        });
        if let Err(e) = res {
            let _ = writeln!(io.stderr, "{prog}: {id} warm-up {e}");
            return if e.code() == EXIT_ENV { EXIT_ENV } else { EXIT_VERIFY };
        }
    }
    if s.lockstep == 1 {
        return lockstep(&cfg, v, &f, &s, k, warmup_ns, io, &prog);
    }
    let mut first: Option<Timed> = None;
    let mut passes = Vec::with_capacity(s.passes as usize);
    let (mut pre_heap, mut pre_faults) = (0i64, 0i64);
    for i in 0..s.passes {
        let which = if i == 0 { id.clone() } else { format!("{id} timed pass {} of {}:", i + 1, s.passes) };
        match timed_pass(&cfg, v, &s, k, &which, io.read_usage) {
            Ok(t) => {
                passes.push(t.elapsed_ns);
                pre_heap = pre_heap.max(t.pre_heap);
                pre_faults = pre_faults.max(t.pre_faults);
                if first.is_none() {
                    first = Some(t);
                }
            }
            Err((msg, code)) => {
                let _ = writeln!(io.stderr, "{prog}: {msg}");
                return code;
            }
        }
    }
    let t = first.expect("at least one pass");
    let text = line(&f, &s, k, &t, warmup_ns, (pre_heap, pre_faults), &passes) + "\n";
    emit(io, &prog, "result", &text)
}

#[allow(clippy::too_many_arguments)]
fn lockstep<C>(cfg: &C, v: &Variant<C>, f: &Fields, s: &Settings, k: u64, warmup_ns: u64, io: &mut Io, prog: &str) -> i32 {
    let ready = format!("{{\"lockstep\":\"ready\",\"warmup_ns\":{warmup_ns}}}\n");
    let code = emit(io, prog, "ready line", &ready);
    if code != EXIT_OK {
        return code;
    }
    let mut passes = 0u64;
    loop {
        match command(io.stdin) {
            Ok(None) => return EXIT_OK,
            Ok(Some(cmd)) if cmd == "pass" => {
                let which = format!("{} lockstep pass {}:", f.id(), passes + 1);
                match timed_pass(cfg, v, s, k, &which, io.read_usage) {
                    Ok(t) => {
                        passes += 1;
                        let text = line(f, s, k, &t, warmup_ns, (t.pre_heap, t.pre_faults), &[t.elapsed_ns]) + "\n";
                        let code = emit(io, prog, "result", &text);
                        if code != EXIT_OK {
                            return code;
                        }
                    }
                    Err((msg, code)) => {
                        let _ = writeln!(io.stderr, "{prog}: {msg}");
                        return code;
                    }
                }
            }
            Ok(Some(cmd)) if cmd == "end" => {
                let u = (io.read_usage)();
                let end = format!(
                    "{{\"lockstep\":\"end\",\"passes\":{passes},\"user_us\":{},\"sys_us\":{},\"peak_rss_kb\":{}}}\n",
                    u.user_us, u.sys_us, u.peak_rss_kb
                );
                return emit(io, prog, "end line", &end);
            }
            Ok(Some(cmd)) => {
                let _ = writeln!(io.stderr, "{prog}: lockstep: unknown command {cmd:?} (pass or end)");
                return EXIT_USAGE;
            }
            Err(why) => {
                let _ = writeln!(io.stderr, "{prog}: lockstep: unknown command ({why}) (pass or end)");
                return EXIT_USAGE;
            }
        }
    }
}

/// Runs the program of workload w on the process's command line and exits
/// with the contract's code.
pub fn main<C>(w: Workload<C>) -> ! {
    let args: Vec<String> = match std::env::args_os().skip(1).map(|a| a.into_string()).collect() {
        Ok(a) => a,
        Err(bad) => {
            eprintln!("rust-{}: argument {bad:?} is not UTF-8", w.name);
            std::process::exit(EXIT_USAGE);
        }
    };
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    // fd 1 itself, not io::stdout(): std's Stdout takes EBADF for success, so
    // a line written to a read-only /dev/null would vanish with exit 0.
    // SAFETY: fd 1 is open (std reopens a closed one before main) and is
    // never closed: the File is not dropped.
    let mut stdout = std::mem::ManuallyDrop::new(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(1) });
    let mut stderr = io::stderr().lock();
    let mut io = Io {
        stdin: &mut stdin,
        stdout: &mut *stdout,
        stderr: &mut stderr,
        stdout_closed: usage::stdout_closed(),
        read_usage: getrusage,
    };
    let code = run_io(&w, &args, &mut io);
    std::process::exit(code)
}

/// Up to [`QUOTE_MAX`] bytes of b for a one-line failure message, in the C
/// programs' format: \n, \t, \r and \\ escaped, other control bytes and
/// bytes above 0x7e as \xNN, and "..." when b is longer.
pub fn quote(b: &[u8]) -> String {
    let mut out = String::new();
    for &c in b.iter().take(QUOTE_MAX) {
        match c {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\\' => out.push_str("\\\\"),
            c if !(0x20..=0x7e).contains(&c) => write!(out, "\\x{c:02x}").unwrap(),
            c => out.push(c as char),
        }
    }
    if b.len() > QUOTE_MAX {
        out.push_str("...");
    }
    out
}

/// How many bytes of a value [`quote`] shows, as C's harness does.
pub const QUOTE_MAX: usize = 40;

/// Checks that path, the value of a workload's flag, is a regular file this
/// process can read, before anything is timed: an [`Error::Env`] naming
/// what to fix otherwise.
pub fn check_fixture(path: &str, flag: &str) -> Result<(), Error> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::Env(format!("fixture {path} is missing: run from the project root or pass {flag} PATH")))
        }
        Err(e) => return Err(Error::Env(format!("fixture {path} cannot be examined: {e}"))),
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(Error::Env(format!("fixture {path} is a directory: pass {flag} with a regular file")));
    }
    if !ft.is_file() {
        let kind = if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() || ft.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(Error::Env(format!("fixture {path} is {kind}; {flag} must name a regular file")));
    }
    std::fs::File::open(path)
        .map(|_| ())
        .map_err(|e| Error::Env(format!("fixture {path} is unreadable: {e} (fix its permissions)")))
}

#[cfg(test)]
mod tests;
