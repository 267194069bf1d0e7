// Package contract is the program contract of DESIGN section 3 for every Go
// workload: the generic flags, the id rule, untimed warm-up, the timed
// section, rusage, the one JSON line and the exit codes.  A workload hands
// Main its name, backend, own flags, input check and variants, and its
// cmd/<workload>/main.go is one call:
//
//	func main() { contract.Main(readfile.New()) }
//
// The contract in brief (DESIGN sections 3 and 4):
//
//   - Flags: --iterations N (>= 1, default 10000), --concurrency K (>= 0;
//     bounded mode turns 0 into DefaultBound), --warmup N (>= 0, default 0),
//     --passes P (1 to MaxPasses, default 1: timed passes of N after the
//     warm-up, each verified and timed alike; the line's passes_elapsed_ns
//     lists their times, its other figures are the first pass's),
//     --variant NAME (default: the workload's first variant), --help, and the
//     workload's own.  Go's flag package also takes -name and --name=value.
//     N is decimal digits only, as in C and Node: no sign, blank, underscore
//     or base prefix; leading zeros are digits like any other, so 010 is ten.
//   - Success: exactly one JSON line on stdout (Line, fields in the contract's
//     order), nothing on stderr, exit 0.
//   - Failure: nothing on stdout and one line on stderr naming the problem,
//     followed by the usage for a usage error; exit ExitVerify, ExitUsage or
//     ExitEnv.
//   - A result line or --help text that cannot be written to stdout (a full
//     disk, /dev/full, a pipe without a reader: SIGPIPE is ignored so that
//     the write fails with EPIPE) is ExitEnv with one line on stderr.  A
//     stdout that is closed when the program starts is ExitEnv before
//     anything runs.  Go's runtime opens /dev/null read-write on a closed
//     descriptor 0, 1 or 2 before main runs, so a read-write /dev/null on
//     fd 1 is taken for a closed stdout (stdoutClosed): a caller's own
//     (Python's subprocess.DEVNULL) cannot be told from the runtime's.
//
// Exit 2 from a Go program is a usage error only when the first line on
// stderr starts with "go-<workload>: ".  The Go runtime also exits 2, and
// nothing in the program can catch or change it, when it dies of a fatal
// error or an unrecovered panic: its stderr then starts with "fatal error: ",
// "runtime: " or "panic: " followed by goroutine stacks.  Out of memory is
// such a death ("fatal error: runtime: out of memory" during the run; under
// a small ulimit -v, "fatal error: failed to reserve page summary memory"
// before main even starts), so whoever runs the program must read the first
// line to tell an environment failure from a usage error.  What can be
// checked in the program is: too few free file descriptors for the
// runtime's poller (ulimit -n 5 made it die with "fatal error: runtime:
// eventfd failed") is found before anything is opened, ExitEnv with one line
// (CheckDescriptors).
//
// Go needs no raising of RLIMIT_NOFILE here: since Go 1.19 the os package
// raises the soft limit to the hard one when the program starts.
package contract

import (
	"fmt"
	"math"
)

// Exit codes of the contract.
const (
	ExitOK     = 0 // every completion verified
	ExitVerify = 1 // a wrong completion, a failed operation or a short count
	ExitUsage  = 2 // bad flag or value, unknown variant, stray argument
	ExitEnv    = 3 // the environment is wrong: a missing fixture, a directory, ...
)

// DefaultBound is how many operations a bounded variant keeps in flight when
// --concurrency is 0; the catalog's suite.json "bound" must equal it.
const DefaultBound = 64

// DefaultIterations is N when --iterations is not given.
const DefaultIterations = 10000

// MaxPasses is the most timed passes one process runs (--passes P, from 1):
// the line lists each pass's time, so P bounds its length; C's
// AB_PASSES_MAX and Node's MAX_PASSES are the same.
const MaxPasses = 10000

// Values of the fields that are the same for every Go variant.
const (
	Lang      = "go"
	InProcess = "inprocess" // the method: timed inside the program
)

// The modes, as the catalog spells them.
const (
	Sequential = "sequential" // one operation in flight
	Parallel   = "parallel"   // all N issued at once
	Bounded    = "bounded"    // at most K in flight
)

// Fields are what identify a variant (DESIGN section 4); the id, the label
// and the name are derived from them by one rule, the same in every language
// (runner/catalog/catalog.py's variant_id, variant_label and variant_name).
type Fields struct {
	Workload string // "readfile"
	Lang     string // "go"
	Style    string // "sync", "goroutine", ...
	Shape    string // "" (none) or a word such as "counter"
	Mode     string // Sequential, Parallel or Bounded
	Method   string // InProcess, or another method of the catalog ("nodetest")
	Backend  string // "os.ReadFile"
}

// Name is what --variant takes: style[-shape][-method]-mode, the method
// only when it is not InProcess.
func Name(f Fields) string {
	name := f.Style
	if f.Shape != "" {
		name += "-" + f.Shape
	}
	if f.Method != "" && f.Method != InProcess {
		name += "-" + f.Method
	}
	return name + "-" + f.Mode
}

// Label is the id without its workload: lang/name@backend.
func Label(f Fields) string {
	return f.Lang + "/" + Name(f) + "@" + f.Backend
}

// VariantID is the variant's id, unique across the catalog:
// workload/lang/name@backend, e.g. "readfile/go/sync-sequential@os.ReadFile".
func VariantID(f Fields) string {
	return f.Workload + "/" + Label(f)
}

// Concurrency returns how many operations a run of mode keeps in flight, as
// the line reports it: 1 sequential, 0 (all of them) parallel, and in bounded
// mode the --concurrency value k, or DefaultBound when k is 0.  An unknown
// mode is a bug in a workload's variant table, so it panics.
func Concurrency(mode string, k int) int {
	switch mode {
	case Sequential:
		return 1
	case Parallel:
		return 0
	case Bounded:
		if k == 0 {
			return DefaultBound
		}
		return k
	}
	panic(fmt.Sprintf("contract: unknown mode %q", mode))
}

// MaxInFlight is the most operations a variant may have in flight at once:
// the parallel and bounded variants wait for them with a sync.WaitGroup,
// whose counter is 32 bits wide (a larger Add panics with "sync: negative
// WaitGroup counter").  Run refuses more with ExitEnv and one line, as the C
// programs refuse what they cannot allocate.
const MaxInFlight = math.MaxInt32

// InFlight is how many of n operations are in flight at once with K = k as
// Concurrency returns it: 1 sequential, all n parallel (k = 0), min(k, n)
// bounded.
func InFlight(n, k int) int {
	if k == 0 || k > n {
		return n
	}
	return k
}

// Failure is a verification failure: which iteration and what went wrong.
type Failure struct {
	Iteration int
	Reason    string
}

func (f *Failure) Error() string {
	return fmt.Sprintf("iteration %d: %s", f.Iteration, f.Reason)
}

// UsageError is a bad command line; the program prints it with the usage and
// exits ExitUsage.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// EnvError is a problem with the environment (a fixture, a port), found
// before anything is timed; the program prints it and exits ExitEnv.
type EnvError struct{ Msg string }

func (e *EnvError) Error() string { return e.Msg }
