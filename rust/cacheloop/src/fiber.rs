//! fiber: one corosensei coroutine runs the plain loop.  A hit returns
//! directly; the miss suspends the coroutine (it yields the name to read),
//! the driver reads it on tokio's blocking pool and resumes the coroutine
//! with what it read.  The coroutine (its stack mapped, committed as it is
//! touched) is made after the clock started, as C's fiber is.

use std::rc::Rc;

use corosensei::{CoroutineResult, ScopedCoroutine, Yielder};

use contract::{Error, Outcome, Pass};

use crate::cache::{check, finish, Cache};
use crate::Config;

type Read = std::io::Result<Vec<u8>>;

fn load(y: &Yielder<Read, ()>, c: &mut Cache, name: &str) -> std::io::Result<Rc<[u8]>> {
    if let Some(data) = c.hit(name) {
        return Ok(data);
    }
    let read = y.suspend(());
    c.fill(name, read)
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    let mut c = Cache::default();
    p.begin();
    let fiber = ScopedCoroutine::new(|y: &Yielder<Read, ()>, _first: Read| {
        let mut out = Outcome::default();
        for i in 0..n {
            let got = load(y, &mut c, &cfg.file);
            check(cfg, &mut out, i, got)?;
        }
        Ok::<_, Error>(out)
    });
    let res = fiber.scope(|mut f| {
        let mut input: Read = Ok(Vec::new());
        loop {
            match f.as_mut().resume(input) {
                CoroutineResult::Yield(()) => input = cfg.runtime().block_on(tokio::fs::read(&cfg.file)),
                CoroutineResult::Return(r) => return r,
            }
        }
    });
    let out = res?;
    finish(cfg, n, c.hits, c.misses, out)
}
