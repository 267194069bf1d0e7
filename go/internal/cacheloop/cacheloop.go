// Package cacheloop is seed 002's workload in Go: load(name) returns a
// file's content from a cache; the first load of a pass misses and reads the
// file with os.ReadFile, every other load hits.  A pass is N sequential
// loads summing the lengths; it is valid when hits = N - 1, misses = 1 and
// the sum = N x the file's length.
//
//	sync-sequential       load is a plain function call
//	goroutine-sequential  every load runs on a goroutine of its own that
//	                      answers on a channel; the loop waits for each answer
//	                      before the next load (Go's way to make a call
//	                      asynchronous, whether or not its result is there)
package cacheloop

import (
	"flag"
	"fmt"
	"os"

	"asyncstyles/internal/contract"
)

// DefaultFile equals the catalog's --file.
const DefaultFile = "fixtures/text.txt"

// Backend names what reads the miss.
const Backend = "os.ReadFile"

// Config holds the workload's flag and what Check learnt of the file.
type Config struct {
	File string
	size int64
}

// New returns the cacheloop workload for contract.Main.
func New() contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "cacheloop",
		Backend: Backend,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.File, "file", DefaultFile, "the file every load returns, a `PATH` (cached after the first load)")
		},
		Check:    cfg.Check,
		Variants: Variants(cfg),
	}
}

// Variants lists the Go cacheloop variants in the catalog's order.
func Variants(cfg *Config) []contract.Variant {
	return []contract.Variant{
		{Style: "sync", Mode: contract.Sequential, Run: func(p *contract.Pass) (contract.Result, error) { return Sync(cfg, p) }},
		{Style: "goroutine", Mode: contract.Sequential, Run: func(p *contract.Pass) (contract.Result, error) { return Goroutine(cfg, p) }},
	}
}

// Check refuses a file that cannot be the cached content: missing, not a
// regular file, unreadable, or empty.
func (c *Config) Check() error {
	if c.File == "" {
		return &contract.UsageError{Msg: "--file must name the file to cache"}
	}
	if err := contract.CheckFixture(c.File, "--file"); err != nil {
		return err
	}
	info, err := os.Stat(c.File)
	if err != nil {
		return &contract.EnvError{Msg: fmt.Sprintf("fixture %s cannot be examined: %v", c.File, err)}
	}
	if info.Size() == 0 {
		return &contract.EnvError{Msg: fmt.Sprintf("fixture %s is empty; --file must name a file with content to cache", c.File)}
	}
	c.size = info.Size()
	return nil
}

// cache is one pass's cache and its counters.
type cache struct {
	entries      map[string][]byte
	hits, misses int
}

// load returns name's content: from the cache, or read and cached.
func (c *cache) load(name string) ([]byte, error) {
	if data, ok := c.entries[name]; ok {
		c.hits++
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	c.misses++
	c.entries[name] = data
	return data, nil
}

// answer is what a load's goroutine sends back.
type answer struct {
	data []byte
	err  error
}

// pass runs p.N loads through get and checks every one and the counts; the
// clock starts at the first (the cache and get are the pass's, not a load's).
func pass(cfg *Config, p *contract.Pass, c *cache, get func() ([]byte, error)) (contract.Result, error) {
	var res contract.Result
	n := p.N
	p.Begin()
	for i := 0; i < n; i++ {
		data, err := get()
		if err != nil {
			return res, &contract.Failure{Iteration: i, Reason: fmt.Sprintf("load failed: %v", err)}
		}
		if int64(len(data)) != cfg.size {
			return res, &contract.Failure{Iteration: i, Reason: fmt.Sprintf("load returned %d bytes, expected the file's %d", len(data), cfg.size)}
		}
		res.OK++
		res.Bytes += int64(len(data))
	}
	if c.hits != n-1 || c.misses != 1 {
		return res, &contract.Failure{Iteration: n - 1, Reason: fmt.Sprintf("%d hits and %d misses, expected %d and 1", c.hits, c.misses, n-1)}
	}
	res.Extra = []contract.Extra{{Name: "hits", Value: c.hits}, {Name: "misses", Value: c.misses}, {Name: "file_bytes", Value: cfg.size}}
	return res, nil
}

// Sync loads with a plain function call.
func Sync(cfg *Config, p *contract.Pass) (contract.Result, error) {
	c := &cache{entries: map[string][]byte{}}
	return pass(cfg, p, c, func() ([]byte, error) { return c.load(cfg.File) })
}

// Goroutine runs every load on a goroutine of its own, answering on a channel.
func Goroutine(cfg *Config, p *contract.Pass) (contract.Result, error) {
	c := &cache{entries: map[string][]byte{}}
	ch := make(chan answer)
	return pass(cfg, p, c, func() ([]byte, error) {
		go func() {
			data, err := c.load(cfg.File)
			ch <- answer{data, err}
		}()
		a := <-ch
		return a.data, a.err
	})
}
