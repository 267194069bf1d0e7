//! rust-readfile: read one small file N times and check every read against
//! the expected text (seed 000).  One file a style:
//!
//! - `sync.rs`: `std::fs::read` in a loop (open, statx, read, close: blocking
//!   system calls on the program's one thread), the floor;
//! - `await.rs`: async fn awaiting `tokio::fs::read` on tokio's
//!   current-thread runtime, sequentially, a spawned task per read
//!   (parallel), or K spawned tasks that take the next read in turn
//!   (bounded);
//! - `promise.rs`: combinators without async fn: a stream's `then`
//!   (sequential), `join_all` (parallel), `buffer_unordered(K)` (bounded).
//!
//! `tokio::fs::read` does not read asynchronously: it runs `std::fs::read` on
//! tokio's blocking pool (`spawn_blocking`: up to 512 threads by default,
//! started on demand) and wakes the awaiting task when the thread is done,
//! as libuv's threadpool does for Node's fs.readFile; the backend is named
//! `tokio.fs.read.pool` for that.  The pool's first thread is started before
//! the warm-up (one `tokio::fs::metadata` through it), as C and Node start
//! libuv's: runtime start stays outside the clock.
//!
//! No callback style: tokio has no callback API for files, and a callback
//! made of `spawn_blocking` plus a channel would be what the await style
//! already does under its name.

#[path = "await.rs"]
mod awaits;
mod promise;
mod sync;

use contract::{Error, Fields, Flag, Values, Variant, Workload, BOUNDED, PARALLEL, SEQUENTIAL};

/// Every read's file and its exact expected content.
pub struct Config {
    pub file: String,
    pub expect: Vec<u8>,
    pub rt: Option<tokio::runtime::Runtime>,
}

/// What sync reads with.
pub const STD: &str = "std.fs.read";
/// What the async styles read with: std::fs::read on tokio's blocking pool.
pub const POOL: &str = "tokio.fs.read.pool";

impl Config {
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.rt.as_ref().expect("an async variant's runtime, started by check")
    }
}

fn check(v: &Values, f: &Fields) -> Result<Config, Error> {
    let file = v.get("--file");
    if file.is_empty() {
        return Err(Error::Usage("--file must name the fixture".into()));
    }
    contract::check_fixture(file, "--file")?;
    let rt = if f.backend == POOL { Some(contract::pool::runtime_with_pool()?) } else { None };
    Ok(Config { file: file.to_string(), expect: v.get("--expect").as_bytes().to_vec(), rt })
}

/// Checks read i: no error, exactly the expected bytes; the bytes it moved.
#[inline]
pub fn verify(i: u64, got: std::io::Result<Vec<u8>>, expect: &[u8]) -> Result<u64, Error> {
    match got {
        Err(e) => Err(Error::failure(i, format!("read failed: {e}"))),
        Ok(data) if data != expect => Err(Error::failure(
            i,
            format!(
                "read {} bytes '{}', expected {} bytes '{}'",
                data.len(),
                contract::quote(&data),
                expect.len(),
                contract::quote(expect)
            ),
        )),
        Ok(data) => Ok(data.len() as u64),
    }
}

pub fn variants() -> Vec<Variant<Config>> {
    let v = |style, mode, backend, run| Variant { style, shape: "", mode, backend, run };
    vec![
        v("sync", SEQUENTIAL, STD, sync::sequential),
        v("await", SEQUENTIAL, POOL, awaits::sequential),
        v("await", PARALLEL, POOL, awaits::parallel),
        v("await", BOUNDED, POOL, awaits::bounded),
        v("promise", SEQUENTIAL, POOL, promise::sequential),
        v("promise", PARALLEL, POOL, promise::parallel),
        v("promise", BOUNDED, POOL, promise::bounded),
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![
        Flag { name: "--file", default: "fixtures/text.txt", arg: "PATH", about: "the fixture every operation reads" },
        Flag { name: "--expect", default: "Hello, world", arg: "TEXT", about: "its exact content; every read is compared with it" },
    ]
}

fn main() {
    contract::main(Workload { name: "readfile", flags: flags(), check, variants: variants() })
}

#[cfg(test)]
mod tests;
