//! await: an async fn a chain, `path = conn.get(path).await?` three times,
//! the chains one after another in an async block on tokio's
//! current-thread runtime; bounded: K tasks, each on its own connection.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;

use tokio::task::{JoinSet, LocalSet};

use contract::{Error, Outcome, Pass};

use crate::client::Conn;
use crate::wire::{chain_done, Body, CHAIN_LEN, FIRST};
use crate::Config;

async fn chain(conn: &mut Conn, i: u64) -> Result<u64, Error> {
    let b = conn.get(i, 0, FIRST).await?;
    let c = conn.get(i, 1, b.as_bytes()).await?;
    let d: Body = conn.get(i, 2, c.as_bytes()).await?;
    chain_done(i, CHAIN_LEN, &d)
}

/// N chains on one connection opened inside the clock.
pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(async {
        let mut conn = Conn::open(cfg).await?;
        let mut out = Outcome::default();
        for i in 0..n {
            out.bytes += chain(&mut conn, i).await?;
            out.ok += 1;
        }
        out.done = Some(Instant::now()); // the close is not timed, as in C and Go
        Ok(out)
    })
}

/// K connections opened inside the clock, then K tasks (spawn_local on the
/// runtime's one thread), each looping over chains on its own connection,
/// taking the next chain from a shared counter until N were taken.
pub fn bounded(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let (n, k) = (p.n, contract::in_flight(p.n, p.k));
    let local = LocalSet::new();
    p.begin();
    local.block_on(cfg.runtime(), async move {
        let mut conns = Vec::with_capacity(k as usize);
        for _ in 0..k {
            conns.push(Conn::open(cfg).await?);
        }
        let next = Rc::new(Cell::new(0u64));
        let tally = Rc::new(Cell::new((0u64, 0u64, None::<Instant>)));
        let mut set = JoinSet::new();
        for mut conn in conns {
            let (next, tally) = (next.clone(), tally.clone());
            set.spawn_local(async move {
                loop {
                    let i = next.get();
                    if i == n {
                        return Ok::<_, Error>(());
                    }
                    next.set(i + 1);
                    let bytes = chain(&mut conn, i).await.inspect_err(|_| next.set(n))?;
                    let (ok, b, _) = tally.get();
                    let done = (ok + 1 == n).then(Instant::now); // the N-th verified chain
                    tally.set((ok + 1, b + bytes, done));
                }
            });
        }
        let mut first = None;
        while let Some(r) = set.join_next().await {
            let r = r.map_err(|e| Error::failure(tally.get().0, format!("a chain's task failed: {e}"))).and_then(|r| r);
            if let (Err(e), None) = (r, &first) {
                first = Some(e);
            }
        }
        if let Some(e) = first {
            return Err(e);
        }
        let (ok, bytes, done) = tally.get();
        Ok(Outcome { ok, bytes, done, ..Outcome::default() })
    })
}
