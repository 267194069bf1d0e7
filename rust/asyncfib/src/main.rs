//! rust-asyncfib: seed 004's workload in Rust.  An iteration is one
//! repetition of the top-level calls fib(0), ..., fib(M-1), where
//! fib(n) = fib(n-1) + fib(n-2) and fib(0) = fib(1) = 1, recursively (M = --max-recursive) or
//! with a loop (M = --max-iterative).  Every result is checked against a table
//! made before the clock, and the pass's calls and the sum of its results
//! (the line's `calls` and `checksum`) against the plain computation's, after
//! the clock stopped at the N-th repetition's check.  One file a style:
//!
//! - `sync.rs`: plain calls, the floor;
//! - `await.rs`: async fn on tokio's current-thread runtime, each recursive
//!   call a boxed future (`Box::pin`), awaited one child after the other;
//! - `promise.rs`: futures built from combinators without async fn (`join`
//!   of both children, then `map` to their sum, boxed), the repetitions
//!   chained by a stream's `then`;
//! - `fiber.rs`: the plain calls on one corosensei coroutine: nothing is
//!   pending, so nothing suspends.
//!
//! No callback style: a Rust callback here would be a plain function taking
//! a closure and calling it at once, the sync style with one more indirect
//! call; nothing in Rust's ecosystem writes fibonacci that way.

#[path = "await.rs"]
mod awaits;
mod check;
mod fiber;
mod promise;
mod sync;

use contract::{Error, Fields, Flag, Values, Variant, Workload, SEQUENTIAL};

/// The bounds of M, as the catalog and the other languages have them.
pub const BOUND_RECURSIVE: u64 = 40;
pub const BOUND_ITERATIVE: u64 = 78;

/// The workload's flags, the expected values, and the runtime of the async
/// styles (started before the warm-up: runtime start is outside the clock).
pub struct Config {
    pub max_recursive: u32,
    pub max_iterative: u32,
    /// fib(0..) as the plain computation gives it, long enough for both M.
    pub table: Vec<u64>,
    pub rt: Option<tokio::runtime::Runtime>,
}

impl Config {
    /// A configuration of the given M, without a runtime when `rt` is false.
    pub fn new(max_recursive: u32, max_iterative: u32, rt: bool) -> Config {
        let len = max_recursive.max(max_iterative) as usize + 2;
        let mut table = vec![1u64; len];
        for k in 2..len {
            table[k] = table[k - 1] + table[k - 2];
        }
        let rt = rt.then(|| tokio::runtime::Builder::new_current_thread().build().expect("a tokio runtime"));
        Config { max_recursive, max_iterative, table, rt }
    }

    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.rt.as_ref().expect("an async variant's runtime, started by check")
    }
}

fn check(v: &Values, f: &Fields) -> Result<Config, Error> {
    let mr = contract::ranged("--max-recursive", v.get("--max-recursive"), 1, BOUND_RECURSIVE)?;
    let mi = contract::ranged("--max-iterative", v.get("--max-iterative"), 1, BOUND_ITERATIVE)?;
    Ok(Config::new(mr as u32, mi as u32, matches!(f.style, "await" | "promise")))
}

pub fn variants() -> Vec<Variant<Config>> {
    let v = |style, shape, run| Variant { style, shape, mode: SEQUENTIAL, backend: "none", run };
    vec![
        v("sync", "recursive", sync::recursive),
        v("sync", "iterative", sync::iterative),
        v("await", "recursive", awaits::recursive),
        v("await", "iterative", awaits::iterative),
        v("promise", "recursive", promise::recursive),
        v("promise", "iterative", promise::iterative),
        v("fiber", "recursive", fiber::recursive),
        v("fiber", "iterative", fiber::iterative),
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![
        Flag { name: "--max-recursive", default: "10", arg: "M", about: "recursive shape: top-level calls are fib(0..M-1), 1 <= M <= 40" },
        Flag { name: "--max-iterative", default: "10", arg: "M", about: "iterative shape: top-level calls are fib(0..M-1), 1 <= M <= 78" },
    ]
}

fn main() {
    contract::main(Workload { name: "asyncfib", flags: flags(), check, variants: variants() })
}

#[cfg(test)]
mod tests;
