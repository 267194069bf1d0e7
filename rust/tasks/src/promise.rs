//! promise: the task as combinators (sleep, then map to its number),
//! spawned, the handles joined with join_all.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::future::{self, Either, FutureExt};

use contract::{Error, Outcome, Pass};

use crate::{verify, Config};

/// Task i as a combinator future; `wrong` (tests only) is added to its number.
pub fn task(i: u64, sleep: Duration, wrong: u64) -> impl Future<Output = u64> + Send {
    let wait = if sleep.is_zero() {
        Either::Left(tokio::task::yield_now())
    } else {
        Either::Right(tokio::time::sleep(sleep))
    };
    wait.map(move |()| i + wrong)
}

pub fn run(cfg: &Config, p: &mut Pass, wrong: u64) -> Result<Outcome, Error> {
    let (n, sleep) = (p.n, cfg.sleep);
    p.begin();
    let t0 = p.started().expect("begun");
    let handles: Vec<_> = cfg.rt.block_on(future::lazy(|_| {
        (0..n).map(|i| tokio::spawn(task(i, sleep, if i + 1 == n { wrong } else { 0 }))).collect()
    }));
    let started = t0.elapsed();
    cfg.rt.block_on(future::join_all(handles).map(move |results| verify(results, started, Instant::now())))
}

pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, 0)
}
