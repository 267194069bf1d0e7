//! sync: load is a plain function; the miss reads with std::fs::read.

use std::rc::Rc;

use contract::{Error, Outcome, Pass};

use crate::cache::{check, finish, Cache};
use crate::Config;

fn load(c: &mut Cache, name: &str) -> std::io::Result<Rc<[u8]>> {
    match c.hit(name) {
        Some(data) => Ok(data),
        None => c.fill(name, std::fs::read(name)),
    }
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut c = Cache::default();
    let mut out = Outcome::default();
    p.begin();
    for i in 0..p.n {
        check(cfg, &mut out, i, load(&mut c, &cfg.file))?;
    }
    finish(cfg, p.n, c.hits, c.misses, out)
}
