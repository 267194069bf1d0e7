//! A keep-alive connection on tokio (`tokio::net::TcpStream`) and its GET,
//! a future both async styles share: write the request, read until the
//! response is whole, all within the GET's deadline
//! (`tokio::time::timeout_at`: --stall-ms from the request, from the connect
//! for the connection's first).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use contract::Error;

use crate::wire::{Body, Broken, Wire};
use crate::{connect_error, connect_late, Config};

pub struct Conn {
    s: TcpStream,
    wire: Wire,
    stall: Duration,
    /// When the connect started, until the first GET takes it as its start.
    born: Option<Instant>,
}

fn broken(e: std::io::Error) -> Broken {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => Broken::Stalled,
        _ => Broken::Io(e),
    }
}

impl Conn {
    /// Connects to the server within --stall-ms (inside the runtime).
    pub async fn open(cfg: &Config) -> Result<Conn, Error> {
        let born = Instant::now();
        let s = match tokio::time::timeout_at(born + cfg.stall, TcpStream::connect(cfg.addr())).await {
            Err(_) => return Err(connect_late(cfg)),
            Ok(Err(e)) => return Err(connect_error(cfg, e)),
            Ok(Ok(s)) => s,
        };
        s.set_nodelay(true)
            .map_err(|e| Error::Env(format!("cannot set up the connection to 127.0.0.1:{}: {e}", cfg.port)))?;
        Ok(Conn { s, wire: Wire::new(cfg.port), stall: cfg.stall, born: Some(born) })
    }

    /// GET path, request `step` of chain i: the next path, checked.
    pub async fn get(&mut self, i: u64, step: u64, path: &[u8]) -> Result<Body, Error> {
        let deadline = self.born.take().unwrap_or_else(Instant::now) + self.stall;
        match tokio::time::timeout_at(deadline, self.exchange(i, step, path)).await {
            Ok(r) => r,
            Err(_) => Err(self.wire.broken(Broken::Stalled)),
        }
    }

    async fn exchange(&mut self, i: u64, step: u64, path: &[u8]) -> Result<Body, Error> {
        let req = self.wire.request(i, step, path);
        if let Err(e) = self.s.write_all(req).await {
            return Err(self.wire.broken(broken(e)));
        }
        loop {
            match self.s.read(self.wire.space()?).await {
                Ok(n) => {
                    if let Some(next) = self.wire.filled(n)? {
                        return Ok(next);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.wire.broken(broken(e))),
            }
        }
    }

    /// The same GET taking the connection and handing it back with the next
    /// path, for a chain of combinators.
    pub async fn into_get(mut self, i: u64, step: u64, path: Body) -> Result<(Conn, Body), Error> {
        let next = self.get(i, step, path.as_bytes()).await?;
        Ok((self, next))
    }
}
