// Package asyncfib is seed 004's workload in Go: an iteration is one
// repetition of top-level calls fib(0), ..., fib(M-1), fib(n) = fib(n-1) +
// fib(n-2) with fib(0) = fib(1) = 1, recursively (M = --max-recursive) or
// with a loop (M = --max-iterative).  Every result is checked against a table, and the pass's
// calls and the sum of its results (the line's calls and checksum) against
// the plain computation's.
//
//	sync-recursive-sequential, sync-iterative-sequential   plain calls
//	goroutine-recursive-sequential  every call runs on a goroutine of its
//	    own and answers on a channel; a call starts both children's
//	    goroutines and adds what their channel brings
//	goroutine-iterative-sequential  the loop on a goroutine of its own
package asyncfib

import (
	"flag"
	"fmt"
	"sync/atomic"
	"time"

	"asyncstyles/internal/contract"
)

// Defaults and bounds of M, as the catalog and the C program have them.
const (
	DefaultMaxRecursive = 10
	DefaultMaxIterative = 10
	BoundRecursive      = 40
	BoundIterative      = 78
)

// Config holds the workload's flags.
type Config struct {
	MaxRecursive, MaxIterative int
}

// New returns the asyncfib workload for contract.Main.
func New() contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "asyncfib",
		Backend: "none",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&cfg.MaxRecursive, "max-recursive", DefaultMaxRecursive, "recursive shape: top-level calls are fib(0..`M`-1), 1 <= M <= 40")
			fs.IntVar(&cfg.MaxIterative, "max-iterative", DefaultMaxIterative, "iterative shape: top-level calls are fib(0..`M`-1), 1 <= M <= 78")
		},
		Check:    cfg.Check,
		Variants: Variants(cfg),
	}
}

// Check refuses an M out of its bounds.
func (c *Config) Check() error {
	if c.MaxRecursive < 1 || c.MaxRecursive > BoundRecursive {
		return &contract.UsageError{Msg: fmt.Sprintf("--max-recursive must be an integer from 1 to %d, got %d", BoundRecursive, c.MaxRecursive)}
	}
	if c.MaxIterative < 1 || c.MaxIterative > BoundIterative {
		return &contract.UsageError{Msg: fmt.Sprintf("--max-iterative must be an integer from 1 to %d, got %d", BoundIterative, c.MaxIterative)}
	}
	return nil
}

// Variants lists the Go asyncfib variants in the catalog's order.  The
// plain calls count in a plain integer; the goroutines, which run at once on
// several threads, in an atomic one.
func Variants(cfg *Config) []contract.Variant {
	plain := func(shape string, fib func(int, *int64) uint64) contract.Variant {
		return contract.Variant{Style: "sync", Shape: shape, Mode: contract.Sequential,
			Run: func(p *contract.Pass) (contract.Result, error) {
				var calls int64
				return Pass(cfg, shape, p, func(k int) uint64 { return fib(k, &calls) }, func() int64 { return calls })
			}}
	}
	goroutine := func(shape string, fib func(int, *atomic.Int64) uint64) contract.Variant {
		return contract.Variant{Style: "goroutine", Shape: shape, Mode: contract.Sequential,
			Run: func(p *contract.Pass) (contract.Result, error) {
				var calls atomic.Int64
				return Pass(cfg, shape, p, func(k int) uint64 { return fib(k, &calls) }, calls.Load)
			}}
	}
	return []contract.Variant{
		plain("recursive", Recursive),
		plain("iterative", Iterative),
		goroutine("recursive", GoroutineRecursive),
		goroutine("iterative", GoroutineIterative),
	}
}

// Recursive is the plain recursive fib (the seed's fibonacci_10), counting
// its calls.
func Recursive(n int, calls *int64) uint64 {
	*calls++
	if n <= 1 {
		return 1
	}
	return Recursive(n-1, calls) + Recursive(n-2, calls)
}

// Iterative is the plain loop (the seed's fibonacci_20), one call.
func Iterative(n int, calls *int64) uint64 {
	*calls++
	return loop(n)
}

func loop(n int) uint64 {
	a, b := uint64(1), uint64(0)
	for ; n >= 0; n-- {
		a, b = a+b, a
	}
	return b
}

// goRecursive is one call on its own goroutine: its children on theirs.
func goRecursive(n int, calls *atomic.Int64, out chan<- uint64) {
	calls.Add(1)
	if n <= 1 {
		out <- 1
		return
	}
	ch := make(chan uint64, 2)
	go goRecursive(n-1, calls, ch)
	go goRecursive(n-2, calls, ch)
	out <- <-ch + <-ch
}

// GoroutineRecursive runs the top-level call on a goroutine and waits for it.
func GoroutineRecursive(n int, calls *atomic.Int64) uint64 {
	ch := make(chan uint64, 1)
	go goRecursive(n, calls, ch)
	return <-ch
}

// GoroutineIterative runs the loop on a goroutine and waits for it.
func GoroutineIterative(n int, calls *atomic.Int64) uint64 {
	ch := make(chan uint64, 1)
	go func() {
		calls.Add(1)
		ch <- loop(n)
	}()
	return <-ch
}

// Pass makes p.N repetitions of the top-level calls and checks them, the
// calls and the checksum.  The table of expected values is made before the
// clock starts, as C's setup makes it.
func Pass(cfg *Config, shape string, p *contract.Pass, fib func(int) uint64, calls func() int64) (contract.Result, error) {
	n := p.N
	m := cfg.MaxIterative
	if shape == "recursive" {
		m = cfg.MaxRecursive
	}
	table := make([]uint64, m+2)
	table[0], table[1] = 1, 1
	for k := 2; k < len(table); k++ {
		table[k] = table[k-1] + table[k-2]
	}
	var res contract.Result
	var sum, wantCalls, wantSum uint64
	p.Begin()
	for rep := 0; rep < n; rep++ {
		for arg := 0; arg < m; arg++ {
			got := fib(arg)
			if got != table[arg] {
				return res, &contract.Failure{Iteration: rep, Reason: fmt.Sprintf("fib(%d) returned %d, expected %d", arg, got, table[arg])}
			}
			sum += got
		}
		res.OK++
	}
	// The clock stops at the N-th check: the plain computation below is not
	// timed, as in C and Node.
	res.Done = time.Now()
	for i := 0; i < n*m; i++ {
		f := table[i%m]
		wantSum += f
		if shape == "recursive" {
			wantCalls += 2*f - 1
		} else {
			wantCalls++
		}
	}
	if uint64(calls()) != wantCalls {
		return res, &contract.Failure{Iteration: n - 1, Reason: fmt.Sprintf("made %d calls, the plain computation makes %d", calls(), wantCalls)}
	}
	if sum != wantSum {
		return res, &contract.Failure{Iteration: n - 1, Reason: fmt.Sprintf("results sum to %d, the plain computation's to %d", sum, wantSum)}
	}
	res.Extra = []contract.Extra{{Name: "calls", Value: wantCalls}, {Name: "checksum", Value: sum}}
	return res, nil
}
