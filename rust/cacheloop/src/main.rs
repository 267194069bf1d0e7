//! rust-cacheloop: seed 002's workload in Rust.  load(name) returns a file's
//! content from a cache; the first load of a pass misses and reads the file,
//! every other load hits.  A pass is N sequential loads summing the lengths;
//! it is valid when hits = N - 1, misses = 1 and the sum = N x the file's
//! length.  One file a style:
//!
//! - `sync.rs`: load is a plain function (the miss: std::fs::read);
//! - `await.rs`: load is an async fn on tokio's current-thread runtime; a hit
//!   returns without suspending, and an await of a future that is ready at
//!   its first poll goes on at once: no queue, no allocation, so a hit costs
//!   about what the plain call does (the case Rust's async makes free); the
//!   miss awaits tokio::fs::read on the blocking pool;
//! - `promise.rs`: load returns a future built without async fn: a ready
//!   future on a hit, tokio::fs::read's future mapped into the cache on the
//!   miss (futures' Either of the two), the loads chained by a stream's then;
//! - `fiber.rs`: one corosensei coroutine runs the plain loop; a hit returns
//!   directly and only the miss suspends it: the coroutine yields, the
//!   driver reads on tokio's blocking pool and resumes it with the data
//!   (node-fibers' semantics, as C's fiber).
//!
//! No callback style: a Rust load taking a callback would call it at once on
//! a hit (the sync style with one more indirect call), and tokio offers no
//! callback for the miss to hand it to.

#[path = "await.rs"]
mod awaits;
mod cache;
mod fiber;
mod promise;
mod sync;

use contract::{Error, Fields, Flag, Values, Variant, Workload, SEQUENTIAL};

/// What the sync style's miss reads with, and the async styles'.
pub const STD: &str = "std.fs.read";
pub const POOL: &str = "tokio.fs.read.pool";

/// The file every load returns and its length, and the async styles' runtime.
pub struct Config {
    pub file: String,
    pub size: u64,
    pub rt: Option<tokio::runtime::Runtime>,
}

impl Config {
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.rt.as_ref().expect("an async variant's runtime, started by check")
    }
}

fn check(v: &Values, f: &Fields) -> Result<Config, Error> {
    let file = v.get("--file");
    if file.is_empty() {
        return Err(Error::Usage("--file must name the file to cache".into()));
    }
    contract::check_fixture(file, "--file")?;
    let size = std::fs::metadata(file).map_err(|e| Error::Env(format!("fixture {file} cannot be examined: {e}")))?.len();
    if size == 0 {
        return Err(Error::Env(format!("fixture {file} is empty; --file must name a file with content to cache")));
    }
    let rt = if f.backend == POOL { Some(contract::pool::runtime_with_pool()?) } else { None };
    Ok(Config { file: file.to_string(), size, rt })
}

pub fn variants() -> Vec<Variant<Config>> {
    let v = |style, backend, run| Variant { style, shape: "", mode: SEQUENTIAL, backend, run };
    vec![
        v("sync", STD, sync::sequential),
        v("await", POOL, awaits::sequential),
        v("promise", POOL, promise::sequential),
        v("fiber", POOL, fiber::sequential),
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![Flag { name: "--file", default: "fixtures/text.txt", arg: "PATH", about: "the file every load returns (cached after the first load)" }]
}

fn main() {
    contract::main(Workload { name: "cacheloop", flags: flags(), check, variants: variants() })
}

#[cfg(test)]
mod tests;
