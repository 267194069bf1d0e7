// Package readfile is the Go side of the readfile workload: read one small
// file N times, check every read against the expected text, and report the
// run on the program contract of DESIGN section 3.
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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
)

// Exit codes of the contract.
const (
	ExitOK     = 0 // every completion verified
	ExitVerify = 1 // wrong content or a read failed
	ExitUsage  = 2 // bad flag or value, unknown variant
	ExitEnv    = 3 // fixture missing, unreadable or a directory
)

// Config is what one run needs, filled from the command line.
type Config struct {
	Variant     string
	File        string
	Expect      string
	Iterations  int
	Warmup      int
	Concurrency int
}

// Result counts the verified completions of one pass.
type Result struct {
	OK    int
	Bytes int64
}

// Failure is a verification failure: which iteration and what went wrong.
type Failure struct {
	Iteration int
	Reason    string
}

func (f *Failure) Error() string {
	return fmt.Sprintf("iteration %d: %s", f.Iteration, f.Reason)
}

// UsageError is a bad command line; the program prints it with the usage.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// EnvError is a problem with the environment (the fixture), found before timing.
type EnvError struct{ Msg string }

func (e *EnvError) Error() string { return e.Msg }

// Variant is one way of running the workload.
type Variant struct {
	Name  string // "sync-sequential"
	Style string // "sync"
	Mode  string // "sequential"
	// Run performs n reads of cfg.File, verifying each, and returns the
	// verified count or the first failure.
	Run func(cfg Config, n int) (Result, error)
}

// Backend names what performs each read, as the result line reports it.
const Backend = "os.ReadFile"

// Variants lists every Go readfile variant by name.
var Variants = map[string]Variant{
	"sync-sequential":    {Name: "sync-sequential", Style: "sync", Mode: "sequential", Run: SyncSequential},
	"goroutine-parallel": {Name: "goroutine-parallel", Style: "goroutine", Mode: "parallel", Run: GoroutineParallel},
}

// VariantNames returns the variant names, sorted, for the usage text.
func VariantNames() []string {
	names := make([]string, 0, len(Variants))
	for name := range Variants {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Validate checks the values of a command line and returns the variant to
// run, or a *UsageError naming the problem.
func (c Config) Validate() (Variant, error) {
	v, found := Variants[c.Variant]
	if !found {
		return Variant{}, &UsageError{fmt.Sprintf("unknown variant %q (choose one of %v)", c.Variant, VariantNames())}
	}
	if c.Iterations < 1 {
		return Variant{}, &UsageError{fmt.Sprintf("--iterations must be a positive integer, got %d", c.Iterations)}
	}
	if c.Warmup < 0 {
		return Variant{}, &UsageError{fmt.Sprintf("--warmup must be zero or a positive integer, got %d", c.Warmup)}
	}
	if c.Concurrency < 0 {
		return Variant{}, &UsageError{fmt.Sprintf("--concurrency must be zero (unbounded) or positive, got %d", c.Concurrency)}
	}
	if c.File == "" {
		return Variant{}, &UsageError{"--file must name the fixture"}
	}
	return v, nil
}

// CheckFixture makes sure path is a regular file this process can read,
// before anything is timed.  It returns an *EnvError saying what to fix.
func CheckFixture(path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return &EnvError{fmt.Sprintf("fixture %s is missing: run from the project root or pass --file PATH", path)}
	}
	if err != nil {
		return &EnvError{fmt.Sprintf("fixture %s cannot be examined: %v", path, err)}
	}
	if info.IsDir() {
		return &EnvError{fmt.Sprintf("fixture %s is a directory: pass --file with a regular file", path)}
	}
	// Opening a FIFO blocks until a writer comes, so anything but a regular
	// file is refused before the open below.
	if !info.Mode().IsRegular() {
		return &EnvError{fmt.Sprintf("fixture %s is %s; --file must name a regular file", path, kindOf(info.Mode()))}
	}
	f, err := os.Open(path)
	if err != nil {
		return &EnvError{fmt.Sprintf("fixture %s is unreadable: %v (fix its permissions)", path, err)}
	}
	return f.Close()
}

// kindOf names a file type that is not a regular file, for CheckFixture.
func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file"
	}
}

// Verify checks the outcome of one read of iteration i: no error and exactly
// the expected bytes.  It returns nil or a *Failure.
func Verify(i int, data []byte, readErr error, expect []byte) error {
	if readErr != nil {
		return &Failure{i, fmt.Sprintf("read failed: %v", readErr)}
	}
	if !bytes.Equal(data, expect) {
		return &Failure{i, fmt.Sprintf("read %d bytes %q, expected %d bytes %q", len(data), data, len(expect), expect)}
	}
	return nil
}

// SyncSequential reads the file n times in a loop on the calling goroutine.
func SyncSequential(cfg Config, n int) (Result, error) {
	expect := []byte(cfg.Expect)
	var res Result
	for i := 0; i < n; i++ {
		data, err := os.ReadFile(cfg.File)
		if err := Verify(i, data, err, expect); err != nil {
			return res, err
		}
		res.OK++
		res.Bytes += int64(len(data))
	}
	return res, nil
}

// GoroutineParallel starts one goroutine per read and waits for all of them.
// Each goroutine verifies its own read; the first failure is kept.
func GoroutineParallel(cfg Config, n int) (Result, error) {
	expect := []byte(cfg.Expect)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		res   Result
		first error
	)
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			data, err := os.ReadFile(cfg.File)
			err = Verify(i, data, err, expect)
			mu.Lock()
			if err != nil {
				if first == nil {
					first = err
				}
			} else {
				res.OK++
				res.Bytes += int64(len(data))
			}
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	return res, first
}

// Line is the one JSON line of a valid run, fields in the contract's order.
type Line struct {
	Workload    string `json:"workload"`
	Lang        string `json:"lang"`
	Style       string `json:"style"`
	Mode        string `json:"mode"`
	Backend     string `json:"backend"`
	Variant     string `json:"variant"`
	Iterations  int    `json:"iterations"`
	Concurrency int    `json:"concurrency"`
	OK          int    `json:"ok"`
	Bytes       int64  `json:"bytes"`
	ElapsedNs   int64  `json:"elapsed_ns"`
	UserUs      int64  `json:"user_us"`
	SysUs       int64  `json:"sys_us"`
	PeakRSSKb   int64  `json:"peak_rss_kb"`
	Runtime     string `json:"runtime"`
}

// NewLine fills the fields that follow from the variant and the result.
func NewLine(v Variant, cfg Config, res Result) Line {
	concurrency := 0 // parallel: every read in flight at once
	if v.Mode == "sequential" {
		concurrency = 1
	}
	return Line{
		Workload:    "readfile",
		Lang:        "go",
		Style:       v.Style,
		Mode:        v.Mode,
		Backend:     Backend,
		Variant:     "go/" + v.Name,
		Iterations:  cfg.Iterations,
		Concurrency: concurrency,
		OK:          res.OK,
		Bytes:       res.Bytes,
	}
}

// Encode returns the line as compact JSON without a trailing newline.
func (l Line) Encode() string {
	b, err := json.Marshal(l)
	if err != nil { // a struct of strings and ints always marshals
		panic(err)
	}
	return string(b)
}
