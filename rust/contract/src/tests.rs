use super::*;

/// A workload of the tests: each operation "returns" its index, and the
/// configuration says which iteration answers wrong (none by default).
struct Cfg {
    wrong_at: Option<u64>,
}

fn count_up(cfg: &Cfg, p: &mut Pass) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    p.begin();
    for i in 0..p.n {
        let got = if cfg.wrong_at == Some(i) { i + 1 } else { i };
        if got != i {
            return Err(Error::failure(i, format!("returned {got}, expected {i}")));
        }
        out.ok += 1;
        out.bytes += 2;
    }
    out.extra.push(("last", Value::U(p.n - 1)));
    Ok(out)
}

fn never_begins(_: &Cfg, p: &mut Pass) -> Result<Outcome, Error> {
    Ok(Outcome { ok: p.n, ..Outcome::default() })
}

fn short(_: &Cfg, p: &mut Pass) -> Result<Outcome, Error> {
    p.begin();
    Ok(Outcome { ok: p.n - 1, ..Outcome::default() })
}

fn check(v: &Values, _: &Fields) -> Result<Cfg, Error> {
    match v.get("--wrong-at") {
        "none" => Ok(Cfg { wrong_at: None }),
        "missing" => Err(Error::Env("fixture missing is missing".into())),
        t => Ok(Cfg { wrong_at: Some(count("--wrong-at", t, 0)?) }),
    }
}

fn workload() -> Workload<Cfg> {
    Workload {
        name: "fake",
        flags: vec![Flag { name: "--wrong-at", default: "none", arg: "I", about: "the iteration that answers wrong" }],
        check,
        variants: vec![
            Variant { style: "sync", shape: "", mode: SEQUENTIAL, backend: "none", run: count_up },
            Variant { style: "await", shape: "counter", mode: BOUNDED, backend: "none", run: count_up },
            Variant { style: "sync", shape: "nobegin", mode: SEQUENTIAL, backend: "none", run: never_begins },
            Variant { style: "sync", shape: "short", mode: SEQUENTIAL, backend: "none", run: short },
        ],
    }
}

fn fixed_usage() -> Usage {
    Usage { user_us: 7, sys_us: 3, peak_rss_kb: 1000 }
}

struct Ran {
    code: i32,
    out: String,
    err: String,
}

fn run_with(args: &[&str], stdin: &str, closed: bool) -> Ran {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut input = io::Cursor::new(stdin.as_bytes().to_vec());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = Io { stdin: &mut input, stdout: &mut out, stderr: &mut err, stdout_closed: closed, read_usage: fixed_usage };
    let code = run_io(&workload(), &args, &mut io);
    Ran { code, out: String::from_utf8(out).unwrap(), err: String::from_utf8(err).unwrap() }
}

fn run(args: &[&str]) -> Ran {
    run_with(args, "", false)
}

/// The line's keys in their order (the values are plain: no nested braces
/// but the passes' list).
fn keys(line: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("\":") {
        let head = &rest[..i];
        let start = head.rfind('"').unwrap();
        keys.push(head[start + 1..].to_string());
        rest = &rest[i + 2..];
    }
    keys
}

fn field<'a>(line: &'a str, name: &str) -> &'a str {
    let pat = format!("\"{name}\":");
    let i = line.find(&pat).unwrap_or_else(|| panic!("no {name} in {line}")) + pat.len();
    let rest = &line[i..];
    let end = if rest.starts_with('[') { rest.find(']').unwrap() + 1 } else { rest.find([',', '}']).unwrap() };
    &rest[..end]
}

