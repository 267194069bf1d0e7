// Package tasks starts N tasks at once, each a goroutine suspended in
// time.Sleep(--sleep-ms T) and then completing with its own number, joined
// by a WaitGroup (goroutine-parallel).  The line adds start_ns, the time
// from the start of the pass until the last goroutine was started.
package tasks

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"time"

	"asyncstyles/internal/contract"
)

// Backend names what a task sleeps on.
const Backend = "time.Sleep"

// DefaultSleepMs is --sleep-ms's default; the catalog's value must equal it.
const DefaultSleepMs = "1000"

const maxSleepMs = 86400000

// Config holds the workload's flag.
type Config struct {
	SleepText string
	Sleep     time.Duration
}

// New returns the tasks workload for contract.Main.
func New() contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "tasks",
		Backend: Backend,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.SleepText, "sleep-ms", DefaultSleepMs, "every task sleeps `T` ms (0: yields once)")
		},
		Check: cfg.Check,
		Variants: []contract.Variant{
			{Style: "goroutine", Mode: contract.Parallel, Run: cfg.Run},
		},
	}
}

// Check turns --sleep-ms into a duration; a bad value is a *contract.UsageError.
func (c *Config) Check() error {
	ms, err := contract.FlagCount("--sleep-ms", c.SleepText, 0, maxSleepMs)
	c.Sleep = time.Duration(ms) * time.Millisecond
	return err
}

// Run starts p.N sleeping goroutines and waits for all; each records the
// number it completes with, and every record is verified after the join.
// start_ns counts from the clock's start, as in C and Node.
func (c *Config) Run(p *contract.Pass) (contract.Result, error) {
	n := p.N
	var wg sync.WaitGroup
	p.Begin()
	t0 := p.Started()
	done := make([]int, n) // task i writes i + 1: per-task state, inside the clock
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			if c.Sleep > 0 {
				time.Sleep(c.Sleep)
			} else {
				runtime.Gosched()
			}
			done[i] = i + 1
		}(i)
	}
	started := time.Since(t0)
	wg.Wait()
	res := contract.Result{Extra: []contract.Extra{{Name: "start_ns", Value: started.Nanoseconds()}}}
	for i, got := range done {
		if got != i+1 {
			return res, &contract.Failure{Iteration: i, Reason: fmt.Sprintf("the task completed with %d, expected %d", got-1, i)}
		}
		res.OK++
	}
	return res, nil
}
