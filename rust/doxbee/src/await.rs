//! await: an async fn an upload, spawned as a task of its own (spawn_local
//! on the current-thread runtime, as Go starts a goroutine an upload),
//! `join!` for the put and the lookup, `join_all` for the parallel shape's
//! queries; the pass awaits the uploads' handles in turn.

use std::time::Instant;

use futures::future::join_all;
use tokio::task::LocalSet;

use contract::{Error, Outcome, Pass};

use crate::*;

async fn fake(p: Params, i: u64, kind: u64, j: u64) -> i64 {
    if p.delay.is_zero() {
        tokio::task::yield_now().await;
    } else {
        tokio::time::sleep(p.delay).await;
    }
    answer(&p, i, kind, j)
}

async fn commit(p: Params, u: &Upload) -> Result<(), Error> {
    u.verify(COMMIT, 0, fake(p, u.i, COMMIT, 0).await)?;
    u.commits.set(u.commits.get() + 1);
    Ok(())
}

async fn upload_sequential(p: Params, i: u64) -> Result<Upload, Error> {
    let u = Upload::new(i);
    let (put, file) = tokio::join!(fake(p, i, PUT, 0), fake(p, i, LOOKUP, 0));
    u.verify(PUT, 0, put)?;
    u.verify(LOOKUP, 0, file)?;
    for kind in [VERSION, CREATE, EXEC, FILE_VERSION, UPDATE] {
        let got = if kind == CREATE {
            let mut q = 0;
            create_query(i, |v| q = v);
            q
        } else {
            fake(p, i, kind, 0).await
        };
        u.verify(kind, 0, got)?;
    }
    commit(p, &u).await?;
    Ok(u)
}

async fn upload_parallel(p: Params, i: u64) -> Result<Upload, Error> {
    let u = Upload::new(i);
    let got = join_all((0..p.queries).map(|j| fake(p, i, FILE_VERSION, j))).await;
    for (j, v) in got.into_iter().enumerate() {
        u.verify(FILE_VERSION, j as u64, v)?;
    }
    commit(p, &u).await?;
    Ok(u)
}

fn run(cfg: &Config, pass: &mut Pass, parallel: bool) -> Result<Outcome, Error> {
    let (n, p) = (pass.n, cfg.p);
    let local = LocalSet::new();
    pass.begin();
    let uploads = local.block_on(&cfg.rt, async move {
        let mut handles = Vec::with_capacity(n as usize);
        for i in 0..n {
            handles.push(if parallel {
                tokio::task::spawn_local(upload_parallel(p, i))
            } else {
                tokio::task::spawn_local(upload_sequential(p, i))
            });
        }
        let mut uploads = Vec::with_capacity(n as usize);
        for (i, h) in handles.into_iter().enumerate() {
            uploads.push(h.await.unwrap_or_else(|e| Err(Error::failure(i as u64, format!("the upload's task failed: {e}")))));
        }
        uploads
    });
    let done = Instant::now();
    let mut out = tally(cfg, parallel, uploads)?;
    out.done = Some(done);
    Ok(out)
}

pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, false)
}

pub fn parallel(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    run(cfg, p, true)
}
