//! promise: load returns a future built from combinators, no async fn: a
//! ready future on a hit, the read's future mapped into the cache on the
//! miss.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use futures::future::{self, Either, FutureExt};
use futures::stream::{self, StreamExt, TryStreamExt};

use contract::{Error, Outcome, Pass};

use crate::cache::{check, finish, Cache};
use crate::Config;

fn load<'a>(c: &'a RefCell<Cache>, name: &'a str) -> impl Future<Output = std::io::Result<Rc<[u8]>>> + 'a {
    let hit = c.borrow_mut().hit(name);
    match hit {
        Some(data) => Either::Left(future::ready(Ok(data))),
        None => Either::Right(tokio::fs::read(name).map(move |read| c.borrow_mut().fill(name, read))),
    }
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let c = RefCell::new(Cache::default());
    let n = p.n;
    p.begin();
    let chain = stream::iter(0..n)
        .then(|i| load(&c, &cfg.file).map(move |got| Ok::<_, Error>((i, got))))
        .try_fold(Outcome::default(), |mut out, (i, got)| future::ready(check(cfg, &mut out, i, got).map(|()| out)));
    let out = cfg.runtime().block_on(chain)?;
    let c = c.into_inner();
    finish(cfg, n, c.hits, c.misses, out)
}
