//! fiber: the plain calls of sync.rs on one stackful coroutine (corosensei,
//! its default stack: mapped when the coroutine is made, committed as it is
//! touched), made after the clock started, as C's fiber is.  Nothing is
//! pending, so nothing suspends: the coroutine runs the pass's loop to its
//! end on its first resume, and what it costs is the switch onto its stack
//! and back, once a pass.

use corosensei::{CoroutineResult, ScopedCoroutine};

use contract::{Error, Outcome, Pass};

use crate::check::Check;
use crate::sync::{fib_iterative, fib_recursive, plain};
use crate::Config;

fn on_fiber(cfg: &Config, p: &mut Pass, recursive: bool) -> Result<Outcome, Error> {
    let mut c = Check::new(cfg, p, recursive);
    let fib = if recursive { fib_recursive } else { fib_iterative };
    p.begin();
    let fiber = ScopedCoroutine::new(|_: &corosensei::Yielder<(), ()>, ()| plain(&mut c, fib));
    let res = fiber.scope(|mut f| match f.as_mut().resume(()) {
        CoroutineResult::Return(r) => r,
        CoroutineResult::Yield(()) => unreachable!("the plain loop never suspends"),
    });
    res?;
    c.finish()
}

pub fn recursive(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    on_fiber(cfg, p, true)
}

pub fn iterative(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    on_fiber(cfg, p, false)
}
