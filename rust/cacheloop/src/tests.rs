use super::*;
use contract::{Pass, Value};

fn cfg(content: &str, tag: &str) -> Config {
    let file = std::env::temp_dir().join(format!("rust-cacheloop-test-{}-{}-{}.txt", std::process::id(), content.len(), tag));
    std::fs::write(&file, content).unwrap();
    Config { file: file.to_str().unwrap().into(), size: content.len() as u64, rt: Some(contract::pool::runtime_with_pool().unwrap()) }
}

#[test]
fn every_variant_hits_n_minus_one_times_and_misses_once() {
    let cfg = cfg("Hello, world", "ok");
    for v in variants() {
        let mut p = Pass::new(100, 1);
        let out = (v.run)(&cfg, &mut p).unwrap_or_else(|e| panic!("{}: {e}", v.style));
        assert!(p.started().is_some());
        assert_eq!((out.ok, out.bytes), (100, 1200), "{}", v.style);
        assert_eq!(out.extra, vec![("hits", Value::U(99)), ("misses", Value::U(1)), ("file_bytes", Value::U(12))]);
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    // The file the config says is 13 bytes long is 12: the first load fails.
    let mut cfg = cfg("Hello, world", "wrong");
    cfg.size = 13;
    for v in variants() {
        let err = (v.run)(&cfg, &mut Pass::new(5, 1)).expect_err(v.style);
        assert_eq!(err, Error::failure(0, "load returned 12 bytes, expected the file's 13"), "{}", v.style);
    }
}

#[test]
fn a_file_that_goes_away_fails_the_miss_naming_the_iteration() {
    let mut cfg = cfg("abc", "gone");
    cfg.file.push_str(".gone");
    for v in variants() {
        let err = (v.run)(&cfg, &mut Pass::new(3, 1)).expect_err(v.style);
        assert!(err.to_string().starts_with("iteration 0: load failed"), "{}: {err}", v.style);
    }
}
