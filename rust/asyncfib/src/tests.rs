use super::*;
use contract::{Pass, Value};

fn run(cfg: &Config, v: &Variant<Config>, n: u64) -> Result<contract::Outcome, Error> {
    let mut p = Pass::new(n, 1);
    let out = (v.run)(cfg, &mut p);
    assert!(p.started().is_some(), "{} {} never began", v.style, v.shape);
    out
}

#[test]
fn every_variant_makes_the_seeds_calls_and_checksum() {
    let cfg = Config::new(10, 10, true);
    for v in variants() {
        let out = run(&cfg, &v, 3).unwrap_or_else(|e| panic!("{} {}: {e}", v.style, v.shape));
        assert_eq!(out.ok, 3);
        let calls = if v.shape == "recursive" { 3 * 276 } else { 30 };
        // fib(0..9) = 1 1 2 3 5 8 13 21 34 55, 143 a repetition.
        assert_eq!(out.extra, vec![("calls", Value::U(calls)), ("checksum", Value::U(3 * 143))], "{} {}", v.style, v.shape);
        assert!(out.done.is_some());
    }
}

#[test]
fn a_wrong_result_fails_verification_in_every_variant() {
    // The table says fib(7) is 20: every variant computes 21 and must fail
    // on repetition 0, naming the call.
    let mut cfg = Config::new(10, 10, true);
    cfg.table[7] = 20;
    for v in variants() {
        let err = run(&cfg, &v, 3).expect_err(v.style);
        assert_eq!(err, Error::failure(0, "fib(7) returned 21, expected 20"), "{} {}", v.style, v.shape);
    }
}

#[test]
fn m_bounds_are_usage_errors() {
    let f = Fields { workload: "asyncfib", style: "sync", shape: "recursive", mode: SEQUENTIAL, backend: "none" };
    let mut vals = Values::defaults(&flags());
    vals.set("--max-recursive", "41");
    assert!(matches!(check(&vals, &f), Err(Error::Usage(m)) if m.contains("--max-recursive must be an integer from 1 to 40")));
    vals.set("--max-recursive", "40");
    vals.set("--max-iterative", "79");
    assert!(matches!(check(&vals, &f), Err(Error::Usage(m)) if m.contains("--max-iterative must be an integer from 1 to 78")));
    vals.set("--max-iterative", "78");
    let cfg = check(&vals, &f).unwrap();
    assert!(cfg.rt.is_none(), "a sync variant starts no runtime");
    assert_eq!(cfg.table[77], 8944394323791464);
}
