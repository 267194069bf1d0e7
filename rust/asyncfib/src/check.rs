//! What every style shares: the table's check of each top-level result, and
//! the calls and the checksum against the plain computation after the clock.

use std::cell::Cell;
use std::time::Instant;

use contract::{Error, Outcome, Pass, Value};

use crate::Config;

/// The loop of one pass: iteration i of the N x M top-level calls is
/// repetition i / M, argument i % M.
pub struct Check<'a> {
    table: &'a [u64],
    pub m: u64,
    pub total: u64,
    recursive: bool,
    sum: u64,
    ok: u64,
    done: Option<Instant>,
    /// Calls made so far, counted by every fib of the pass (one thread).
    pub calls: Cell<u64>,
}

impl<'a> Check<'a> {
    pub fn new(cfg: &'a Config, p: &Pass, recursive: bool) -> Check<'a> {
        let m = if recursive { cfg.max_recursive } else { cfg.max_iterative } as u64;
        Check { table: &cfg.table, m, total: p.n * m, recursive, sum: 0, ok: 0, done: None, calls: Cell::new(0) }
    }

    /// The argument of top-level call i.
    #[inline]
    pub fn arg(&self, i: u64) -> u32 {
        (i % self.m) as u32
    }

    /// Checks top-level call i's result.
    #[inline]
    pub fn check(&mut self, i: u64, got: u64) -> Result<(), Error> {
        let arg = i % self.m;
        let want = self.table[arg as usize];
        if got != want {
            return Err(Error::failure(i / self.m, format!("fib({arg}) returned {got}, expected {want}")));
        }
        self.sum = self.sum.wrapping_add(got);
        if arg == self.m - 1 {
            self.ok += 1;
            if i + 1 == self.total {
                self.done = Some(Instant::now());
            }
        }
        Ok(())
    }

    /// The outcome, once the clock stopped: the calls and the checksum
    /// against the plain computation's.
    pub fn finish(self) -> Result<Outcome, Error> {
        let (mut want_calls, mut want_sum) = (0u64, 0u64);
        for i in 0..self.total {
            let f = self.table[(i % self.m) as usize];
            want_sum = want_sum.wrapping_add(f);
            want_calls += if self.recursive { 2 * f - 1 } else { 1 };
        }
        let last = (self.total / self.m).saturating_sub(1);
        if self.calls.get() != want_calls {
            return Err(Error::failure(last, format!("made {} calls, the plain computation makes {want_calls}", self.calls.get())));
        }
        if self.sum != want_sum {
            return Err(Error::failure(last, format!("results sum to {}, the plain computation's to {want_sum}", self.sum)));
        }
        Ok(Outcome {
            ok: self.ok,
            bytes: 0,
            extra: vec![("calls", Value::U(want_calls)), ("checksum", Value::U(self.sum))],
            done: self.done,
        })
    }
}

/// The loop of the iterative shape, one call.
#[inline]
pub fn fib_loop(n: u32) -> u64 {
    let (mut a, mut b) = (1u64, 0u64);
    for _ in 0..=n {
        (a, b) = (a.wrapping_add(b), a);
    }
    b
}
