use super::*;
use contract::Pass;

fn cfg(expect: &str, tag: &str) -> Config {
    // A file a test: the tests run at once, and a rewrite would be read half-done.
    let file = std::env::temp_dir().join(format!("rust-readfile-test-{}-{tag}.txt", std::process::id()));
    std::fs::write(&file, "Hello, world").unwrap();
    Config { file: file.to_str().unwrap().into(), expect: expect.as_bytes().to_vec(), rt: Some(contract::pool::runtime_with_pool().unwrap()) }
}

#[test]
fn every_variant_reads_and_checks_n_times() {
    let cfg = cfg("Hello, world", "ok");
    for v in variants() {
        let mut p = Pass::new(100, 7);
        let out = (v.run)(&cfg, &mut p).unwrap_or_else(|e| panic!("{} {}: {e}", v.style, v.mode));
        assert!(p.started().is_some());
        assert_eq!((out.ok, out.bytes), (100, 1200), "{} {}", v.style, v.mode);
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    let cfg = cfg("Hello, worlD", "wrong");
    for v in variants() {
        let err = (v.run)(&cfg, &mut Pass::new(5, 2)).expect_err(v.style);
        match err {
            Error::Failure { iteration, reason } => {
                assert!(iteration < 5);
                assert_eq!(reason, "read 12 bytes 'Hello, world', expected 12 bytes 'Hello, worlD'", "{} {}", v.style, v.mode)
            }
            e => panic!("{} {}: {e:?}", v.style, v.mode),
        }
    }
}

#[test]
fn a_file_that_goes_away_fails_the_read_naming_it() {
    let mut cfg = cfg("Hello, world", "gone");
    cfg.file.push_str(".gone");
    for v in variants() {
        let err = (v.run)(&cfg, &mut Pass::new(3, 2)).expect_err(v.style);
        assert!(err.to_string().contains("read failed"), "{} {}: {err}", v.style, v.mode);
    }
}
