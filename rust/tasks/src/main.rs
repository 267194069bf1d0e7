//! rust-tasks: N tasks started at once on tokio's current-thread runtime,
//! each suspended on a tokio sleep of --sleep-ms and then completing with
//! its own number; every task's number is checked after the join.  The line
//! adds start_ns, from the clock's start until the last task was spawned.
//! Memory per suspended task is the peak resident set above the idle one
//! over N (the runner's figure).  One file a style:
//!
//! - `await.rs`: an async block per task (`sleep(T).await`, then its
//!   number), spawned with tokio::spawn, joined by awaiting each JoinHandle;
//! - `promise.rs`: the same task as combinators, `sleep(T).map(..)`,
//!   spawned, joined with join_all.
//!
//! No callback style: tokio's timers are futures, with no callback API to
//! hand a task's continuation to.  --sleep-ms 0 yields once
//! (tokio::task::yield_now) instead of sleeping.

#[path = "await.rs"]
mod awaits;
mod promise;

use std::time::{Duration, Instant};

use contract::{Error, Fields, Flag, Outcome, Value, Values, Variant, Workload, PARALLEL};

pub const BACKEND: &str = "tokio.time.sleep";
const MAX_SLEEP_MS: u64 = 86_400_000;

pub struct Config {
    pub sleep: Duration,
    pub rt: tokio::runtime::Runtime,
}

fn check(v: &Values, _: &Fields) -> Result<Config, Error> {
    let ms = contract::ranged("--sleep-ms", v.get("--sleep-ms"), 0, MAX_SLEEP_MS)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| Error::Env(format!("cannot start tokio's runtime: {e}")))?;
    Ok(Config { sleep: Duration::from_millis(ms), rt })
}

/// The join's results in spawn order: task i must complete with i.
pub fn verify(results: Vec<Result<u64, tokio::task::JoinError>>, started: Duration, done: Instant) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    for (i, r) in results.into_iter().enumerate() {
        let i = i as u64;
        match r {
            Ok(got) if got == i => out.ok += 1,
            Ok(got) => return Err(Error::failure(i, format!("the task completed with {got}, expected {i}"))),
            Err(e) => return Err(Error::failure(i, format!("the task failed: {e}"))),
        }
    }
    out.done = Some(done);
    out.extra = vec![("start_ns", Value::U(started.as_nanos() as u64))];
    Ok(out)
}

pub fn variants() -> Vec<Variant<Config>> {
    vec![
        Variant { style: "await", shape: "", mode: PARALLEL, backend: BACKEND, run: awaits::parallel },
        Variant { style: "promise", shape: "", mode: PARALLEL, backend: BACKEND, run: promise::parallel },
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![Flag { name: "--sleep-ms", default: "1000", arg: "T", about: "every task sleeps T ms (0: yields once)" }]
}

fn main() {
    contract::main(Workload { name: "tasks", flags: flags(), check, variants: variants() })
}

#[cfg(test)]
mod tests;
