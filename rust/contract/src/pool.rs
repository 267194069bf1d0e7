//! The runtime of the workloads that read files on tokio's blocking pool
//! (readfile, cacheloop): a current-thread runtime whose pool already has its
//! first thread, started before the warm-up as C and Node start libuv's.

use crate::Error;

/// A current-thread runtime whose blocking pool has its first thread (one
/// stat through it).
pub fn runtime_with_pool() -> Result<tokio::runtime::Runtime, Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| Error::Env(format!("cannot start tokio's runtime: {e}")))?;
    rt.block_on(tokio::fs::metadata("."))
        .map_err(|e| Error::Env(format!("cannot start tokio's blocking pool (a stat of .): {e}")))?;
    Ok(rt)
}
