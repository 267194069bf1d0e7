//! await: load is an async fn; a hit returns without suspending.

use std::rc::Rc;

use contract::{Error, Outcome, Pass};

use crate::cache::{check, finish, Cache};
use crate::Config;

async fn load(c: &mut Cache, name: &str) -> std::io::Result<Rc<[u8]>> {
    if let Some(data) = c.hit(name) {
        return Ok(data);
    }
    let read = tokio::fs::read(name).await;
    c.fill(name, read)
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Cache::default();
    let mut out = Outcome::default();
    let n = p.n;
    p.begin();
    cfg.runtime().block_on(async {
        for i in 0..n {
            let got = load(&mut c, &cfg.file).await;
            check(cfg, &mut out, i, got)?;
        }
        Ok::<_, Error>(())
    })?;
    finish(cfg, n, c.hits, c.misses, out)
}
