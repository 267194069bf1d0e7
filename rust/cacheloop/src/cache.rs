//! One pass's cache, its counters, and the check every style shares.

use std::collections::HashMap;
use std::rc::Rc;

use contract::{Error, Outcome, Value};

use crate::Config;

/// name -> content, and how loads were answered.
#[derive(Default)]
pub struct Cache {
    pub entries: HashMap<String, Rc<[u8]>>,
    pub hits: u64,
    pub misses: u64,
}

impl Cache {
    /// The cached content of name, counting the hit.
    #[inline]
    pub fn hit(&mut self, name: &str) -> Option<Rc<[u8]>> {
        let data = self.entries.get(name)?.clone();
        self.hits += 1;
        Some(data)
    }

    /// Caches what the miss read, counting the miss.
    pub fn fill(&mut self, name: &str, read: std::io::Result<Vec<u8>>) -> std::io::Result<Rc<[u8]>> {
        let data: Rc<[u8]> = read?.into();
        self.misses += 1;
        self.entries.insert(name.to_string(), data.clone());
        Ok(data)
    }
}

/// Load i's check: no error, the file's length; the running outcome.
#[inline]
pub fn check(cfg: &Config, out: &mut Outcome, i: u64, got: std::io::Result<Rc<[u8]>>) -> Result<(), Error> {
    let data = got.map_err(|e| Error::failure(i, format!("load failed: {e}")))?;
    if data.len() as u64 != cfg.size {
        return Err(Error::failure(i, format!("load returned {} bytes, expected the file's {}", data.len(), cfg.size)));
    }
    out.ok += 1;
    out.bytes += data.len() as u64;
    Ok(())
}

/// The counts after the N-th load, and the line's fields.
pub fn finish(cfg: &Config, n: u64, hits: u64, misses: u64, mut out: Outcome) -> Result<Outcome, Error> {
    if hits != n - 1 || misses != 1 {
        return Err(Error::failure(n - 1, format!("{hits} hits and {misses} misses, expected {} and 1", n - 1)));
    }
    out.extra = vec![("hits", Value::U(hits)), ("misses", Value::U(misses)), ("file_bytes", Value::U(cfg.size))];
    Ok(out)
}
