//! promise: the upload as combinators, no async fn: `join` of the put and
//! the lookup, then a chain of `and_then`, `join_all` for the queries and
//! for the pass's uploads.

use std::future::Future;
use std::rc::Rc;
use std::time::Instant;

use futures::future::{self, Either, FutureExt, TryFutureExt};

use contract::{Error, Outcome, Pass};

use crate::*;

fn fake(cfg: &Config, i: u64, kind: u64, j: u64) -> impl Future<Output = i64> + '_ {
    let wait = if cfg.p.delay.is_zero() {
        Either::Left(tokio::task::yield_now())
    } else {
        Either::Right(tokio::time::sleep(cfg.p.delay))
    };
    wait.map(move |()| answer(&cfg.p, i, kind, j))
}

/// Operation `kind` of u, checked: a future of the check's result.
fn step<'a>(cfg: &'a Config, u: &Rc<Upload>, kind: u64) -> impl Future<Output = Result<(), Error>> + 'a {
    let u = u.clone();
    fake(cfg, u.i, kind, 0).map(move |got| u.verify(kind, 0, got))
}

fn commit<'a>(cfg: &'a Config, u: &Rc<Upload>) -> impl Future<Output = Result<(), Error>> + 'a {
    let u = u.clone();
    fake(cfg, u.i, COMMIT, 0).map(move |got| {
        u.verify(COMMIT, 0, got)?;
        u.commits.set(u.commits.get() + 1);
        Ok(())
    })
}

fn upload_sequential(cfg: &Config, i: u64) -> impl Future<Output = Result<Rc<Upload>, Error>> + '_ {
    let u = Rc::new(Upload::new(i));
    let (u1, u2, u3, u4, u5, u6) = (u.clone(), u.clone(), u.clone(), u.clone(), u.clone(), u.clone());
    future::join(fake(cfg, i, PUT, 0), fake(cfg, i, LOOKUP, 0))
        .map(move |(put, file)| {
            u1.verify(PUT, 0, put)?;
            u1.verify(LOOKUP, 0, file)
        })
        .and_then(move |()| step(cfg, &u2, VERSION))
        .and_then(move |()| {
            let mut q = 0;
            create_query(u3.i, |v| q = v);
            future::ready(u3.verify(CREATE, 0, q))
        })
        .and_then(move |()| step(cfg, &u4, EXEC))
        .and_then(move |()| step(cfg, &u5, FILE_VERSION))
        .and_then(move |()| step(cfg, &u6, UPDATE))
        .and_then(move |()| commit(cfg, &u).map(move |r| r.map(|()| u)))
}

fn upload_parallel(cfg: &Config, i: u64) -> impl Future<Output = Result<Rc<Upload>, Error>> + '_ {
    let u = Rc::new(Upload::new(i));
    let u1 = u.clone();
    future::join_all((0..cfg.p.queries).map(move |j| fake(cfg, i, FILE_VERSION, j)))
        .map(move |got| got.into_iter().enumerate().try_for_each(|(j, v)| u1.verify(FILE_VERSION, j as u64, v)))
        .and_then(move |()| commit(cfg, &u).map(move |r| r.map(|()| u)))
}

fn run(cfg: &Config, p: &mut Pass, parallel: bool) -> Result<Outcome, Error> {
    let n = p.n;
    // The uploads' first timers are made as their futures are (as a promise
    // starts its work when made): inside the runtime's context.
    let _context = cfg.rt.enter();
    p.begin();
    let uploads = if parallel {
        cfg.rt.block_on(future::join_all((0..n).map(|i| upload_parallel(cfg, i))))
    } else {
        cfg.rt.block_on(future::join_all((0..n).map(|i| upload_sequential(cfg, i))))
    };
    let done = Instant::now();
    let mut out = tally(cfg, parallel, uploads)?;
    out.done = Some(done);
    Ok(out)
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, false)
}

pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, true)
}
