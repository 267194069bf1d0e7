package contract

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Workload is what a workload hands Main: its fields, flags, check and
// variants.  Everything else (flags of the contract, timing, the line, exit
// codes) is the contract's.
type Workload struct {
	Name    string // the workload field, e.g. "readfile"; the program is go-<Name>
	Backend string // what performs an operation, e.g. "os.ReadFile"
	// Flags declares the workload's own flags on fs, with their defaults
	// (nil: none).  Their values are set by the time Check and Run are called.
	Flags func(fs *flag.FlagSet)
	// Check runs after the flags are parsed and before the warm-up (nil:
	// nothing to check).  It returns a *UsageError for a bad flag value; any
	// other error is an environment error (CheckFixture's, say).
	Check func() error
	// Variants in the order of the catalog; the first is --variant's default.
	Variants []Variant
}

// Variant is one way of running the workload.  Its name, label and id follow
// from its fields by the id rule.
type Variant struct {
	Style string // "sync", "goroutine", ...
	Shape string // "" or a word
	Mode  string // Sequential, Parallel or Bounded
	// Run performs p.N operations, verifying each, with p.K of them in
	// flight, and returns the verified count or the first failure (a
	// *Failure names the iteration).  It calls p.Begin() right before its
	// first per-operation allocation (Pass).
	Run func(p *Pass) (Result, error)
}

// Result counts the verified completions of one pass.
type Result struct {
	OK    int
	Bytes int64   // bytes the operations moved; 0 for a workload without any
	Extra []Extra // the workload's own fields of the line, if any
	// Done, when set, is when the N-th operation verified: the clock stops
	// there, as in C and Node, and what Run does after it (checking totals
	// against a plain computation, closing connections) is not timed.
	Done time.Time
}

// runPass runs one pass of v: the result, the pass (its clock and what it
// did before it) and the time it took, from Begin to Result.Done or to the
// return of Run.
func runPass(v Variant, n, k int) (Result, *Pass, time.Duration, error) {
	p := NewPass(n, k)
	res, err := v.Run(p)
	end := time.Now()
	if !p.begun {
		if err == nil {
			err = &Failure{Iteration: res.OK, Reason: "the variant never started its clock (Pass.Begin)"}
		}
		return res, p, 0, err
	}
	if !res.Done.IsZero() && res.Done.After(p.start) {
		end = res.Done
	}
	return res, p, end.Sub(p.start), err
}

// Fields returns the fields of variant v of w.
func (w Workload) Fields(v Variant) Fields {
	return Fields{Workload: w.Name, Lang: Lang, Style: v.Style, Shape: v.Shape,
		Mode: v.Mode, Method: InProcess, Backend: w.Backend}
}

// names returns the variants' names, sorted, for the usage text.
func (w Workload) names() []string {
	names := make([]string, len(w.Variants))
	for i, v := range w.Variants {
		names[i] = Name(w.Fields(v))
	}
	sort.Strings(names)
	return names
}

// defaultVariant is the name of the first variant, --variant's default.
func (w Workload) defaultVariant() string {
	if len(w.Variants) == 0 {
		return ""
	}
	return Name(w.Fields(w.Variants[0]))
}

