//! promise: the GETs of a chain as combinators, no async fn:
//! `get(/a).and_then(get).and_then(get)`, as seed 001's
//! makeRequest('/a').then(makeRequest)...; the chains folded one after
//! another over a stream (`try_fold`), the connection handed from each GET
//! to the next.

use std::future::Future;
use std::time::Instant;

use futures::future::{self, FutureExt, TryFutureExt};
use futures::stream::{self, TryStreamExt};

use contract::{Error, Outcome, Pass};

use crate::client::Conn;
use crate::wire::{chain_done, Body, CHAIN_LEN, FIRST};
use crate::Config;

fn chain((conn, mut out): (Conn, Outcome), i: u64) -> impl Future<Output = Result<(Conn, Outcome), Error>> {
    conn.into_get(i, 0, Body::new(FIRST))
        .and_then(move |(c, b)| c.into_get(i, 1, b))
        .and_then(move |(c, b)| c.into_get(i, 2, b))
        .and_then(move |(c, d)| {
            future::ready(chain_done(i, CHAIN_LEN, &d).map(|bytes| {
                out.bytes += bytes;
                out.ok += 1;
                (c, out)
            }))
        })
}

/// N chains on one connection opened inside the clock.
pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(
        Conn::open(cfg)
            .and_then(move |conn| stream::iter((0..n).map(Ok)).try_fold((conn, Outcome::default()), chain))
            .map_ok(|(conn, mut out)| {
                out.done = Some(Instant::now()); // the close is not timed, as in C and Go
                drop(conn);
                out
            }),
    )
}

/// K connections opened inside the clock (try_join_all), then K folds at
/// once (try_join_all), connection w running chains w, w + K, w + 2K, ...
pub fn bounded(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let (n, k) = (p.n, contract::in_flight(p.n, p.k));
    p.begin();
    cfg.runtime().block_on(
        future::try_join_all((0..k).map(|_| Conn::open(cfg)))
            .and_then(move |conns| {
                future::try_join_all(conns.into_iter().zip(0..k).map(move |(conn, w)| {
                    stream::iter((w..n).step_by(k as usize).map(Ok))
                        .try_fold((conn, Outcome::default()), chain)
                        .map_ok(|(_, out)| (out, Instant::now()))
                }))
            })
            .map(|all| {
                all.map(|outs| {
                    let mut total = Outcome::default();
                    for (out, done) in outs {
                        total.ok += out.ok;
                        total.bytes += out.bytes;
                        total.done = total.done.max(Some(done)); // the last fold's N-th chain
                    }
                    total
                })
            }),
    )
}
