//! sync: std's blocking TcpStream, one chain after another, each GET a
//! write and reads until its response is whole; the floor.
//!
//! The deadline: the socket's read timeout is --stall-ms, so a response's
//! first read waits at most that long from its request; once more than a
//! millisecond of it has gone (a response in pieces), each read's timeout is
//! what is left of the deadline, and the next request sets it back.  The
//! common case, a response in one read, costs no system call for it.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use contract::{Error, Outcome, Pass};

use crate::wire::{chain_done, Body, Broken, Wire, CHAIN_LEN, FIRST};
use crate::{connect_error, Config};

const SLACK: Duration = Duration::from_millis(1);

struct Conn {
    s: TcpStream,
    wire: Wire,
    stall: Duration,
    /// The socket's read timeout now.
    timeout: Duration,
    /// When the connect started, until the first GET takes it as its start.
    born: Option<Instant>,
}

fn broken(e: std::io::Error) -> Broken {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => Broken::Stalled,
        _ => Broken::Io(e),
    }
}

impl Conn {
    fn open(cfg: &Config) -> Result<Conn, Error> {
        let born = Instant::now();
        let s = TcpStream::connect_timeout(&cfg.addr(), cfg.stall).map_err(|e| connect_error(cfg, e))?;
        let setup = || -> std::io::Result<()> {
            s.set_nodelay(true)?;
            s.set_read_timeout(Some(cfg.stall))?;
            s.set_write_timeout(Some(cfg.stall))
        };
        setup().map_err(|e| Error::Env(format!("cannot set up the connection to 127.0.0.1:{}: {e}", cfg.port)))?;
        Ok(Conn { s, wire: Wire::new(cfg.port), stall: cfg.stall, timeout: cfg.stall, born: Some(born) })
    }

    fn read_timeout(&mut self, t: Duration) -> Result<(), Error> {
        self.s.set_read_timeout(Some(t)).map_err(|e| self.wire.fail(e))?;
        self.timeout = t;
        Ok(())
    }

    /// GET path, request `step` of chain i: the next path, checked.
    fn get(&mut self, i: u64, step: u64, path: &[u8]) -> Result<Body, Error> {
        let deadline = self.born.take().unwrap_or_else(Instant::now) + self.stall;
        if self.timeout != self.stall {
            self.read_timeout(self.stall)?;
        }
        let req = self.wire.request(i, step, path);
        if let Err(e) = self.s.write_all(req) {
            return Err(self.wire.broken(broken(e)));
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.wire.broken(Broken::Stalled));
            }
            if left + SLACK < self.timeout {
                self.read_timeout(left)?;
            }
            match self.s.read(self.wire.space()?) {
                Ok(n) => {
                    if let Some(next) = self.wire.filled(n)? {
                        return Ok(next);
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.wire.broken(broken(e))),
            }
        }
    }
}

/// N chains on one connection opened inside the clock.
pub fn sequential(cfg: &Config, p: &mut Pass) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    p.begin();
    let mut conn = Conn::open(cfg)?;
    for i in 0..p.n {
        let mut path = Body::new(FIRST);
        for step in 0..CHAIN_LEN {
            path = conn.get(i, step, path.as_bytes())?;
        }
        out.bytes += chain_done(i, CHAIN_LEN, &path)?;
        out.ok += 1;
    }
    out.done = Some(Instant::now()); // the close is not timed, as in C and Go
    Ok(out)
}