// find returns the variant called name.
func (w Workload) find(name string) (Variant, bool) {
	for _, v := range w.Variants {
		if Name(w.Fields(v)) == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Main runs the program of workload w on the command line and exits with the
// contract's code.
//
// SIGPIPE is ignored so that a write to a closed pipe returns EPIPE, which
// Run reports as an environment error, instead of killing the process with
// the signal (Go's default for fd 1 and 2, os/signal's "SIGPIPE").
func Main(w Workload) {
	signal.Ignore(syscall.SIGPIPE)
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = closedStdout{}
	}
	os.Exit(RunIO(w, os.Args[1:], os.Stdin, stdout, os.Stderr))
}

// stdoutClosed reports whether fd 1 was closed when the program started: the
// Go runtime (checkfds, before main) then opens /dev/null read-write in its
// place, and the line would vanish with exit 0.  What it opens is exactly
// what a caller's read-write /dev/null is (Python's subprocess.DEVNULL, a
// shell's 1<>/dev/null: same device, same flags, same descriptor flags), so
// that too counts as closed; C, which runs before anything reopens fd 1,
// tells them apart (DESIGN section 3).  A /dev/null open for writing only
// (a shell's >/dev/null) or for reading only is not the runtime's: it is
// open, the line goes there or its write fails.  Node tells it the same way.
func stdoutClosed() bool {
	var out, null syscall.Stat_t
	if err := syscall.Fstat(1, &out); err != nil {
		return err == syscall.EBADF
	}
	if syscall.Stat("/dev/null", &null) != nil || out.Mode&syscall.S_IFMT != syscall.S_IFCHR || out.Rdev != null.Rdev {
		return false
	}
	var b [1]byte
	if _, err := syscall.Read(1, b[:]); err != nil { // /dev/null readable: 0 bytes
		return false
	}
	_, err := syscall.Write(1, b[:0]) // and writable: a read-only one fails (EBADF)
	return err == nil
}

// closedStdout is stdout when it was closed: every write fails, so the
// result (or --help) is an environment error, exit ExitEnv.
type closedStdout struct{}

func (closedStdout) Write([]byte) (int, error) { return 0, errStdoutClosed }

var errStdoutClosed = errors.New("stdout is closed")

// readUsage reads the process's usage around the first pass (GetUsage; a test
// gives the readings of a kernel whose peak went down).
var readUsage = GetUsage

// emit writes text to stdout in one call and reports whether all of it went:
// a full disk (/dev/full), a closed pipe or a descriptor not open for writing
// is an environment error, exit ExitEnv with one line on stderr, never a
// silent exit 0 without the line.
func emit(stdout, stderr io.Writer, prog, what, text string) int {
	if _, err := io.WriteString(stdout, text); err != nil {
		fmt.Fprintf(stderr, "%s: cannot write the %s to stdout: %v\n", prog, what, err)
		return ExitEnv
	}
	return ExitOK
}

// Run is Main on args (without the program name) and two writers, with
// nothing on stdin; it returns the exit code.  stdout gets the one line or
// the --help text, nothing else.
func Run(w Workload, args []string, stdout, stderr io.Writer) int {
	return RunIO(w, args, strings.NewReader(""), stdout, stderr)
}

// RunIO is Run with a standard input, which only --lockstep 1 reads.
func RunIO(w Workload, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prog := "go-" + w.Name
	// The flag package's own messages are replaced by ours so that --help
	// goes to stdout and every usage error is one line followed by the usage.
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts options
	opts.register(fs, w.defaultVariant())
	if w.Flags != nil {
		w.Flags(fs)
	}
	failUsage := func(msg string) int {
		fmt.Fprintf(stderr, "%s: %s\n", prog, msg)
		usage(stderr, prog, w, fs)
		return ExitUsage
	}

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var help bytes.Buffer
			usage(&help, prog, w, fs)
			return emit(stdout, stderr, prog, "usage", help.String())
		}
		return failUsage(err.Error())
	}
	if fs.NArg() > 0 {
		return failUsage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	s, err := opts.check()
	if err != nil {
		return failUsage(err.Error())
	}
	v, found := w.find(s.variant)
	if !found {
		return failUsage(fmt.Sprintf("unknown variant %q (choose one of %v)", s.variant, w.names()))
	}
	if _, err := stdout.Write(nil); errors.Is(err, errStdoutClosed) {
		// Nowhere to write the result: say so before anything runs.
		fmt.Fprintf(stderr, "%s: stdout is closed: the result line cannot be written\n", prog)
		return ExitEnv
	}
	if err := CheckDescriptors(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return ExitEnv
	}
	if w.Check != nil {
		if err := w.Check(); err != nil {
			var u *UsageError
			if errors.As(err, &u) {
				return failUsage(err.Error())
			}
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return ExitEnv
		}
	}

	f := w.Fields(v)
	id := VariantID(f)
	k := Concurrency(v.Mode, s.concurrency)
	for _, n := range []int{s.warmup, s.iterations} {
		if m := InFlight(n, k); m > MaxInFlight {
			fmt.Fprintf(stderr, "%s: %d operations in flight at once are more than a sync.WaitGroup counts (%d): lower N or K\n",
				prog, m, MaxInFlight)
			return ExitEnv
		}
	}
	var warmup time.Duration
	if s.warmup > 0 {
		t0 := time.Now()
		_, _, _, err := runPass(v, s.warmup, k)
		warmup = time.Since(t0)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s warm-up %v\n", prog, id, err)
			var env *EnvError
			if errors.As(err, &env) {
				return ExitEnv
			}
			return ExitVerify
		}
	}

	if s.lockstep == 1 {
		return lockstep(v, f, s, k, warmup, stdin, stdout, stderr, prog)
	}
	// The timed passes: each verified and timed alike; the line's figures
	// are the first's, with every pass's time and the most any pass did
	// before its clock.
	var (
		first              timed
		passesNs           = make([]int64, s.passes)
		preHeap, preFaults int64
	)
	for i := range passesNs {
		which := id
		if i > 0 {
			which = fmt.Sprintf("%s timed pass %d of %d:", id, i+1, s.passes)
		}
		t, code := timedPass(v, s, k, which, stderr, prog)
		if code != ExitOK {
			return code
		}
		if i == 0 {
			first = t
		}
		passesNs[i] = t.elapsed
		preHeap = max(preHeap, t.pass.preclockHeapBytes)
		preFaults = max(preFaults, t.pass.preclockFaults)
	}
	line := first.line(f, s, k, warmup, preHeap, preFaults, passesNs)
	return emit(stdout, stderr, prog, "result", line.Encode()+"\n")
}

