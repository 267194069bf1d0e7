//! await: an async block per task, spawned, each JoinHandle awaited in turn.

use std::time::{Duration, Instant};

use contract::{Error, Outcome, Pass};

use crate::{verify, Config};

/// Task i: sleeps, then completes with i.  `wrong` (tests only) is added to
/// what it completes with.
pub async fn task(i: u64, sleep: Duration, wrong: u64) -> u64 {
    if sleep.is_zero() {
        tokio::task::yield_now().await;
    } else {
        tokio::time::sleep(sleep).await;
    }
    i + wrong
}

pub fn run(cfg: &Config, p: &mut Pass, wrong: u64) -> Result<Outcome, Error> {
    let (n, sleep) = (p.n, cfg.sleep);
    p.begin();
    let t0 = p.started().expect("begun");
    cfg.rt.block_on(async move {
        let mut handles = Vec::with_capacity(n as usize);
        for i in 0..n {
            handles.push(tokio::spawn(task(i, sleep, if i + 1 == n { wrong } else { 0 })));
        }
        let started = t0.elapsed();
        let mut results = Vec::with_capacity(n as usize);
        for h in handles {
            results.push(h.await);
        }
        let done = Instant::now();
        verify(results, started, done)
    })
}

pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, 0)
}
