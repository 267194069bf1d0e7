package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fake is a workload whose operations complete at once; it records every pass
// it is asked for and fails as told.
type fake struct {
	passes   [][2]int // n and k of each call of Run
	failAt   int      // iteration that fails; -1: none
	short    bool     // report one verified operation fewer than asked
	checkErr error    // what Check returns
	runErr   error    // what every pass returns, when set
	level    string   // the workload's own flag --level
	seen     string   // --level as Check saw it
	extra    []Extra
}

func newFake() *fake { return &fake{failAt: -1} }

func (f *fake) workload() Workload {
	return Workload{
		Name:    "fake",
		Backend: "mem",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.level, "level", "low", "how hard to try, a `LEVEL`")
		},
		Check: func() error { f.seen = f.level; return f.checkErr },
		Variants: []Variant{
			{Style: "sync", Mode: Sequential, Run: f.run},
			{Style: "callback", Shape: "counter", Mode: Parallel, Run: f.run},
			{Style: "callback", Mode: Bounded, Run: f.run},
		},
	}
}

func (f *fake) run(p *Pass) (Result, error) {
	n, k := p.N, p.K
	f.passes = append(f.passes, [2]int{n, k})
	p.Begin()
	if f.runErr != nil {
		return Result{}, f.runErr
	}
	if f.failAt >= 0 && f.failAt < n {
		return Result{OK: f.failAt}, &Failure{Iteration: f.failAt, Reason: "completed with 99"}
	}
	ok := n
	if f.short {
		ok--
	}
	return Result{OK: ok, Bytes: 2 * int64(ok), Extra: f.extra}, nil
}

