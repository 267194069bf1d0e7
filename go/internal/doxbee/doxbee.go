// Package doxbee is bluebird's benchmark of fake database transactions
// (seed 003) in Go: an upload is a transaction of fake operations, each
// completing after --delay-ms T (time.Sleep; T = 0 yields the processor
// once instead, runtime.Gosched), and a pass starts all N uploads at once,
// a goroutine each, joined by a WaitGroup.
//
//	goroutine-sequential-parallel  blob put and file lookup at once (the
//	                               lookup on a goroutine of its own, joined
//	                               on a channel; it misses, so the create
//	                               branch runs), then version insert, query
//	                               creation (synchronous), query execution,
//	                               file-version insert, file update, commit,
//	                               one after another: 8 results per upload
//	goroutine-parallel-parallel    --queries P file-version inserts at once,
//	                               a goroutine each sending its result on a
//	                               channel, joined, then commit: P + 1
//
// Every result is checked against Expected before the upload goes on; an
// upload verifies when it committed once with every result checked.  The
// line adds commits, checked and ops_per_upload.  Every style of every
// language (c/doxbee, node/doxbee) does the same work: the put and the lookup
// joined, as bluebird's promise version joins them, and the commit waited
// for and checked.
package doxbee

import (
	"flag"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"asyncstyles/internal/contract"
)

// Backend names what performs an operation: Go's timers.
const Backend = "timer"

// The defaults of the flags; the catalog's values must equal them.
const (
	DefaultDelayMs = "1"
	DefaultQueries = "25"
	maxDelayMs     = 86400000
	maxQueries     = 1000000
)

// Kinds of fake operation, in the sequential shape's order.
const (
	Put = iota
	Lookup
	Version
	Create
	Exec
	FileVersion
	Update
	Commit
	Steps // results per sequential upload
)

var kindNames = [Steps]string{"blob put", "file lookup", "version insert", "query creation",
	"query execution", "file-version insert", "file update", "commit"}

// Config holds the workload's flags.
type Config struct {
	DelayText, QueriesText string
	Delay                  time.Duration
	Queries                int
	wait                   func() // how a fake operation waits: nil is the delay (the tests watch it)
}

// New returns the doxbee workload for contract.Main.
func New() contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "doxbee",
		Backend: Backend,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.DelayText, "delay-ms", DefaultDelayMs, "every fake operation completes after `T` ms (0: yields once)")
			fs.StringVar(&cfg.QueriesText, "queries", DefaultQueries, "queries at once per upload in the parallel shape, `P`")
		},
		Check: cfg.Check,
		Variants: []contract.Variant{
			{Style: "goroutine", Shape: "sequential", Mode: contract.Parallel, Run: func(p *contract.Pass) (contract.Result, error) { return cfg.Run(p, false) }},
			{Style: "goroutine", Shape: "parallel", Mode: contract.Parallel, Run: func(p *contract.Pass) (contract.Result, error) { return cfg.Run(p, true) }},
		},
	}
}

// Check turns the flags into numbers; a bad one is a *contract.UsageError.
func (c *Config) Check() error {
	d, err := contract.FlagCount("--delay-ms", c.DelayText, 0, maxDelayMs)
	if err != nil {
		return err
	}
	q, err := contract.FlagCount("--queries", c.QueriesText, 1, maxQueries)
	if err != nil {
		return err
	}
	c.Delay, c.Queries = time.Duration(d)*time.Millisecond, q
	return nil
}

// Expected is the value operation kind (index j) of upload i completes
// with; the lookup finds nothing (0).
func Expected(i, kind, j int) int64 {
	if kind == Lookup {
		return 0
	}
	return (int64(i)*16+int64(kind))*(maxQueries+1) + int64(j) + 1
}

// fake is one fake operation: it completes after the delay with its value.
func (c *Config) fake(i, kind, j int) int64 {
	if c.wait != nil {
		c.wait()
	} else if c.Delay > 0 {
		time.Sleep(c.Delay)
	} else {
		runtime.Gosched()
	}
	return Expected(i, kind, j)
}

// createQuery is the synchronous query creation: its callback runs inside the call.
func createQuery(i int, cb func(q int64)) { cb(Expected(i, Create, 0)) }

// upload counts what it checked and committed.
type upload struct {
	i                int
	checked, commits int
}

func (u *upload) verify(kind, j int, got int64) error {
	if want := Expected(u.i, kind, j); got != want {
		return &contract.Failure{Iteration: u.i, Reason: fmt.Sprintf("%s %d returned %d, expected %d", kindNames[kind], j, got, want)}
	}
	u.checked++
	return nil
}

func (c *Config) sequential(u *upload) error {
	// The put and the lookup at once: the lookup on a goroutine of its own.
	lookup := make(chan int64, 1)
	go func() { lookup <- c.fake(u.i, Lookup, 0) }()
	put := c.fake(u.i, Put, 0)
	file := <-lookup
	if err := u.verify(Put, 0, put); err != nil {
		return err
	}
	if err := u.verify(Lookup, 0, file); err != nil {
		return err
	}
	for kind := Version; kind < Commit; kind++ {
		var got int64
		if kind == Create {
			createQuery(u.i, func(q int64) { got = q })
		} else {
			got = c.fake(u.i, kind, 0)
		}
		if err := u.verify(kind, 0, got); err != nil {
			return err
		}
	}
	return c.commit(u)
}

func (c *Config) parallel(u *upload) error {
	type reply struct {
		j   int
		got int64
	}
	replies := make(chan reply, c.Queries)
	for j := 0; j < c.Queries; j++ {
		go func(j int) { replies <- reply{j, c.fake(u.i, FileVersion, j)} }(j)
	}
	var first error
	for k := 0; k < c.Queries; k++ {
		r := <-replies
		if err := u.verify(FileVersion, r.j, r.got); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return c.commit(u)
}

func (c *Config) commit(u *upload) error {
	if err := u.verify(Commit, 0, c.fake(u.i, Commit, 0)); err != nil {
		return err
	}
	u.commits++
	return nil
}

// Run starts p.N uploads at once, each on a goroutine, and verifies each.
func (c *Config) Run(p *contract.Pass, par bool) (contract.Result, error) {
	var checked, commits atomic.Int64
	perUpload := Steps
	if par {
		perUpload = c.Queries + 1
	}
	res, err := contract.GoroutinePerOperation(p, func(i int) (int64, error) {
		u := upload{i: i}
		var err error
		if par {
			err = c.parallel(&u)
		} else {
			err = c.sequential(&u)
		}
		checked.Add(int64(u.checked))
		commits.Add(int64(u.commits))
		if err == nil && (u.commits != 1 || u.checked != perUpload) {
			err = &contract.Failure{Iteration: i, Reason: fmt.Sprintf("committed %d times with %d results checked, expected once with %d", u.commits, u.checked, perUpload)}
		}
		return 0, err
	})
	res.Extra = []contract.Extra{{Name: "commits", Value: commits.Load()}, {Name: "checked", Value: checked.Load()},
		{Name: "ops_per_upload", Value: perUpload}}
	return res, err
}
