//! promise: tokio::fs::read's futures through combinators, no async fn.

use futures::future::{self, FutureExt, TryFutureExt};
use futures::stream::{self, StreamExt, TryStreamExt};

use contract::{Error, Outcome, Pass};

use crate::{verify, Config};

/// Read i, checked: a future of its bytes.
fn read(cfg: &Config, i: u64) -> impl std::future::Future<Output = Result<u64, Error>> + '_ {
    tokio::fs::read(&cfg.file).map(move |r| verify(i, r, &cfg.expect))
}

fn tally(mut out: Outcome, bytes: u64) -> future::Ready<Result<Outcome, Error>> {
    out.ok += 1;
    out.bytes += bytes;
    future::ready(Ok(out))
}

/// Each read's future chained after the one before (a stream's then).
pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(stream::iter(0..n).then(|i| read(cfg, i)).try_fold(Outcome::default(), tally))
}

/// Every read's future at once, joined (join_all: Promise.all), failing at
/// the first wrong one once all are in.
pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(future::join_all((0..n).map(|i| read(cfg, i))).map(|all| {
        all.into_iter().try_fold(Outcome::default(), |mut out, r| {
            out.bytes += r?;
            out.ok += 1;
            Ok(out)
        })
    }))
}

/// At most K reads' futures in flight (buffer_unordered(K)).
pub fn bounded(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let (n, k) = (p.n, contract::in_flight(p.n, p.k));
    p.begin();
    cfg.runtime().block_on(
        stream::iter(0..n).map(|i| read(cfg, i).into_future()).buffer_unordered(k as usize).try_fold(Outcome::default(), tally),
    )
}
