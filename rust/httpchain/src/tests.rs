use super::*;
use contract::Pass;
use std::io::{Read, Write};
use std::net::TcpListener;

/// A server on a port of its own, on a thread, answering every GET as `answer`
/// says (None: never answers); it runs until the test process ends.
fn serve(answer: fn(&[u8]) -> Option<Vec<u8>>) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut conn) = conn else { return };
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                loop {
                    let Ok(n) = conn.read(&mut chunk) else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head: Vec<u8> = buf.drain(..end + 4).collect();
                        let path = head.split(|&b| b == b' ').nth(1).unwrap_or(b"").to_vec();
                        if let Some(out) = answer(&path) {
                            if conn.write_all(&out).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    });
    port
}

fn ok(body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
    r.extend_from_slice(body);
    r
}

fn right(path: &[u8]) -> Option<Vec<u8>> {
    Some(match wire::next_path(path) {
        Some(b) => ok(b),
        None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found".to_vec(),
    })
}

fn cfg(port: u16, stall: &str) -> Config {
    let mut v = Values::defaults(&flags());
    v.set("--port", &port.to_string());
    v.set("--stall-ms", stall);
    let f = Fields { workload: "httpchain", style: "await", shape: "", mode: SEQUENTIAL, backend: BACKENDS[0] };
    check(&v, &f).unwrap()
}

/// Every variant's error against a server answering as `answer` does.
fn failures(answer: fn(&[u8]) -> Option<Vec<u8>>, stall: &str) -> Vec<(&'static str, Error)> {
    let cfg = cfg(serve(answer), stall);
    variants(BACKENDS[0]).into_iter().map(|v| (v.style, (v.run)(&cfg, &mut Pass::new(3, 1)).expect_err(v.style))).collect()
}

#[test]
fn every_variant_runs_and_checks_n_chains() {
    let cfg = cfg(serve(right), "10000");
    for v in variants(BACKENDS[1]) {
        let mut p = Pass::new(50, 4);
        let out = (v.run)(&cfg, &mut p).unwrap_or_else(|e| panic!("{}: {e}", v.style));
        assert!(p.started().is_some() && out.done.is_some(), "{}", v.style);
        assert_eq!((out.ok, out.bytes), (50, 300), "{}", v.style);
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    for (style, e) in failures(|_| Some(ok(b"/x")), "10000") {
        assert_eq!(e, Error::failure(0, "request 1 (GET /a): body \"/x\", expected \"/b\""), "{style}");
    }
    // Right until the last request of the first chain.
    for (style, e) in failures(|p| if p == b"/c" { Some(ok(b"/e")) } else { right(p) }, "10000") {
        assert_eq!(e, Error::failure(0, "request 3 (GET /c): body \"/e\", expected \"/d\""), "{style}");
    }
}

#[test]
fn a_404_and_bytes_after_a_response_fail_verification_and_a_short_body_stalls() {
    for (style, e) in failures(|_| Some(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found".to_vec()), "10000") {
        assert_eq!(e, Error::failure(0, "request 1 (GET /a): status 404, expected 200"), "{style}");
    }
    for (style, e) in failures(|p| right(p).map(|mut r| {
        r.extend_from_slice(b"junk");
        r
    }), "10000") {
        assert_eq!(e, Error::failure(0, "request 1 (GET /a): the server broke the protocol: bytes after the response's end"), "{style}");
    }
    for (style, e) in failures(|_| Some(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n/".to_vec()), "300") {
        // The server never finishes the body: the deadline ends the run.
        assert_eq!(e.code(), contract::EXIT_ENV, "{style}: {e}");
    }
}

#[test]
fn a_server_that_never_answers_is_the_environments_fault_after_stall_ms() {
    for (style, e) in failures(|_| None, "200") {
        assert_eq!(e, Error::Env(format!("iteration 0: request 1 (GET /a): {}", wire::STALLED)), "{style}");
    }
}

#[test]
fn check_refuses_a_bad_port_stall_or_backend_and_a_port_nothing_answers_on() {
    let f = Fields { workload: "httpchain", style: "sync", shape: "", mode: SEQUENTIAL, backend: BACKENDS[0] };
    for (flag, value, says) in [
        ("--port", "", "--port"),
        ("--port", "0", "--port"),
        ("--port", "70000", "--port"),
        ("--port", "+80", "--port"),
        ("--stall-ms", "0", "--stall-ms"),
        ("--backend", "nowhere.keepalive", "--backend"),
    ] {
        let mut v = Values::defaults(&flags());
        v.set("--port", "1");
        v.set(flag, value);
        match check(&v, &f) {
            Err(Error::Usage(m)) => assert!(m.contains(says), "{flag} {value}: {m}"),
            Err(e) => panic!("{flag} {value}: {e:?}"),
            Ok(_) => panic!("{flag} {value}: accepted"),
        }
    }
    let mut v = Values::defaults(&flags());
    v.set("--port", "1");
    match check(&v, &f) {
        Err(Error::Env(m)) => assert!(m.starts_with("cannot connect to 127.0.0.1:1: "), "{m}"),
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn the_backend_is_the_last_known_one_given() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(backend_arg(&args(&[])), "cserver.keepalive");
    assert_eq!(backend_arg(&args(&["--backend", "goserver.keepalive"])), "goserver.keepalive");
    assert_eq!(backend_arg(&args(&["--backend=nodeserver.keepalive", "--port", "9"])), "nodeserver.keepalive");
    assert_eq!(backend_arg(&args(&["--backend", "goserver.keepalive", "--backend", "x"])), "cserver.keepalive");
}
