//! sync: plain calls, the floor.

use std::cell::Cell;

use contract::{Error, Outcome, Pass};

use crate::check::{fib_loop, Check};
use crate::Config;

pub fn fib_recursive(n: u32, calls: &Cell<u64>) -> u64 {
    calls.set(calls.get() + 1);
    if n <= 1 {
        return 1;
    }
    fib_recursive(n - 1, calls) + fib_recursive(n - 2, calls)
}

pub fn fib_iterative(n: u32, calls: &Cell<u64>) -> u64 {
    calls.set(calls.get() + 1);
    fib_loop(n)
}

/// The plain loop over the pass's top-level calls, shared with the fiber.
pub fn plain(c: &mut Check, fib: fn(u32, &Cell<u64>) -> u64) -> Result<(), Error> {
    for i in 0..c.total {
        let got = fib(c.arg(i), &c.calls);
        c.check(i, std::hint::black_box(got))?;
    }
    Ok(())
}

pub fn recursive(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Check::new(cfg, p, true);
    p.begin();
    plain(&mut c, fib_recursive)?;
    c.finish()
}

pub fn iterative(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Check::new(cfg, p, false);
    p.begin();
    plain(&mut c, fib_iterative)?;
    c.finish()
}