// timed is one timed pass: its result, its clock, its time and the process's
// usage around it.
type timed struct {
	res           Result
	pass          *Pass
	elapsed       int64
	before, after Usage
}

// timedPass runs one timed pass of N and verifies it: ExitOK, or the exit
// code after one line on stderr naming the pass (which).
func timedPass(v Variant, s settings, k int, which string, stderr io.Writer, prog string) (timed, int) {
	var t timed
	t.before = readUsage()
	r, pass, elapsed, err := runPass(v, s.iterations, k)
	t.after = readUsage()
	t.res, t.pass, t.elapsed = r, pass, elapsed.Nanoseconds()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s %v\n", prog, which, err)
		// An operation the environment failed (a server that does not
		// answer) is exit 3, as when Check finds it before the clock.
		var env *EnvError
		if errors.As(err, &env) {
			return t, ExitEnv
		}
		return t, ExitVerify
	}
	if r.OK != s.iterations {
		fmt.Fprintf(stderr, "%s: %s verified %d of %d operations\n", prog, which, r.OK, s.iterations)
		return t, ExitVerify
	}
	return t, ExitOK
}

// line is the result line of t with the passes' times and the most any pass
// did before its clock.
func (t timed) line(f Fields, s settings, k int, warmup time.Duration, preHeap, preFaults int64, passesNs []int64) Line {
	line := NewLine(f, s.iterations, k, t.res)
	line.ElapsedNs = passesNs[0]
	line.UserUs = t.after.UserUs - t.before.UserUs
	line.SysUs = t.after.SysUs - t.before.SysUs
	// A peak is at least the idle figure read before it: Linux's VmHWM is the
	// larger of a high-water mark it updates lazily and the RSS now, so after
	// the runtime returned memory (Go's scavenger, madvise) it can read lower
	// than it did before the pass (14,564 KiB after 14,596 here).  C's
	// harness and Node's take the same maximum.
	line.PeakRSSKb = max(t.after.PeakRSSKb, t.before.PeakRSSKb)
	line.IdleRSSKb = t.before.PeakRSSKb
	line.Runtime = runtime.Version()
	line.Trailing = []Extra{{Name: "preclock_heap_bytes", Value: preHeap},
		{Name: "preclock_faults", Value: preFaults},
		{Name: "warmup_ns", Value: warmup.Nanoseconds()},
		{Name: "passes_elapsed_ns", Value: passesNs}}
	return line
}

// lockstep is the protocol of --lockstep 1 (DESIGN section 3) after the
// warm-up: a ready line, then a timed pass and its line for each "pass" read
// on stdin, the process's figures for "end" (exit 0), exit 0 at the end of
// stdin, and one line and ExitUsage for any other command.
func lockstep(v Variant, f Fields, s settings, k int, warmup time.Duration, stdin io.Reader, stdout, stderr io.Writer, prog string) int {
	ready := fmt.Sprintf("{\"lockstep\":\"ready\",\"warmup_ns\":%d}\n", warmup.Nanoseconds())
	if code := emit(stdout, stderr, prog, "ready line", ready); code != ExitOK {
		return code
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64), 64)
	passes := 0
	for sc.Scan() {
		switch cmd := strings.TrimSuffix(sc.Text(), "\r"); cmd {
		case "pass":
			t, code := timedPass(v, s, k, fmt.Sprintf("%s lockstep pass %d:", VariantID(f), passes+1), stderr, prog)
			if code != ExitOK {
				return code
			}
			passes++
			line := t.line(f, s, k, warmup, t.pass.preclockHeapBytes, t.pass.preclockFaults, []int64{t.elapsed})
			if code := emit(stdout, stderr, prog, "result", line.Encode()+"\n"); code != ExitOK {
				return code
			}
		case "end":
			u := readUsage()
			end := fmt.Sprintf("{\"lockstep\":\"end\",\"passes\":%d,\"user_us\":%d,\"sys_us\":%d,\"peak_rss_kb\":%d}\n",
				passes, u.UserUs, u.SysUs, u.PeakRSSKb)
			return emit(stdout, stderr, prog, "end line", end)
		default:
			fmt.Fprintf(stderr, "%s: lockstep: unknown command %q (pass or end)\n", prog, cmd)
			return ExitUsage
		}
	}
	if sc.Err() != nil {
		fmt.Fprintf(stderr, "%s: lockstep: unknown command (a line longer than any command: %v) (pass or end)\n", prog, sc.Err())
		return ExitUsage
	}
	return ExitOK
}
