// Package readfile is the Go side of the readfile workload: read one small
// file N times and check every read against the expected text.  The program
// contract (flags, timing, the line, exit codes) is package contract's; this
// package holds only what is readfile's: its flags and their defaults, its
// fixture check, its verification and its variants.
//
// Two variants run here:
//
//	sync-sequential     os.ReadFile in a loop on one goroutine, as seed 000's
//	                    Go program does
//	goroutine-parallel  one goroutine per read, joined by a WaitGroup
//
// Both use os.ReadFile, which opens, stats, reads and closes the file with
// blocking system calls; the Go runtime parks the goroutine's thread in the
// kernel, so goroutine-parallel is Go's counterpart of issuing every read at
// once on an event loop's thread pool.
package readfile

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"asyncstyles/internal/contract"
)

// The defaults of readfile's flags: the one place in Go for them.  They must
// equal the catalog's values for --file and --expect.
const (
	DefaultFile   = "fixtures/text.txt"
	DefaultExpect = "Hello, world"
)

// Backend names what performs each read, as the line reports it.
const Backend = "os.ReadFile"

// Config is readfile's own flags.
type Config struct {
	File   string // the fixture to read
	Expect string // the exact content every read must return
}

// New returns the readfile workload for contract.Main, with its flags bound
// to a Config of its own.
func New() contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "readfile",
		Backend: Backend,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.File, "file", DefaultFile, "the fixture to read, a `PATH` relative to the working directory")
			fs.StringVar(&cfg.Expect, "expect", DefaultExpect, "the exact `TEXT` every read must return")
		},
		Check:    cfg.Check,
		Variants: Variants(cfg),
	}
}

// Variants lists the Go readfile variants in the catalog's order, each
// reading cfg's file as it is when the variant runs.
func Variants(cfg *Config) []contract.Variant {
	return []contract.Variant{
		{Style: "sync", Mode: contract.Sequential, Run: func(p *contract.Pass) (contract.Result, error) { return SyncSequential(*cfg, p) }},
		{Style: "goroutine", Mode: contract.Parallel, Run: func(p *contract.Pass) (contract.Result, error) { return GoroutineParallel(*cfg, p) }},
	}
}

// Check refuses an empty --file (a *contract.UsageError) and anything but a
// readable regular file (a *contract.EnvError), before anything is timed.
func (c *Config) Check() error {
	if c.File == "" {
		return &contract.UsageError{Msg: "--file must name the fixture"}
	}
	return contract.CheckFixture(c.File, "--file")
}

// Verify checks the outcome of one read of iteration i: no error and exactly
// the expected bytes.  It returns nil or a *contract.Failure whose reason
// quotes at most contract.QuoteMax bytes of each side (contract.Quote), in
// the C programs' words, however large the file.
func Verify(i int, data []byte, readErr error, expect []byte) error {
	if readErr != nil {
		return &contract.Failure{Iteration: i, Reason: fmt.Sprintf("read failed: %v", readErr)}
	}
	if !bytes.Equal(data, expect) {
		return &contract.Failure{Iteration: i, Reason: fmt.Sprintf("read %d bytes '%s', expected %d bytes '%s'",
			len(data), contract.Quote(data), len(expect), contract.Quote(expect))}
	}
	return nil
}

// SyncSequential reads the file n times in a loop on the calling goroutine.
func SyncSequential(cfg Config, p *contract.Pass) (contract.Result, error) {
	expect := []byte(cfg.Expect)
	var res contract.Result
	p.Begin()
	for i := 0; i < p.N; i++ {
		data, err := os.ReadFile(cfg.File)
		if err := Verify(i, data, err, expect); err != nil {
			return res, err
		}
		res.OK++
		res.Bytes += int64(len(data))
	}
	return res, nil
}

// GoroutineParallel starts one goroutine per read and waits for all of them
// (contract.GoroutinePerOperation).  Each goroutine verifies its own read; the
// first failure is kept.
func GoroutineParallel(cfg Config, p *contract.Pass) (contract.Result, error) {
	expect := []byte(cfg.Expect)
	return contract.GoroutinePerOperation(p, func(i int) (int64, error) {
		data, err := os.ReadFile(cfg.File)
		if err := Verify(i, data, err, expect); err != nil {
			return 0, err
		}
		return int64(len(data)), nil
	})
}