// run runs the program of w on args and returns its exit code and output.
func run(w Workload, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(w, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// decode returns the fields of the one line of stdout.
func decode(t *testing.T, stdout string) map[string]any {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout is not exactly one line: %q", stdout)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
		t.Fatalf("not JSON: %v: %s", err, stdout)
	}
	return obj
}

// keys returns the keys of a JSON object in the order they are written.
func keys(t *testing.T, text string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", text)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// lineOrder is the order of the line's fields in every language.
var lineOrder = []string{"workload", "lang", "style", "shape", "mode", "method", "backend",
	"variant", "iterations", "concurrency", "ok", "bytes", "elapsed_ns", "user_us", "sys_us",
	"peak_rss_kb", "idle_rss_kb", "runtime"}

func TestTheIDRuleGivesEverySpecExample(t *testing.T) {
	cases := []struct {
		f    Fields
		want string
	}{
		{Fields{"readfile", "c", "promise", "counter", "parallel", "inprocess", "node4"}, "readfile/c/promise-counter-parallel@node4"},
		{Fields{"readfile", "c", "sync", "", "sequential", "inprocess", "node4"}, "readfile/c/sync-sequential@node4"},
		{Fields{"readfile", "go", "goroutine", "", "parallel", "inprocess", "os.ReadFile"}, "readfile/go/goroutine-parallel@os.ReadFile"},
		{Fields{"readfile", "node", "await", "", "parallel", "nodetest", "fs.promises"}, "readfile/node/await-nodetest-parallel@fs.promises"},
		{Fields{"readfile", "node", "await", "", "parallel", "inprocess", "promisify"}, "readfile/node/await-parallel@promisify"},
		{Fields{"readfile", "c", "callback", "nowait", "parallel", "inprocess", "node4"}, "readfile/c/callback-nowait-parallel@node4"},
		{Fields{"readfile", "c", "await", "tasks", "parallel", "inprocess", "node4"}, "readfile/c/await-tasks-parallel@node4"},
		// Every method but inprocess is named, after the shape.
		{Fields{"doxbee", "node", "await", "parallel", "parallel", "perfjs", "native"}, "doxbee/node/await-parallel-perfjs-parallel@native"},
	}
	for _, c := range cases {
		if got := VariantID(c.f); got != c.want {
			t.Errorf("VariantID(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestTheLabelIsTheIDWithoutItsWorkloadAndTheNameIsWhatVariantTakes(t *testing.T) {
	f := Fields{"readfile", "node", "promise", "counter", "parallel", "nodetest", "fs.promises"}
	if got, want := Label(f), "node/promise-counter-nodetest-parallel@fs.promises"; got != want {
		t.Errorf("Label = %q, want %q", got, want)
	}
	if got, want := Name(f), "promise-counter-nodetest-parallel"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	if got, want := Name(Fields{Style: "sync", Mode: "sequential", Method: InProcess}), "sync-sequential"; got != want {
		t.Errorf("Name without shape = %q, want %q", got, want)
	}
}

func TestTheLineWritesEveryFieldInTheSpecOrder(t *testing.T) {
	f := Fields{"readfile", Lang, "goroutine", "", Parallel, InProcess, "os.ReadFile"}
	text := NewLine(f, 4, 0, Result{OK: 4, Bytes: 48}).Encode()
	if got := keys(t, text); strings.Join(got, ",") != strings.Join(lineOrder, ",") {
		t.Fatalf("fields %v, want %v", got, lineOrder)
	}
	want := `{"workload":"readfile","lang":"go","style":"goroutine","shape":"","mode":"parallel",` +
		`"method":"inprocess","backend":"os.ReadFile","variant":"readfile/go/goroutine-parallel@os.ReadFile",` +
		`"iterations":4,"concurrency":0,"ok":4,"bytes":48,"elapsed_ns":0,"user_us":0,"sys_us":0,` +
		`"peak_rss_kb":0,"idle_rss_kb":0,"runtime":""}`
	if text != want {
		t.Errorf("line\n%s\nwant\n%s", text, want)
	}
}

func TestAWorkloadsOwnFieldsFollowRuntimeInTheirOrder(t *testing.T) {
	f := Fields{"cacheloop", Lang, "sync", "", Sequential, InProcess, "map"}
	res := Result{OK: 2, Extra: []Extra{{"misses", 1}, {"hits", int64(9)}, {"note", "a \"b\""}}}
	text := NewLine(f, 2, 1, res).Encode()
	want := append(append([]string{}, lineOrder...), "misses", "hits", "note")
	if got := keys(t, text); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("fields %v, want %v", got, want)
	}
	if !strings.HasSuffix(text, `"runtime":"","misses":1,"hits":9,"note":"a \"b\""}`) {
		t.Errorf("own fields written wrongly: %s", text)
	}
}

func TestAValidRunPrintsOneLineOnStdoutAndNothingOnStderr(t *testing.T) {
	f := newFake()
	code, stdout, stderr := run(f.workload(), "--iterations", "5")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	obj := decode(t, stdout)
	// the contract's fields, then what the pass did before its clock
	order := append(append([]string{}, lineOrder...), "preclock_heap_bytes", "preclock_faults", "warmup_ns", "passes_elapsed_ns")
	if got := keys(t, stdout); strings.Join(got, ",") != strings.Join(order, ",") {
		t.Errorf("fields %v, want %v", got, order)
	}
	want := map[string]any{"workload": "fake", "lang": "go", "style": "sync", "shape": "", "mode": "sequential",
		"method": "inprocess", "backend": "mem", "variant": "fake/go/sync-sequential@mem",
		"iterations": 5.0, "concurrency": 1.0, "ok": 5.0, "bytes": 10.0, "runtime": runtime.Version()}
	for k, v := range want {
		if obj[k] != v {
			t.Errorf("%s = %v, want %v", k, obj[k], v)
		}
	}
	for _, k := range []string{"elapsed_ns", "user_us", "sys_us"} {
		if obj[k].(float64) < 0 {
			t.Errorf("%s = %v, want >= 0", k, obj[k])
		}
	}
	if obj["peak_rss_kb"].(float64) <= 0 {
		t.Errorf("peak_rss_kb = %v, want > 0", obj["peak_rss_kb"])
	}
	if idle := obj["idle_rss_kb"].(float64); idle <= 0 || idle > obj["peak_rss_kb"].(float64) {
		t.Errorf("idle_rss_kb = %v, want in (0, peak_rss_kb %v]", idle, obj["peak_rss_kb"])
	}
}

func TestThePeakIsNeverBelowTheIdleFigureReadBeforeIt(t *testing.T) {
	// Linux's VmHWM can read lower after the runtime returned memory: the
	// line's peak is then the idle figure, never below it.
	readings := []Usage{{PeakRSSKb: 14596}, {PeakRSSKb: 14564}}
	readUsage = func() Usage { u := readings[0]; readings = readings[1:]; return u }
	defer func() { readUsage = GetUsage }()
	f := newFake()
	code, stdout, stderr := run(f.workload(), "--iterations", "5")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	obj := decode(t, stdout)
	if obj["idle_rss_kb"] != 14596.0 || obj["peak_rss_kb"] != 14596.0 {
		t.Errorf("idle %v, peak %v; want 14596 and 14596", obj["idle_rss_kb"], obj["peak_rss_kb"])
	}
}

func TestWithoutVariantTheFirstVariantRunsTenThousandOperations(t *testing.T) {
	f := newFake()
	code, stdout, _ := run(f.workload())
	obj := decode(t, stdout)
	if code != 0 || obj["variant"] != "fake/go/sync-sequential@mem" || obj["iterations"] != 10000.0 {
		t.Errorf("exit %d, line %s; want the first variant at N=10000", code, stdout)
	}
}

func TestTheReportedConcurrencyFollowsTheModeAndReachesTheVariant(t *testing.T) {
	// The variant gets K; the line says the most in flight, min(K, N).
	cases := []struct {
		args       []string
		want, line int
	}{
		{[]string{"--variant", "sync-sequential", "--concurrency", "5"}, 1, 1},
		{[]string{"--variant", "callback-counter-parallel", "--concurrency", "5"}, 0, 0},
		{[]string{"--variant", "callback-bounded"}, DefaultBound, 3},
		{[]string{"--variant", "callback-bounded", "--concurrency", "0"}, 64, 3},
		{[]string{"--variant", "callback-bounded", "--concurrency", "5"}, 5, 3},
		{[]string{"--variant", "callback-bounded", "--concurrency", "2"}, 2, 2},
	}
	for _, c := range cases {
		f := newFake()
		code, stdout, stderr := run(f.workload(), append(c.args, "--iterations", "3")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if got := decode(t, stdout)["concurrency"]; got != float64(c.line) {
			t.Errorf("%v: concurrency %v, want %d", c.args, got, c.line)
		}
		if len(f.passes) != 1 || f.passes[0][1] != c.want {
			t.Errorf("%v: the variant ran with (n, k) %v, want k = %d", c.args, f.passes, c.want)
		}
	}
}

func TestTheWarmUpIsOneUntimedPassBeforeTheTimedOne(t *testing.T) {
	f := newFake()
	code, stdout, _ := run(f.workload(), "--warmup", "3", "--iterations", "7")
	if code != 0 || len(f.passes) != 2 || f.passes[0] != [2]int{3, 1} || f.passes[1] != [2]int{7, 1} {
		t.Fatalf("exit %d, passes %v; want 0 and a pass of 3 then one of 7", code, f.passes)
	}
	if obj := decode(t, stdout); obj["iterations"] != 7.0 || obj["ok"] != 7.0 {
		t.Errorf("the line counts the warm-up: %s", stdout)
	}
	f = newFake()
	if code, _, _ := run(f.workload(), "--iterations", "2"); code != 0 || len(f.passes) != 1 {
		t.Errorf("without --warmup: exit %d, passes %v; want one pass", code, f.passes)
	}
}

func TestEveryFlagFormOfGosFlagPackageWorks(t *testing.T) {
	for _, args := range [][]string{
		{"--variant", "callback-counter-parallel", "--iterations", "7", "--level", "high"},
		{"-variant", "callback-counter-parallel", "-iterations", "7", "-level", "high"},
		{"--variant=callback-counter-parallel", "--iterations=7", "--level=high"},
		{"-variant=callback-counter-parallel", "-iterations=7", "-warmup", "2", "-level=high"},
	} {
		f := newFake()
		code, stdout, stderr := run(f.workload(), args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
			continue
		}
		obj := decode(t, stdout)
		if obj["variant"] != "fake/go/callback-counter-parallel@mem" || obj["iterations"] != 7.0 || f.seen != "high" {
			t.Errorf("%v: line %s, --level %q", args, stdout, f.seen)
		}
	}
}

// expectUsageError runs args and wants exit 2, nothing on stdout, first the
// line "go-fake: <first>" and then the usage on stderr.
func expectUsageError(t *testing.T, w Workload, first string, args ...string) {
	t.Helper()
	code, stdout, stderr := run(w, args...)
	lines := strings.Split(stderr, "\n")
	if code != 2 || stdout != "" || lines[0] != "go-fake: "+first ||
		len(lines) < 2 || !strings.HasPrefix(lines[1], "usage: go-fake ") {
		t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, %q and the usage", args, code, stdout, stderr, first)
	}
}

func TestEveryBadNIsAUsageErrorNamingTheFlagAndTheValue(t *testing.T) {
	positive := map[string]string{
		"0": "0", "-5": "-5", "abc": "abc", "0x10": "0x10", "+3": "+3", "1_000": "1_000",
		" 7": " 7", "7 ": "7 ", "": `""`, "99999999999999999999": "99999999999999999999", "1e3": "1e3",
	}
	for value, shown := range positive {
		expectUsageError(t, newFake().workload(), "--iterations must be a positive integer, got "+shown, "--iterations", value)
	}
	for _, name := range []string{"warmup", "concurrency"} {
		expectUsageError(t, newFake().workload(), "--"+name+" must be zero or a positive integer, got -1", "--"+name, "-1")
		expectUsageError(t, newFake().workload(), "--"+name+" must be zero or a positive integer, got 0x1", "-"+name+"=0x1")
	}
}

func TestEveryBadPIsAUsageError(t *testing.T) {
	for _, value := range []string{"0", "-1", "abc", "+2", "10001", "1.5"} {
		expectUsageError(t, newFake().workload(), fmt.Sprintf("--passes must be an integer from 1 to 10000, got %q", value), "--passes", value)
	}
}

// passTimes returns the line's passes_elapsed_ns.
func passTimes(t *testing.T, obj map[string]any) []float64 {
	t.Helper()
	list, ok := obj["passes_elapsed_ns"].([]any)
	if !ok {
		t.Fatalf("passes_elapsed_ns is %v, want a list", obj["passes_elapsed_ns"])
	}
	out := make([]float64, len(list))
	for i, x := range list {
		out[i] = x.(float64)
	}
	return out
}

func TestEveryTimedPassIsRunVerifiedAndListed(t *testing.T) {
	// P = 1 by default: the list is elapsed_ns alone.
	f := newFake()
	_, stdout, _ := run(f.workload(), "--iterations", "4")
	obj := decode(t, stdout)
	if got := passTimes(t, obj); len(got) != 1 || got[0] != obj["elapsed_ns"] {
		t.Errorf("passes_elapsed_ns %v, want [elapsed_ns %v]", got, obj["elapsed_ns"])
	}
	// P passes of N after the warm-up, each its own pass, each timed.
	calls := 0
	slower := oneVariant(func(p *Pass) (Result, error) {
		calls++
		p.Begin()
		time.Sleep(time.Duration(2*(calls-2)) * time.Millisecond) // pass k (from 0) sleeps 2k ms
		return Result{OK: p.N, Done: time.Now()}, nil
	})
	code, stdout, stderr := run(slower, "--iterations", "4", "--warmup", "2", "--passes", "4")
	if code != 0 || calls != 5 {
		t.Fatalf("exit %d, %d passes, stderr %s; want 0 and a warm-up and 4 timed passes", code, calls, stderr)
	}
	obj = decode(t, stdout)
	got := passTimes(t, obj)
	if len(got) != 4 || got[0] != obj["elapsed_ns"] {
		t.Fatalf("passes_elapsed_ns %v, want 4 times, the first elapsed_ns %v", got, obj["elapsed_ns"])
	}
	for k := 1; k < 4; k++ {
		if got[k] < float64(2*k)*1e6 {
			t.Errorf("pass %d took %v ns, want at least its %d ms sleep", k, got[k], 2*k)
		}
	}
	if obj["ok"] != 4.0 || obj["iterations"] != 4.0 {
		t.Errorf("the line counts more than one pass: %s", stdout)
	}
	// A wrong result in any pass fails the process, naming the pass.
	f = newFake()
	third := f.workload()
	third.Variants[0].Run = func(p *Pass) (Result, error) {
		if len(f.passes) == 2 {
			f.failAt = 1
		}
		return f.run(p)
	}
	expectOneLine(t, third, ExitVerify, "go-fake: fake/go/sync-sequential@mem timed pass 3 of 3: iteration 1: completed with 99", "--iterations", "3", "--passes", "3")
	short := newFake()
	shortW := short.workload()
	shortW.Variants[0].Run = func(p *Pass) (Result, error) {
		short.short = len(short.passes) == 1
		return short.run(p)
	}
	expectOneLine(t, shortW, ExitVerify, "timed pass 2 of 2: verified 2 of 3 operations", "--iterations", "3", "--passes", "2")
}

func TestThePreclockFiguresAreTheMostOfAnyTimedPass(t *testing.T) {
	var keep [][]byte
	calls := 0
	second := oneVariant(func(p *Pass) (Result, error) {
		calls++
		if calls == 2 { // the second pass makes 10 MB before its clock
			keep = touchedRecords(p.N)
		}
		p.Begin()
		return Result{OK: p.N}, nil
	})
	code, stdout, stderr := run(second, "--iterations", "20000", "--passes", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if heap := decode(t, stdout)["preclock_heap_bytes"].(float64); heap < 20000*512 {
		t.Errorf("preclock_heap_bytes = %v, want at least the second pass's 10 MB", heap)
	}
	// The pages go back to the OS, or the next test that counts the page
	// faults of its own 10 MB would find them mapped already.
	runtime.KeepAlive(keep)
	keep = nil
	debug.FreeOSMemory()
}

func TestZeroIsAValidWarmUpAndConcurrency(t *testing.T) {
	if code, _, stderr := run(newFake().workload(), "--warmup", "0", "--concurrency", "00", "--iterations", "007"); code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestUnknownFlagsStrayArgumentsAndUnknownVariantsAreUsageErrors(t *testing.T) {
	w := newFake().workload()
	expectUsageError(t, w, "flag provided but not defined: -frobnicate", "--frobnicate", "1")
	expectUsageError(t, w, "flag needs an argument: -iterations", "--iterations")
	expectUsageError(t, w, `unexpected argument "extra"`, "--iterations", "3", "extra")
	expectUsageError(t, w, `unknown variant "nope-parallel" (choose one of [callback-bounded callback-counter-parallel sync-sequential])`,
		"--variant", "nope-parallel")
}

func TestHelpPrintsTheUsageOnStdoutAndExitsZero(t *testing.T) {
	for _, flag := range []string{"--help", "-help", "-h"} {
		code, stdout, stderr := run(newFake().workload(), flag)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", flag, code, stderr)
		}
		for _, want := range []string{
			"usage: go-fake [--variant NAME] [--iterations N] [--concurrency K] [--warmup N] [--passes P] [--lockstep 0|1] [--level LEVEL]\n",
			"-passes P", "from 1 to 10000 (default 1)",
			"variants: callback-bounded callback-counter-parallel sync-sequential\n",
			"exit codes: 0 valid, 1 verification failed, 2 usage error, 3 environment error\n",
			"-iterations N", "(default 10000)", "-level LEVEL", `(default "low")`, "(0 = the default bound, 64)",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: the usage lacks %q:\n%s", flag, want, stdout)
			}
		}
		if !strings.HasPrefix(stdout, "usage: go-fake") {
			t.Errorf("%s: the usage does not start with its synopsis:\n%s", flag, stdout)
		}
	}
}

// expectOneLine runs args and wants exit code, nothing on stdout and exactly
// one line on stderr containing want.
func expectOneLine(t *testing.T, w Workload, code int, want string, args ...string) {
	t.Helper()
	got, stdout, stderr := run(w, args...)
	if got != code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, nothing and one line saying %q", args, got, stdout, stderr, code, want)
	}
}

func TestAFailedOperationExitsOneNamingTheVariantAndTheIteration(t *testing.T) {
	f := newFake()
	f.failAt = 2
	expectOneLine(t, f.workload(), 1, "go-fake: fake/go/sync-sequential@mem iteration 2: completed with 99", "--iterations", "5")
}

func TestAFailedWarmUpExitsOneBeforeTheTimedPass(t *testing.T) {
	f := newFake()
	f.failAt = 1
	expectOneLine(t, f.workload(), 1, "go-fake: fake/go/sync-sequential@mem warm-up iteration 1: completed with 99",
		"--warmup", "4", "--iterations", "1")
	if len(f.passes) != 1 {
		t.Errorf("passes %v, want the warm-up only", f.passes)
	}
}

func TestAWarmUpTheEnvironmentFailedExitsThreeAsTheTimedPassDoes(t *testing.T) {
	f := newFake()
	f.runErr = &EnvError{"iteration 0: the server refused the connection"}
	expectOneLine(t, f.workload(), ExitEnv, "go-fake: fake/go/sync-sequential@mem warm-up iteration 0: the server refused the connection",
		"--warmup", "4", "--iterations", "1")
	expectOneLine(t, f.workload(), ExitEnv, "go-fake: fake/go/sync-sequential@mem iteration 0: the server refused the connection",
		"--iterations", "1")
}

func TestMoreInFlightThanAWaitGroupCountsIsAnEnvironmentErrorBeforeAnyPass(t *testing.T) {
	over := strconv.Itoa(MaxInFlight + 1)
	for _, args := range [][]string{
		{"--variant", "callback-counter-parallel", "--iterations", over},
		{"--variant", "callback-counter-parallel", "--iterations", "1", "--warmup", over},
		{"--variant", "callback-bounded", "--iterations", over, "--concurrency", over},
	} {
		f := newFake()
		expectOneLine(t, f.workload(), ExitEnv, "go-fake: "+over+" operations in flight at once are more than a sync.WaitGroup counts (2147483647)", args...)
		if len(f.passes) != 0 {
			t.Errorf("%q: passes %v, want none", args, f.passes)
		}
	}
}

func TestAShortCountExitsOne(t *testing.T) {
	f := newFake()
	f.short = true
	expectOneLine(t, f.workload(), 1, "go-fake: fake/go/sync-sequential@mem verified 4 of 5 operations", "--iterations", "5")
}

func TestTheWorkloadsCheckSeesItsFlagsAndDecidesTheExitCode(t *testing.T) {
	f := newFake()
	f.checkErr = &UsageError{"--level must be low or high"}
	expectUsageError(t, f.workload(), "--level must be low or high", "--level", "medium")
	if f.seen != "medium" || len(f.passes) != 0 {
		t.Errorf("Check saw --level %q and %d passes ran; want medium and none", f.seen, len(f.passes))
	}

	f = newFake()
	f.checkErr = &EnvError{"fixture x is missing"}
	expectOneLine(t, f.workload(), 3, "go-fake: fixture x is missing")

	f = newFake()
	f.checkErr = errors.New("port 80 is in use")
	expectOneLine(t, f.workload(), 3, "go-fake: port 80 is in use")
	if len(f.passes) != 0 {
		t.Errorf("%d passes ran after a failed check", len(f.passes))
	}
}

func TestAWorkloadsOwnFieldsReachTheLine(t *testing.T) {
	f := newFake()
	f.extra = []Extra{{"hits", 3}}
	code, stdout, _ := run(f.workload(), "--iterations", "3")
	if code != 0 || !strings.Contains(stdout, `"runtime":"`+runtime.Version()+`","hits":3,"preclock_heap_bytes":`) {
		t.Errorf("exit %d, line %s; want hits after runtime, before the preclock fields", code, stdout)
	}
}

// oneVariant is a workload of one sequential variant that runs `run`.
func oneVariant(run func(p *Pass) (Result, error)) Workload {
	return Workload{Name: "fake", Backend: "mem", Variants: []Variant{{Style: "sync", Mode: Sequential, Run: run}}}
}

func TestAVariantThatNeverStartsItsClockFails(t *testing.T) {
	w := oneVariant(func(p *Pass) (Result, error) { return Result{OK: p.N}, nil })
	code, stdout, stderr := run(w, "--iterations", "4")
	want := "go-fake: fake/go/sync-sequential@mem iteration 4: the variant never started its clock (Pass.Begin)\n"
	if code != ExitVerify || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and %q", code, stdout, stderr, want)
	}
}

// touchedRecords makes n records of 512 bytes and touches each, as a pass
// that makes per-operation state before its clock would.
func touchedRecords(n int) [][]byte {
	keep := make([][]byte, n)
	for i := range keep {
		keep[i] = make([]byte, 512)
		keep[i][0] = 1
	}
	return keep
}

func TestTheLineShowsWhatAPassMadeBeforeItsClock(t *testing.T) {
	var keep [][]byte
	early := oneVariant(func(p *Pass) (Result, error) {
		// a 512-byte record per operation, made and touched before the clock
		keep = touchedRecords(p.N)
		p.Begin()
		return Result{OK: p.N}, nil
	})
	code, stdout, stderr := run(early, "--iterations", "20000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	obj := decode(t, stdout)
	if heap := obj["preclock_heap_bytes"].(float64); heap < 20000*512 {
		t.Errorf("preclock_heap_bytes = %v, want at least the 10 MB made before the clock", heap)
	}
	if faults := obj["preclock_faults"].(float64); faults < 20000*512/4096/2 {
		t.Errorf("preclock_faults = %v, want at least the pages touched before the clock", faults)
	}
	first := oneVariant(func(p *Pass) (Result, error) {
		p.Begin()
		keep = make([][]byte, p.N)
		for i := range keep {
			keep[i] = make([]byte, 512)
		}
		return Result{OK: p.N}, nil
	})
	_, stdout, _ = run(first, "--iterations", "20000")
	obj = decode(t, stdout)
	if heap := obj["preclock_heap_bytes"].(float64); heap > 64<<10 {
		t.Errorf("preclock_heap_bytes = %v with the clock started first, want next to nothing", heap)
	}
	_ = keep
}

func TestTheClockStopsAtTheNthVerificationWhenRunSaysWhen(t *testing.T) {
	// Run spends 200 ms after its last operation verified (a plain
	// computation's totals, closing connections): with Done set that is not
	// timed; without it, it is.
	for _, done := range []bool{true, false} {
		w := Workload{Name: "fake", Backend: "mem", Variants: []Variant{{Style: "sync", Mode: Sequential,
			Run: func(p *Pass) (Result, error) {
				p.Begin()
				res := Result{OK: p.N}
				if done {
					res.Done = time.Now()
				}
				time.Sleep(200 * time.Millisecond)
				return res, nil
			}}}}
		code, stdout, stderr := run(w, "--iterations", "1")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		elapsed := decode(t, stdout)["elapsed_ns"].(float64)
		if done && elapsed >= 200e6 {
			t.Errorf("Done set: elapsed_ns %v includes the 200 ms after it", elapsed)
		}
		if !done && elapsed < 200e6 {
			t.Errorf("Done unset: elapsed_ns %v leaves out the end of Run", elapsed)
		}
	}
}

func TestConcurrencyRefusesAnUnknownMode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Concurrency of an unknown mode did not panic")
		}
	}()
	Concurrency("sideways", 0)
}

func TestGetUsageReportsAResidentSetSize(t *testing.T) {
	if u := GetUsage(); u.PeakRSSKb <= 0 || u.UserUs < 0 || u.SysUs < 0 {
		t.Fatalf("GetUsage() = %+v, want a positive peak RSS and non-negative times", u)
	}
}

// fullWriter fails every write as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func TestALineOrUsageThatCannotBeWrittenIsAnEnvironmentErrorWithOneLine(t *testing.T) {
	for _, args := range [][]string{{"--iterations", "2"}, {"--help"}} {
		var errOut bytes.Buffer
		code := Run(newFake().workload(), args, fullWriter{}, &errOut)
		want := "go-fake: cannot write the result to stdout: no space left on device\n"
		if args[0] == "--help" {
			want = "go-fake: cannot write the usage to stdout: no space left on device\n"
		}
		if code != ExitEnv || errOut.String() != want {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", args, code, errOut.String(), want)
		}
	}
}

