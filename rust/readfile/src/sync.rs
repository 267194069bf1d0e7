//! sync: std::fs::read in a loop, the floor.

use contract::{Error, Outcome, Pass};

use crate::{verify, Config};

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    p.begin();
    for i in 0..p.n {
        out.bytes += verify(i, std::fs::read(&cfg.file), &cfg.expect)?;
        out.ok += 1;
    }
    Ok(out)
}
