// Package noop is the suite's example workload: an operation does no work
// and completes with its own iteration number i, which the check compares
// with i.  It moves no bytes, has no flags and no input, so it measures a
// style's own cost and shows what a workload needs: this package, a
// cmd/noop/main.go of one line, and a catalog file.
//
//	sync-sequential     a plain function call returning i, in a loop
//	goroutine-parallel  a goroutine per operation, joined by a WaitGroup;
//	                    every one completes on a goroutine of its own, never
//	                    inside the loop that starts them
package noop

import (
	"fmt"

	"asyncstyles/internal/contract"
)

// Backend names what performs an operation: nothing.
const Backend = "none"

// New returns the noop workload for contract.Main.
func New() contract.Workload {
	return contract.Workload{
		Name:     "noop",
		Backend:  Backend,
		Variants: Variants(),
	}
}

// Variants lists the Go noop variants in the catalog's order.
func Variants() []contract.Variant {
	return []contract.Variant{
		{Style: "sync", Mode: contract.Sequential, Run: SyncSequential},
		{Style: "goroutine", Mode: contract.Parallel, Run: GoroutineParallel},
	}
}

// operation is the operation of iteration i: it completes with i.  It stays
// a real call, as in C, rather than being inlined into the loop that calls it.
//
//go:noinline
func operation(i int) int { return i }

// Verify checks the value that iteration i completed with.
func Verify(i, value int) error {
	if value != i {
		return &contract.Failure{Iteration: i, Reason: fmt.Sprintf("completed with %d, expected %d", value, i)}
	}
	return nil
}

// SyncSequential calls the operation p.N times in a loop.
func SyncSequential(p *contract.Pass) (contract.Result, error) {
	var res contract.Result
	p.Begin()
	for i := 0; i < p.N; i++ {
		if err := Verify(i, operation(i)); err != nil {
			return res, err
		}
		res.OK++
	}
	return res, nil
}

// GoroutineParallel starts one goroutine per operation and waits for all of
// them (contract.GoroutinePerOperation).  Each goroutine verifies its own
// value; the first failure is kept.
func GoroutineParallel(p *contract.Pass) (contract.Result, error) {
	return contract.GoroutinePerOperation(p, func(i int) (int64, error) {
		return 0, Verify(i, operation(i))
	})
}
