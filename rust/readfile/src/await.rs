//! await: async fn awaiting tokio::fs::read on the current-thread runtime.

use std::cell::Cell;
use std::rc::Rc;

use contract::{Error, Outcome, Pass};
use tokio::task::{JoinSet, LocalSet};

use crate::{verify, Config};

async fn read_one(i: u64, file: Rc<str>, expect: Rc<[u8]>) -> Result<u64, Error> {
    verify(i, tokio::fs::read(&*file).await, &expect)
}

/// One read at a time, each awaited before the next.
pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(async {
        for i in 0..n {
            out.bytes += verify(i, tokio::fs::read(&cfg.file).await, &cfg.expect)?;
            out.ok += 1;
        }
        Ok::<_, Error>(())
    })?;
    Ok(out)
}

/// A task a read, all N spawned at once (spawn_local on the runtime's one
/// thread), joined by a JoinSet; each checks its own read.
pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    let (file, expect): (Rc<str>, Rc<[u8]>) = (cfg.file.as_str().into(), cfg.expect.as_slice().into());
    let local = LocalSet::new();
    p.begin();
    local.block_on(cfg.runtime(), async move {
        let mut set = JoinSet::new();
        for i in 0..n {
            set.spawn_local(read_one(i, file.clone(), expect.clone()));
        }
        let mut out = Outcome::default();
        while let Some(r) = set.join_next().await {
            out.bytes += r.map_err(|e| Error::failure(out.ok, format!("a read's task failed: {e}")))??;
            out.ok += 1;
        }
        Ok(out)
    })
}

/// K tasks, each taking the next read until N were taken.
pub fn bounded(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let (n, k) = (p.n, contract::in_flight(p.n, p.k));
    let (file, expect): (Rc<str>, Rc<[u8]>) = (cfg.file.as_str().into(), cfg.expect.as_slice().into());
    let local = LocalSet::new();
    p.begin();
    local.block_on(cfg.runtime(), async move {
        let next = Rc::new(Cell::new(0u64));
        let mut set = JoinSet::new();
        for _ in 0..k {
            let (next, file, expect) = (next.clone(), file.clone(), expect.clone());
            set.spawn_local(async move {
                let (mut ok, mut bytes) = (0u64, 0u64);
                loop {
                    let i = next.get();
                    if i == n {
                        return Ok::<_, Error>((ok, bytes));
                    }
                    next.set(i + 1);
                    bytes += read_one(i, file.clone(), expect.clone()).await?;
                    ok += 1;
                }
            });
        }
        let mut out = Outcome::default();
        while let Some(r) = set.join_next().await {
            let (ok, bytes) = r.map_err(|e| Error::failure(out.ok, format!("a worker task failed: {e}")))??;
            out.ok += ok;
            out.bytes += bytes;
        }
        Ok(out)
    })
}
