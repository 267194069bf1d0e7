//! rust-httpchain: a chain of three HTTP/1.1 GETs on 127.0.0.1, each path
//! the previous response's body, /a -> /b -> /c -> /d (seed 001), against the
//! server on --port (C, Go or Node: --backend names it).  Every response is
//! checked (`wire.rs`: a 200 whose body is the next path, nothing after its
//! end); a chain is verified when it ends at /d, and moves 6 body bytes.
//!
//! Sequential: one keep-alive connection, one chain after another on it;
//! bounded (await and promise): K connections, a chain at a time on each.
//! The clock starts before the connections are opened: their records, their
//! buffers and their connects are the pass's, as C opens its connections after
//! ab_run_begin and Go's transport connects inside its timed section; it
//! stops at the N-th verified chain, so the close is not timed.
//!
//! --stall-ms is a deadline on each whole response, from its request (the
//! first GET's from the connect, as in C and Go): a server that does not
//! answer, drips, or sends less than its Content-Length fails the run with
//! exit 3, as does a connect not answered in that time (a full backlog).  A
//! wrong body, a status other than 200, bytes after a response or a server
//! that closes mid-response fail verification (exit 1).  One file a style:
//!
//! - `sync.rs`: std's blocking `TcpStream` (read timeouts for the deadline),
//!   the language's baseline as Go's sync is Go's;
//! - `await.rs`: an async fn a chain, `path = conn.get(path).await?` three
//!   times, on tokio's current-thread runtime (`tokio::net::TcpStream`);
//!   bounded: K spawned tasks taking the next chain from a shared counter;
//! - `promise.rs`: the same GETs chained with `and_then`, the chains folded
//!   over a stream (`try_fold`), no async fn of its own; bounded: K folds
//!   joined with `try_join_all`, connection w taking chains w, w + K, ...
//!
//! Both async styles share the GET of `client.rs`, a future with its
//! deadline (`tokio::time::timeout_at`), as C's styles share hc_get and
//! Node's share http.request.  No callback style: tokio's sockets are
//! futures, with no callback API.  No bounded sync: a blocking client would
//! need a thread a connection.

#[path = "await.rs"]
mod awaits;
mod client;
mod promise;
mod sync;
mod wire;

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use contract::{Error, Fields, Flag, Values, Variant, Workload, BOUNDED, SEQUENTIAL};

/// Which server answers (the client is the same; every Rust client keeps its
/// connection alive).
pub const BACKENDS: [&str; 3] = ["cserver.keepalive", "goserver.keepalive", "nodeserver.keepalive"];
/// The longest --stall-ms, as C's and Go's.
const MAX_STALL_MS: u64 = 3_600_000;

pub struct Config {
    pub port: u16,
    pub stall: Duration,
    pub rt: Option<tokio::runtime::Runtime>,
}

impl Config {
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.rt.as_ref().expect("an async variant's runtime, started by check")
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }
}

/// The error of a connect that failed (both exit 3).
pub fn connect_error(cfg: &Config, e: std::io::Error) -> Error {
    if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
        return connect_late(cfg);
    }
    if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
        // Each connection in flight is a descriptor: the limit, not the
        // server, failed the connect.
        return Error::Env(format!(
            "too many open files (ulimit -n is {}): each connection in flight needs one; raise it or lower K",
            open_file_limit()
        ));
    }
    Error::Env(format!(
        "cannot connect to 127.0.0.1:{}: {e} (is the server running? start build/bin/c-httpchain-server and pass its port)",
        cfg.port
    ))
}

/// The soft limit on open files, as `ulimit -n` says it.
fn open_file_limit() -> String {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return "unknown".into();
    }
    if lim.rlim_cur == libc::RLIM_INFINITY {
        "unlimited".into()
    } else {
        lim.rlim_cur.to_string()
    }
}

/// The error of a connect not answered within --stall-ms.
pub fn connect_late(cfg: &Config) -> Error {
    Error::Env(format!(
        "cannot connect to 127.0.0.1:{} within --stall-ms ({} ms): the server does not accept connections (its backlog is full)",
        cfg.port,
        cfg.stall.as_millis()
    ))
}

/// A tokio current-thread runtime with its I/O driver and timers.
pub fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::Env(format!("cannot start tokio's runtime: {e}")))
}

fn check(v: &Values, f: &Fields) -> Result<Config, Error> {
    let text = v.get("--port");
    let port = match text.parse::<u16>() {
        Ok(p) if p >= 1 && !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => p,
        _ => {
            return Err(Error::Usage(format!(
                "--port needs the server's port, 1 to 65535, got {text:?} (start build/bin/c-httpchain-server; it prints {{\"port\":N}})"
            )))
        }
    };
    let ms = contract::ranged("--stall-ms", v.get("--stall-ms"), 1, MAX_STALL_MS)?;
    let backend = v.get("--backend");
    if !BACKENDS.contains(&backend) {
        return Err(Error::Usage(format!("--backend must be one of {}, got {backend:?}", BACKENDS.join(", "))));
    }
    let mut cfg = Config { port, stall: Duration::from_millis(ms), rt: None };
    // Before anything is timed: a port nothing answers on is the
    // environment's fault.  The connect has --stall-ms as every GET has.
    TcpStream::connect_timeout(&cfg.addr(), cfg.stall).map_err(|e| connect_error(&cfg, e))?;
    if f.style != "sync" {
        cfg.rt = Some(runtime()?);
    }
    Ok(cfg)
}

pub fn variants(backend: &'static str) -> Vec<Variant<Config>> {
    let v = |style, mode, run| Variant { style, shape: "", mode, backend, run };
    vec![
        v("sync", SEQUENTIAL, sync::sequential),
        v("await", SEQUENTIAL, awaits::sequential),
        v("await", BOUNDED, awaits::bounded),
        v("promise", SEQUENTIAL, promise::sequential),
        v("promise", BOUNDED, promise::bounded),
    ]
}

pub fn flags() -> Vec<Flag> {
    vec![
        Flag { name: "--port", default: "", arg: "P", about: "the server's port on 127.0.0.1 (required; the runner passes it)" },
        Flag {
            name: "--stall-ms",
            default: "10000",
            arg: "MS",
            about: "a response not complete within MS milliseconds of its request fails the run (exit 3)",
        },
        Flag {
            name: "--backend",
            default: BACKENDS[0],
            arg: "SERVER.AGENT",
            about: "which server answers: cserver.keepalive, goserver.keepalive or nodeserver.keepalive",
        },
    ]
}

/// The --backend of args (its last value), read before the contract parses
/// them: the line's backend is the variant's.  A value that is not one of
/// [`BACKENDS`] leaves the first, and check refuses it.
pub fn backend_arg(args: &[String]) -> &'static str {
    let mut backend = BACKENDS[0];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = match a.strip_prefix("--backend") {
            Some("") => it.next().map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        if let Some(v) = v {
            backend = BACKENDS.iter().find(|b| **b == v).copied().unwrap_or(BACKENDS[0]);
        }
    }
    backend
}

fn main() {
    // A non-UTF-8 argument is the contract's to refuse.
    let args: Vec<String> = std::env::args_os().skip(1).filter_map(|a| a.into_string().ok()).collect();
    let backend = backend_arg(&args);
    contract::main(Workload { name: "httpchain", flags: flags(), check, variants: variants(backend) })
}

#[cfg(test)]
mod tests;