func TestAClosedStdoutIsAnEnvironmentErrorBeforeAnythingRuns(t *testing.T) {
	f := newFake()
	var errOut bytes.Buffer
	code := Run(f.workload(), []string{"--iterations", "2"}, closedStdout{}, &errOut)
	want := "go-fake: stdout is closed: the result line cannot be written\n"
	if code != ExitEnv || errOut.String() != want || len(f.passes) != 0 || f.seen != "" {
		t.Errorf("exit %d, stderr %q, passes %v, checked %q; want 3, %q and nothing run", code, errOut.String(), f.passes, f.seen, want)
	}
	if stdoutClosed() {
		t.Errorf("the test's own stdout counts as closed")
	}
}

func TestTooFewFreeDescriptorsAreAnEnvironmentErrorBeforeAnythingIsOpened(t *testing.T) {
	if err := CheckDescriptors(); err != nil {
		t.Fatalf("with the usual limit: %v", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	lowest, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(lowest)
	low := lim
	low.Cur = uint64(lowest) + SpareDescriptors - 1 // one short, whatever is open above
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	err = CheckDescriptors()
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	var env *EnvError
	if !errors.As(err, &env) || !strings.HasPrefix(err.Error(), "too few file descriptors") {
		t.Fatalf("one descriptor short: %v, want an *EnvError naming the limit", err)
	}
	code, stdout, stderr := run(newFake().workload(), "--iterations", "2")
	if code != ExitOK || stdout == "" || stderr != "" {
		t.Fatalf("after the limit is restored: exit %d, stderr %q", code, stderr)
	}
}

func TestFlagCountTakesDigitsWithinBounds(t *testing.T) {
	if n, err := FlagCount("--queries", "25", 1, 100); err != nil || n != 25 {
		t.Fatalf("25: %d %v", n, err)
	}
	for _, text := range []string{"", "0", "-1", "+3", " 3", "3x", "0x10", "101", "99999999999999999999"} {
		_, err := FlagCount("--queries", text, 1, 100)
		u, ok := err.(*UsageError)
		if !ok || u.Msg != fmt.Sprintf("--queries must be an integer from 1 to 100, got %q", text) {
			t.Errorf("%q: %v", text, err)
		}
	}
}
