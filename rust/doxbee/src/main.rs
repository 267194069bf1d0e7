//! rust-doxbee: bluebird's benchmark of fake database transactions (seed
//! 003) in Rust.  An upload is a transaction of fake operations, each
//! completing after --delay-ms T on a tokio timer (T = 0: it yields once,
//! tokio::task::yield_now); a pass starts all N uploads at once on tokio's
//! current-thread runtime and joins them (join_all).
//!
//! - sequential shape: blob put and file lookup at once (`join!`; the lookup
//!   misses, so the create branch runs), then version insert, query creation
//!   (synchronous), query execution, file-version insert, file update,
//!   commit, one after another: 8 results an upload;
//! - parallel shape: --queries P file-version inserts at once (`join_all`),
//!   then commit: P + 1 results an upload.
//!
//! Every result is checked before the upload goes on; an upload verifies
//! when it committed once with every result checked.  The line adds commits,
//! checked and ops_per_upload, as the other languages'.  One file a style:
//! `await.rs` (async fn and `join!`/`join_all`), `promise.rs` (the same
//! chain as combinators without async fn: `join`, `and_then`, `join_all`).
//! No callback style: tokio's timers are futures, with no callback API.

#[path = "await.rs"]
mod awaits;
mod promise;

use std::cell::Cell;
use std::time::Duration;

use contract::{Error, Fields, Flag, Outcome, Value, Values, Variant, Workload, PARALLEL};

pub const BACKEND: &str = "tokio.time.sleep";
const MAX_DELAY_MS: u64 = 86_400_000;
const MAX_QUERIES: u64 = 1_000_000;

/// Kinds of fake operation, in the sequential shape's order.
pub const PUT: u64 = 0;
pub const LOOKUP: u64 = 1;
pub const VERSION: u64 = 2;
pub const CREATE: u64 = 3;
pub const EXEC: u64 = 4;
pub const FILE_VERSION: u64 = 5;
pub const UPDATE: u64 = 6;
pub const COMMIT: u64 = 7;
/// Results a sequential upload checks.
pub const STEPS: u64 = 8;
const KIND_NAMES: [&str; 8] = [
    "blob put", "file lookup", "version insert", "query creation", "query execution", "file-version insert",
    "file update", "commit",
];

pub struct Config {
    pub p: Params,
    pub rt: tokio::runtime::Runtime,
}

/// What an upload needs, copied into each upload's task.
#[derive(Clone, Copy)]
pub struct Params {
    pub delay: Duration,
    pub queries: u64,
    /// Tests only: the upload whose commit answers one more than expected
    /// (u64::MAX, none, in the program).
    pub wrong_commit_of: u64,
}

fn check(v: &Values, _: &Fields) -> Result<Config, Error> {
    let ms = contract::ranged("--delay-ms", v.get("--delay-ms"), 0, MAX_DELAY_MS)?;
    let queries = contract::ranged("--queries", v.get("--queries"), 1, MAX_QUERIES)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| Error::Env(format!("cannot start tokio's runtime: {e}")))?;
    Ok(Config { p: Params { delay: Duration::from_millis(ms), queries, wrong_commit_of: u64::MAX }, rt })
}

/// The value operation `kind` (index j) of upload i completes with; the
/// lookup finds nothing (0).
pub fn expected(i: u64, kind: u64, j: u64) -> i64 {
    if kind == LOOKUP {
        return 0;
    }
    ((i * 16 + kind) * (MAX_QUERIES + 1) + j + 1) as i64
}

/// What the fake operation answers (expected, or one more for the tests'
/// wrong commit).
#[inline]
pub fn answer(p: &Params, i: u64, kind: u64, j: u64) -> i64 {
    expected(i, kind, j) + i64::from(kind == COMMIT && i == p.wrong_commit_of)
}

/// The synchronous query creation: its callback runs inside the call.
pub fn create_query(i: u64, cb: impl FnOnce(i64)) {
    cb(expected(i, CREATE, 0))
}

/// One upload's tally.
pub struct Upload {
    pub i: u64,
    pub checked: Cell<u64>,
    pub commits: Cell<u64>,
}

impl Upload {
    pub fn new(i: u64) -> Upload {
        Upload { i, checked: Cell::new(0), commits: Cell::new(0) }
    }

    pub fn verify(&self, kind: u64, j: u64, got: i64) -> Result<(), Error> {
        let want = expected(self.i, kind, j);
        if got != want {
            return Err(Error::failure(
                self.i,
                format!("{} {j} returned {got}, expected {want}", KIND_NAMES[kind as usize]),
            ));
        }
        self.checked.set(self.checked.get() + 1);
        Ok(())
    }
}

/// The pass's outcome from every upload's result, in upload order.
pub fn tally<U: std::borrow::Borrow<Upload>>(cfg: &Config, parallel: bool, uploads: Vec<Result<U, Error>>) -> Result<Outcome, Error> {
    let per = if parallel { cfg.p.queries + 1 } else { STEPS };
    let mut out = Outcome::default();
    let (mut checked, mut commits) = (0u64, 0u64);
    for u in uploads {
        let u = u?;
        let u: &Upload = u.borrow();
        checked += u.checked.get();
        commits += u.commits.get();
        if u.commits.get() != 1 || u.checked.get() != per {
            return Err(Error::failure(
                u.i,
                format!("committed {} times with {} results checked, expected once with {per}", u.commits.get(), u.checked.get()),
            ));
        }
        out.ok += 1;
    }
    out.extra = vec![("commits", Value::U(commits)), ("checked", Value::U(checked)), ("ops_per_upload", Value::U(per))];
    Ok(out)
}

pub fn variants() -> Vec<Variant<Config>> {
    let v = |style, shape, run| Variant { style, shape, mode: PARALLEL, backend: BACKEND, run };
    vec![
        v("await", "sequential", awaits::sequential),
        v("await", "parallel", awaits::parallel),
        v("promise", "sequential", promise::sequential),
        v("promise", "parallel", promise::parallel),
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![
        Flag { name: "--delay-ms", default: "1", arg: "T", about: "every fake operation completes after T ms (0: yields once)" },
        Flag { name: "--queries", default: "25", arg: "P", about: "queries at once per upload in the parallel shape" },
    ]
}

fn main() {
    contract::main(Workload { name: "doxbee", flags: flags(), check, variants: variants() })
}

#[cfg(test)]
mod tests;
