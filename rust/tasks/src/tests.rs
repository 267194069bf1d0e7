use super::*;
use contract::Pass;

fn cfg(ms: &str) -> Config {
    let mut v = Values::defaults(&flags());
    v.set("--sleep-ms", ms);
    let f = Fields { workload: "tasks", style: "await", shape: "", mode: PARALLEL, backend: BACKEND };
    check(&v, &f).unwrap()
}

#[test]
fn every_variant_completes_n_tasks_after_their_sleep() {
    for ms in ["0", "20"] {
        let cfg = cfg(ms);
        for v in variants() {
            let mut p = Pass::new(1000, 0);
            let t0 = Instant::now();
            let out = (v.run)(&cfg, &mut p).unwrap_or_else(|e| panic!("{}: {e}", v.style));
            assert_eq!(out.ok, 1000, "{}", v.style);
            assert!(t0.elapsed() >= cfg.sleep, "{} finished before its sleep", v.style);
            assert!(matches!(out.extra[..], [("start_ns", Value::U(s))] if s > 0));
        }
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    let cfg = cfg("1");
    for (style, run) in [("await", awaits::run as fn(&Config, &mut Pass, u64) -> _), ("promise", promise::run)] {
        let err = run(&cfg, &mut Pass::new(10, 0), 5).expect_err(style);
        assert_eq!(err, Error::failure(9, "the task completed with 14, expected 9"), "{style}");
    }
}

#[test]
fn sleep_ms_is_checked() {
    let mut v = Values::defaults(&flags());
    let f = Fields { workload: "tasks", style: "await", shape: "", mode: PARALLEL, backend: BACKEND };
    v.set("--sleep-ms", "5s");
    assert!(matches!(check(&v, &f), Err(Error::Usage(m)) if m == "--sleep-ms must be an integer from 0 to 86400000, got \"5s\""));
}
