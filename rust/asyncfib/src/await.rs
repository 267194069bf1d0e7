//! await: async fn on tokio's current-thread runtime (stackless state
//! machines).  A recursive call is a boxed future (Box::pin: an async fn
//! cannot hold its own state machine inline), awaited child after child;
//! the top-level call is awaited inline in the pass's future.  Nothing is
//! pending, so no await suspends: Rust's await polls the child at once and
//! goes on when it is ready, without a turn of the runtime's queue.

use std::cell::Cell;

use contract::{Error, Outcome, Pass};

use crate::check::{fib_loop, Check};
use crate::Config;

async fn fib_recursive(n: u32, calls: &Cell<u64>) -> u64 {
    calls.set(calls.get() + 1);
    if n <= 1 {
        return 1;
    }
    Box::pin(fib_recursive(n - 1, calls)).await + Box::pin(fib_recursive(n - 2, calls)).await
}

async fn fib_iterative(n: u32, calls: &Cell<u64>) -> u64 {
    calls.set(calls.get() + 1);
    fib_loop(n)
}

pub fn recursive(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Check::new(cfg, p, true);
    p.begin();
    cfg.runtime().block_on(async {
        for i in 0..c.total {
            let got = fib_recursive(c.arg(i), &c.calls).await;
            c.check(i, got)?;
        }
        Ok::<_, Error>(())
    })?;
    c.finish()
}

pub fn iterative(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Check::new(cfg, p, false);
    p.begin();
    cfg.runtime().block_on(async {
        for i in 0..c.total {
            let got = fib_iterative(c.arg(i), &c.calls).await;
            c.check(i, got)?;
        }
        Ok::<_, Error>(())
    })?;
    c.finish()
}
