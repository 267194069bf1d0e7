//! One keep-alive connection's bytes, whoever reads them: the request of a
//! GET, the response read into a buffer a connection owns and parsed with
//! httparse, and the checks of DESIGN section 9.  The sync connection
//! (`sync.rs`) and tokio's (`client.rs`) differ only in how they read and
//! wait; what a response must be is decided here, once.
//!
//! A response must be HTTP/1.x with a Content-Length of at most
//! [`MAX_BODY`] bytes (every right body is 2), a 200 whose body is the next
//! path.  The buffer holds one response: bytes past its end, in the same read
//! or before the next response (a server that writes to an idle
//! connection), are a protocol error, never the next answer.

use contract::{quote, Error};

/// Requests in one chain, the path each chain starts with and ends at.
pub const CHAIN_LEN: u64 = 3;
pub const FIRST: &[u8] = b"/a";
pub const LAST: &[u8] = b"/d";
/// Longest response body a client accepts, as C's HC_MAX_BODY.
pub const MAX_BODY: usize = 64;
/// Bytes a response may take in all (its head and body).
const BUF: usize = 4096;
/// Header lines a response may have (the C, Go and Node servers send 2 to 5).
const MAX_HEADERS: usize = 16;

/// Why a run that does not get its responses in time fails (exit 3).
pub const STALLED: &str = "no complete response within --stall-ms (the server does not answer, or not in full)";

/// The body the server answers for path, or None: a 404.
pub fn next_path(path: &[u8]) -> Option<&'static [u8]> {
    match path {
        b"/a" => Some(b"/b"),
        b"/b" => Some(b"/c"),
        b"/c" => Some(b"/d"),
        _ => None,
    }
}

/// A body or path, kept without an allocation.
#[derive(Clone, Copy)]
pub struct Body {
    len: u8,
    buf: [u8; MAX_BODY],
}

impl Body {
    /// b, at most MAX_BODY bytes (the wire refuses a longer body first).
    pub fn new(b: &[u8]) -> Body {
        let mut body = Body { len: b.len() as u8, buf: [0; MAX_BODY] };
        body.buf[..b.len()].copy_from_slice(b);
        body
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }
}

/// How a GET ended before its response was whole.
pub enum Broken {
    /// The server closed the connection (exit 1).
    Closed,
    /// The response was not complete within --stall-ms (exit 3).
    Stalled,
    /// A read or write failed (exit 1).
    Io(std::io::Error),
}

/// A connection's request and response buffers and the GET in flight.
pub struct Wire {
    buf: Box<[u8; BUF]>,
    len: usize,
    req: Vec<u8>,
    /// " HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n", after the path.
    tail: Vec<u8>,
    i: u64,
    step: u64,
    path: Body,
}

impl Wire {
    pub fn new(port: u16) -> Wire {
        Wire {
            buf: Box::new([0; BUF]),
            len: 0,
            req: Vec::with_capacity(128),
            tail: format!(" HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").into_bytes(),
            i: 0,
            step: 0,
            path: Body::new(FIRST),
        }
    }

    /// Starts GET path, request `step` (0-based) of chain i: the bytes to send.
    pub fn request(&mut self, i: u64, step: u64, path: &[u8]) -> &[u8] {
        self.i = i;
        self.step = step;
        self.path = Body::new(&path[..path.len().min(MAX_BODY)]);
        self.req.clear();
        self.req.extend_from_slice(b"GET ");
        self.req.extend_from_slice(path);
        self.req.extend_from_slice(&self.tail);
        &self.req
    }

    /// The failure of the GET in flight: "request 2 (GET /b): why".
    pub fn fail(&self, why: impl std::fmt::Display) -> Error {
        Error::failure(self.i, format!("request {} (GET {}): {why}", self.step + 1, quote(self.path.as_bytes())))
    }

    /// The error of a GET that ended before its response did.
    pub fn broken(&self, how: Broken) -> Error {
        match how {
            Broken::Closed => self.fail("the server closed the connection before the response ended"),
            Broken::Stalled => Error::Env(format!(
                "iteration {}: request {} (GET {}): {STALLED}",
                self.i,
                self.step + 1,
                quote(self.path.as_bytes())
            )),
            Broken::Io(e) => self.fail(e),
        }
    }

    /// Where the next read goes.
    pub fn space(&mut self) -> Result<&mut [u8], Error> {
        if self.len == BUF {
            return Err(self.fail(format_args!("the response is longer than {BUF} bytes")));
        }
        Ok(&mut self.buf[self.len..])
    }

    /// n more bytes were read into space(): the next path once the response
    /// is whole and right, None while it is not whole, or the failure.
    pub fn filled(&mut self, n: usize) -> Result<Option<Body>, Error> {
        if n == 0 {
            return Err(self.broken(Broken::Closed));
        }
        self.len += n;
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut res = httparse::Response::new(&mut headers);
        let head = match res.parse(&self.buf[..self.len]) {
            Ok(httparse::Status::Partial) => return Ok(None),
            Ok(httparse::Status::Complete(head)) => head,
            Err(e) => return Err(self.fail(format_args!("the response is not HTTP/1.1 the client can parse ({e})"))),
        };
        let mut length = None;
        for h in res.headers.iter() {
            if h.name.eq_ignore_ascii_case("content-length") {
                let digits = std::str::from_utf8(h.value).ok().filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
                match digits.and_then(|s| s.parse::<usize>().ok()) {
                    Some(n) if length.is_none() || length == Some(n) => length = Some(n),
                    _ => return Err(self.fail("the response is not HTTP/1.1 the client can parse (a bad Content-Length)")),
                }
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                return Err(self.fail("the response has a Transfer-Encoding: the client reads bodies of a stated Content-Length"));
            }
        }
        let Some(length) = length else {
            return Err(self.fail("the response has no Content-Length"));
        };
        if length > MAX_BODY {
            return Err(self.fail("the response body is too long"));
        }
        let end = head + length;
        if self.len < end {
            return Ok(None);
        }
        if self.len > end {
            return Err(self.fail("the server broke the protocol: bytes after the response's end"));
        }
        let status = res.code.unwrap_or(0);
        self.len = 0;
        let body = &self.buf[head..end];
        if status != 200 {
            return Err(self.fail(format_args!("status {status}, expected 200")));
        }
        let want = next_path(self.path.as_bytes());
        if want != Some(body) {
            let want = want.map(|w| String::from_utf8_lossy(w).into_owned()).unwrap_or_else(|| "(none)".into());
            return Err(self.fail(format_args!("body \"{}\", expected \"{want}\"", quote(body))));
        }
        Ok(Some(Body::new(body)))
    }
}

/// The check of a chain of `requests` verified responses whose last body is
/// last: the bytes it moved (its three bodies), or the failure.
pub fn chain_done(i: u64, requests: u64, last: &Body) -> Result<u64, Error> {
    if requests != CHAIN_LEN || last.as_bytes() != LAST {
        return Err(Error::failure(
            i,
            format!(
                "the chain ended after {requests} requests at \"{}\", expected {CHAIN_LEN} at \"/d\"",
                quote(last.as_bytes())
            ),
        ));
    }
    Ok(CHAIN_LEN * 2)
}