#[test]
fn a_valid_run_prints_one_line_with_the_contracts_fields_in_order() {
    let r = run(&["--iterations", "5", "--warmup=2"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.err.is_empty());
    assert!(r.out.ends_with("}\n") && r.out.matches('\n').count() == 1);
    let want = [
        "workload", "lang", "style", "shape", "mode", "method", "backend", "variant", "iterations", "concurrency",
        "ok", "bytes", "elapsed_ns", "user_us", "sys_us", "peak_rss_kb", "idle_rss_kb", "runtime", "last",
        "preclock_heap_bytes", "preclock_faults", "warmup_ns", "passes_elapsed_ns",
    ];
    assert_eq!(keys(&r.out), want);
    assert_eq!(field(&r.out, "variant"), "\"fake/rust/sync-sequential@none\"");
    assert_eq!(field(&r.out, "lang"), "\"rust\"");
    assert_eq!(field(&r.out, "ok"), "5");
    assert_eq!(field(&r.out, "bytes"), "10");
    assert_eq!(field(&r.out, "last"), "4");
    assert_eq!(field(&r.out, "concurrency"), "1");
    assert_eq!(field(&r.out, "user_us"), "0");
    assert_eq!(field(&r.out, "peak_rss_kb"), "1000");
    assert!(field(&r.out, "runtime").starts_with("\"rustc "));
    assert_ne!(field(&r.out, "warmup_ns"), "0");
    let elapsed = field(&r.out, "elapsed_ns");
    assert_eq!(field(&r.out, "passes_elapsed_ns"), format!("[{elapsed}]"));
}

#[test]
fn passes_are_listed_the_first_being_elapsed_ns() {
    let r = run(&["--iterations", "3", "--passes", "4"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let list = field(&r.out, "passes_elapsed_ns");
    let times: Vec<&str> = list.trim_matches(['[', ']']).split(',').collect();
    assert_eq!(times.len(), 4);
    assert_eq!(times[0], field(&r.out, "elapsed_ns"));
    assert!(times.iter().all(|t| t.parse::<u64>().unwrap() > 0));
    assert_eq!(field(&r.out, "warmup_ns"), "0");
}

#[test]
fn bounded_reports_its_k_the_default_bound_and_n_when_smaller() {
    let r = run(&["--variant", "await-counter-bounded", "--iterations", "100", "--concurrency", "3"]);
    assert_eq!(field(&r.out, "concurrency"), "3");
    let r = run(&["--variant", "await-counter-bounded", "--iterations", "100"]);
    assert_eq!(field(&r.out, "concurrency"), "64");
    let r = run(&["--variant", "await-counter-bounded", "--iterations", "10"]);
    assert_eq!(field(&r.out, "concurrency"), "10");
}

#[test]
fn bad_inputs_are_usage_errors_with_one_line_then_the_usage() {
    let table: &[(&[&str], &str)] = &[
        (&["--iterations", "0"], "--iterations must be a positive integer, got \"0\""),
        (&["--iterations", "-5"], "--iterations must be a positive integer, got \"-5\""),
        (&["--iterations", "abc"], "--iterations must be a positive integer, got \"abc\""),
        (&["--iterations", "0x10"], "--iterations must be a positive integer, got \"0x10\""),
        (&["--iterations", " 5"], "--iterations must be a positive integer"),
        (&["--iterations", "+5"], "--iterations must be a positive integer"),
        (&["--iterations", "99999999999999999999999"], "--iterations must be a positive integer"),
        (&["--iterations="], "--iterations must be a positive integer, got \"\""),
        (&["--iterations"], "--iterations needs a value"),
        (&["--frobnicate", "1"], "unknown flag \"--frobnicate\""),
        (&["-iterations", "1"], "unexpected argument \"-iterations\""),
        (&["--concurrency", "-1"], "--concurrency must be a non-negative integer, got \"-1\""),
        (&["--warmup", "-1"], "--warmup must be a non-negative integer, got \"-1\""),
        (&["--passes", "0"], "--passes must be an integer from 1 to 10000, got \"0\""),
        (&["--passes", "10001"], "--passes must be an integer from 1 to 10000, got \"10001\""),
        (&["--lockstep", "2"], "--lockstep must be an integer from 0 to 1, got \"2\""),
        (&["--lockstep", "1", "--passes", "2"], "--lockstep runs one pass a command: --passes must be 1"),
        (&["extra"], "unexpected argument \"extra\""),
        (&["--variant", "nope-parallel"], "unknown variant \"nope-parallel\""),
        (&["--wrong-at", "x"], "--wrong-at must be a non-negative integer, got \"x\""),
    ];
    for (args, says) in table {
        let r = run(args);
        assert_eq!(r.code, EXIT_USAGE, "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?}: {}", r.out);
        let first = r.err.lines().next().unwrap();
        assert!(first.starts_with("rust-fake: ") && first.contains(says), "{args:?}: {first}");
        assert!(r.err.contains("usage: rust-fake"), "{args:?}");
    }
}

#[test]
fn a_leading_zero_is_a_decimal_digit() {
    let r = run(&["--iterations", "010"]);
    assert_eq!(field(&r.out, "iterations"), "10");
}

#[test]
fn help_goes_to_stdout_and_lists_the_variants_and_flags() {
    let r = run(&["--help"]);
    assert_eq!(r.code, 0);
    assert!(r.out.starts_with("usage: rust-fake "));
    for word in ["await-counter-bounded", "sync-sequential", "--wrong-at", "exit codes"] {
        assert!(r.out.contains(word), "{word}");
    }
    assert!(r.err.is_empty());
}

#[test]
fn a_wrong_result_is_exit_1_naming_the_iteration_in_the_pass_that_has_it() {
    let r = run(&["--iterations", "5", "--wrong-at", "3"]);
    assert_eq!(r.code, EXIT_VERIFY);
    assert!(r.out.is_empty());
    assert_eq!(r.err, "rust-fake: fake/rust/sync-sequential@none iteration 3: returned 4, expected 3\n");
    // In the warm-up, the warm-up is named.
    let r = run(&["--iterations", "2", "--warmup", "5", "--wrong-at", "3"]);
    assert_eq!(r.code, EXIT_VERIFY);
    assert!(r.err.contains("warm-up iteration 3"), "{}", r.err);
}

#[test]
fn a_variant_that_never_begins_or_verifies_too_few_fails() {
    let r = run(&["--variant", "sync-nobegin-sequential", "--iterations", "3"]);
    assert_eq!(r.code, EXIT_VERIFY);
    assert!(r.err.contains("never started its clock"), "{}", r.err);
    let r = run(&["--variant", "sync-short-sequential", "--iterations", "3"]);
    assert_eq!(r.code, EXIT_VERIFY);
    assert!(r.err.contains("verified 2 of 3 operations"), "{}", r.err);
}

#[test]
fn an_environment_error_of_the_check_is_exit_3_without_usage() {
    let r = run(&["--wrong-at", "missing"]);
    assert_eq!(r.code, EXIT_ENV);
    assert_eq!(r.err, "rust-fake: fixture missing is missing\n");
}

#[test]
fn a_closed_stdout_is_exit_3_before_anything_runs() {
    let r = run_with(&["--wrong-at", "0"], "", true);
    assert_eq!(r.code, EXIT_ENV);
    assert!(r.err.contains("stdout is closed"), "{}", r.err);
}

#[test]
fn lockstep_runs_a_pass_per_command_and_ends_with_the_process_figures() {
    let r = run_with(&["--iterations", "4", "--warmup", "2", "--lockstep", "1"], "pass\npass\r\nend\n", false);
    assert_eq!(r.code, 0, "{}", r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines.len(), 4, "{}", r.out);
    assert!(lines[0].starts_with("{\"lockstep\":\"ready\",\"warmup_ns\":"));
    assert_ne!(field(lines[0], "warmup_ns"), "0");
    for l in &lines[1..3] {
        assert_eq!(field(l, "ok"), "4");
        assert_eq!(field(l, "passes_elapsed_ns"), format!("[{}]", field(l, "elapsed_ns")));
    }
    assert_eq!(lines[3], "{\"lockstep\":\"end\",\"passes\":2,\"user_us\":7,\"sys_us\":3,\"peak_rss_kb\":1000}");
}

#[test]
fn lockstep_ends_at_a_closed_stdin_and_refuses_a_bad_or_long_command() {
    let r = run_with(&["--lockstep", "1", "--iterations", "2"], "", false);
    assert_eq!((r.code, r.out.lines().count()), (0, 1));
    let r = run_with(&["--lockstep", "1", "--iterations", "2"], "pass\nfrobnicate\npass\n", false);
    assert_eq!(r.code, EXIT_USAGE);
    assert_eq!(r.out.lines().count(), 2);
    assert_eq!(r.err, "rust-fake: lockstep: unknown command \"frobnicate\" (pass or end)\n");
    let long = format!("pass{}\n", "x".repeat(300));
    let r = run_with(&["--lockstep", "1", "--iterations", "2"], &long, false);
    assert_eq!(r.code, EXIT_USAGE);
    assert!(r.err.contains("lockstep: unknown command") && r.err.lines().count() == 1, "{}", r.err);
    // 64 bytes exactly is read whole (and is not a command).
    let r = run_with(&["--lockstep", "1", "--iterations", "2"], &format!("{}\n", "y".repeat(64)), false);
    assert!(r.err.contains(&"y".repeat(64)), "{}", r.err);
}

#[test]
fn a_lockstep_pass_that_fails_is_exit_1_naming_the_pass() {
    let r = run_with(&["--lockstep", "1", "--iterations", "2", "--wrong-at", "1"], "pass\n", false);
    assert_eq!(r.code, EXIT_VERIFY);
    assert_eq!(r.out.lines().count(), 1);
    assert!(r.err.contains("lockstep pass 1: iteration 1"), "{}", r.err);
}

#[test]
fn the_id_rule_and_quote() {
    let f = Fields { workload: "readfile", style: "await", shape: "", mode: PARALLEL, backend: "tokio::fs" };
    assert_eq!(f.id(), "readfile/rust/await-parallel@tokio::fs");
    assert_eq!(quote(b"a\nb\x01\\"), "a\\nb\\x01\\\\");
    assert_eq!(quote(&[b'z'; 50]), format!("{}...", "z".repeat(40)));
    let mut s = String::new();
    json_string(&mut s, "q\"\u{1}");
    assert_eq!(s, "\"q\\\"\\u0001\"");
}

#[test]
fn check_fixture_names_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("contract-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f.txt");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(check_fixture(file.to_str().unwrap(), "--file"), Ok(()));
    let e = check_fixture(dir.to_str().unwrap(), "--file").unwrap_err();
    assert!(e.to_string().contains("is a directory"));
    let e = check_fixture("nope/missing.txt", "--file").unwrap_err();
    assert_eq!(e.code(), EXIT_ENV);
    assert!(e.to_string().contains("nope/missing.txt is missing"));
    std::fs::remove_dir_all(&dir).unwrap();
}
