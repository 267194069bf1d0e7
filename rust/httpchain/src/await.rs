//! await: an async fn a chain, `path = conn.get(path).await?` three times,
//! the chains one after another in an async block on tokio's
//! current-thread runtime.

use std::time::Instant;

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
