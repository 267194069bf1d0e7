use super::*;
use contract::Pass;

fn cfg(ms: &str, queries: &str) -> Config {
    let mut v = Values::defaults(&flags());
    v.set("--delay-ms", ms);
    v.set("--queries", queries);
    let f = Fields { workload: "doxbee", style: "await", shape: "sequential", mode: PARALLEL, backend: BACKEND };
    check(&v, &f).unwrap()
}

#[test]
fn every_variant_commits_each_upload_once_with_every_result_checked() {
    for ms in ["0", "1"] {
        let cfg = cfg(ms, "5");
        for v in variants() {
            let out = (v.run)(&cfg, &mut Pass::new(40, 0)).unwrap_or_else(|e| panic!("{} {}: {e}", v.style, v.shape));
            let per = if v.shape == "parallel" { 6 } else { 8 };
            assert_eq!(out.ok, 40);
            assert_eq!(
                out.extra,
                vec![("commits", Value::U(40)), ("checked", Value::U(40 * per)), ("ops_per_upload", Value::U(per))],
                "{} {}",
                v.style,
                v.shape
            );
        }
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    let mut cfg = cfg("0", "3");
    cfg.p.wrong_commit_of = 17;
    let want = expected(17, COMMIT, 0);
    for v in variants() {
        let err = (v.run)(&cfg, &mut Pass::new(40, 0)).expect_err(v.style);
        assert_eq!(err, Error::failure(17, format!("commit 0 returned {}, expected {want}", want + 1)), "{} {}", v.style, v.shape);
    }
}

#[test]
fn flags_are_checked() {
    let f = Fields { workload: "doxbee", style: "await", shape: "sequential", mode: PARALLEL, backend: BACKEND };
    let mut v = Values::defaults(&flags());
    v.set("--queries", "0");
    assert!(matches!(check(&v, &f), Err(Error::Usage(m)) if m.starts_with("--queries must be an integer from 1 to 1000000")));
    v.set("--queries", "25");
    v.set("--delay-ms", "86400001");
    assert!(matches!(check(&v, &f), Err(Error::Usage(m)) if m == "--delay-ms must be an integer from 0 to 86400000, got \"86400001\""));
}
