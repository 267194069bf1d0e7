//! promise: futures from combinators, no async fn or block.  A recursive
//! call is `join` of both children's futures, then `map` to their sum, boxed
//! (the type of a recursive combinator is infinite otherwise): Promise.all
//! then a sum, as Node's promise-recursive.  The iterative call is the loop
//! in a `lazy` future (run when polled, as `new Promise` runs its executor).
//! The pass's top-level calls are chained by a stream's `then` and checked
//! by `try_for_each`, on tokio's current-thread runtime.

use std::cell::Cell;
use std::future::Future;

use futures::future::{self, FutureExt, LocalBoxFuture};
use futures::stream::{self, StreamExt, TryStreamExt};

use contract::{Error, Outcome, Pass};

use crate::check::{fib_loop, Check};
use crate::Config;

fn fib_recursive(n: u32, calls: &Cell<u64>) -> LocalBoxFuture<'_, u64> {
    calls.set(calls.get() + 1);
    if n <= 1 {
        return future::ready(1).boxed_local();
    }
    future::join(fib_recursive(n - 1, calls), fib_recursive(n - 2, calls)).map(|(a, b)| a + b).boxed_local()
}

fn fib_iterative(n: u32, calls: &Cell<u64>) -> impl Future<Output = u64> + '_ {
    future::lazy(move |_| {
        calls.set(calls.get() + 1);
        fib_loop(n)
    })
}

fn pass<'c, F, Fut>(cfg: &Config, p: &mut Pass, recursive: bool, calls: &'c Cell<u64>, fib: F) -> Result<Outcome, Error>
where
    F: Fn(u32, &'c Cell<u64>) -> Fut,
    Fut: Future<Output = u64> + 'c,
{
    let mut c = Check::new(cfg, p, recursive);
    let (total, m) = (c.total, c.m);
    p.begin();
    let chain = stream::iter(0..total)
        .then(|i| fib((i % m) as u32, calls).map(move |v| Ok::<_, Error>((i, v))))
        .try_for_each(|(i, v)| future::ready(c.check(i, v)));
    let res = cfg.runtime().block_on(chain);
    c.calls.set(calls.get());
    res?;
    c.finish()
}

pub fn recursive(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let calls = Cell::new(0);
    pass(cfg, p, true, &calls, fib_recursive)
}

pub fn iterative(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let calls = Cell::new(0);
    pass(cfg, p, false, &calls, fib_iterative)
}
