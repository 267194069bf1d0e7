package readfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const hello = "Hello, world"

// fixture writes content to a fresh file and returns its path.
func fixture(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVerifyAcceptsExactContent(t *testing.T) {
	if err := Verify(3, []byte(hello), nil, []byte(hello)); err != nil {
		t.Fatalf("Verify rejected the expected content: %v", err)
	}
}

func TestVerifyRejectsWrongContentNamingTheIteration(t *testing.T) {
	for _, got := range []string{"", "Hello, world\n", "hello, world", "Hello"} {
		err := Verify(7, []byte(got), nil, []byte(hello))
		var f *Failure
		if !errors.As(err, &f) {
			t.Fatalf("Verify(%q) = %v, want a *Failure", got, err)
		}
		if f.Iteration != 7 || !strings.Contains(err.Error(), "iteration 7") {
			t.Errorf("Verify(%q) = %q, want it to name iteration 7", got, err)
		}
	}
}

func TestVerifyReportsReadErrors(t *testing.T) {
	err := Verify(0, nil, os.ErrPermission, []byte(hello))
	if err == nil || !strings.Contains(err.Error(), "read failed") {
		t.Fatalf("Verify with a read error = %v, want a read failure", err)
	}
}

func TestEveryVariantReadsAndCountsEachIteration(t *testing.T) {
	path := fixture(t, hello)
	for _, name := range VariantNames() {
		v := Variants[name]
		res, err := v.Run(Config{File: path, Expect: hello}, 250)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.OK != 250 || res.Bytes != 250*int64(len(hello)) {
			t.Errorf("%s: ok=%d bytes=%d, want 250 and %d", name, res.OK, res.Bytes, 250*len(hello))
		}
	}
}

func TestEveryVariantFailsOnWrongContent(t *testing.T) {
	path := fixture(t, "Goodbye")
	for _, name := range VariantNames() {
		res, err := Variants[name].Run(Config{File: path, Expect: hello}, 20)
		var f *Failure
		if !errors.As(err, &f) {
			t.Fatalf("%s: err = %v, want a *Failure", name, err)
		}
		if res.OK != 0 || f.Iteration < 0 || f.Iteration >= 20 {
			t.Errorf("%s: ok=%d failure at %d, want 0 verified and an iteration in [0,20)", name, res.OK, f.Iteration)
		}
	}
}

func TestEveryVariantFailsWhenTheFileVanishes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.txt")
	for _, name := range VariantNames() {
		_, err := Variants[name].Run(Config{File: missing, Expect: hello}, 5)
		if err == nil || !strings.Contains(err.Error(), "read failed") {
			t.Errorf("%s: err = %v, want a read failure", name, err)
		}
	}
}

func TestValidateRejectsBadValues(t *testing.T) {
	good := Config{Variant: "sync-sequential", File: "x", Expect: hello, Iterations: 1}
	if _, err := good.Validate(); err != nil {
		t.Fatalf("a good config was rejected: %v", err)
	}
	cases := map[string]func(c *Config){
		"unknown variant":      func(c *Config) { c.Variant = "callback-parallel" },
		"zero iterations":      func(c *Config) { c.Iterations = 0 },
		"negative iterations":  func(c *Config) { c.Iterations = -5 },
		"negative warm-up":     func(c *Config) { c.Warmup = -1 },
		"negative concurrency": func(c *Config) { c.Concurrency = -2 },
		"empty file":           func(c *Config) { c.File = "" },
	}
	for what, change := range cases {
		c := good
		change(&c)
		_, err := c.Validate()
		var u *UsageError
		if !errors.As(err, &u) {
			t.Errorf("%s: err = %v, want a *UsageError", what, err)
		}
	}
}

func TestCheckFixture(t *testing.T) {
	if err := CheckFixture(fixture(t, hello)); err != nil {
		t.Fatalf("a readable file was rejected: %v", err)
	}
	dir := t.TempDir()
	cases := map[string]string{
		filepath.Join(dir, "missing.txt"): "is missing",
		dir:                               "is a directory",
	}
	for path, want := range cases {
		err := CheckFixture(path)
		var e *EnvError
		if !errors.As(err, &e) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckFixture(%s) = %v, want an *EnvError saying %q", path, err, want)
		}
	}
}

func TestCheckFixtureRejectsAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	path := fixture(t, hello)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	err := CheckFixture(path)
	if err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("CheckFixture of a mode-0 file = %v, want unreadable", err)
	}
}

func TestLineCarriesEveryContractFieldInOrder(t *testing.T) {
	cfg := Config{Iterations: 4}
	line := NewLine(Variants["goroutine-parallel"], cfg, Result{OK: 4, Bytes: 48})
	text := line.Encode()
	var obj map[string]any
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	want := []string{"workload", "lang", "style", "mode", "backend", "variant", "iterations",
		"concurrency", "ok", "bytes", "elapsed_ns", "user_us", "sys_us", "peak_rss_kb", "runtime"}
	last := -1
	for _, k := range want {
		i := strings.Index(text, `"`+k+`":`)
		if i < 0 || i < last {
			t.Fatalf("field %s missing or out of order in %s", k, text)
		}
		last = i
	}
	if obj["variant"] != "go/goroutine-parallel" || obj["style"] != "goroutine" || obj["concurrency"] != 0.0 {
		t.Errorf("unexpected identity fields in %s", text)
	}
	if seq := NewLine(Variants["sync-sequential"], cfg, Result{}); seq.Concurrency != 1 {
		t.Errorf("a sequential variant reports concurrency %d, want 1", seq.Concurrency)
	}
}

func TestGetUsageReportsAResidentSetSize(t *testing.T) {
	if u := GetUsage(); u.PeakRSSKb <= 0 || u.UserUs < 0 || u.SysUs < 0 {
		t.Fatalf("GetUsage() = %+v, want a positive peak RSS and non-negative times", u)
	}
}

// benchmarkVariant times b.N reads of the fixture in one variant; run with
// `go test -bench . ./internal/readfile` and compare with the suite's numbers
// per read (elapsed_ns / iterations).
func benchmarkVariant(b *testing.B, name string) {
	path := fixture(b, hello)
	cfg := Config{File: path, Expect: hello}
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Variants[name].Run(cfg, b.N)
	b.StopTimer()
	if err != nil || res.OK != b.N {
		b.Fatalf("%s: ok=%d of %d, err=%v", name, res.OK, b.N, err)
	}
}

func BenchmarkSyncSequential(b *testing.B)    { benchmarkVariant(b, "sync-sequential") }
func BenchmarkGoroutineParallel(b *testing.B) { benchmarkVariant(b, "goroutine-parallel") }

// A FIFO would block the fixture check's open until a writer came: it must be
// refused as an environment error at once.
func TestCheckFixtureRejectsAFIFOWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- CheckFixture(path) }()
	select {
	case err := <-done:
		var e *EnvError
		if !errors.As(err, &e) || !strings.Contains(err.Error(), "is a FIFO") {
			t.Fatalf("CheckFixture(FIFO) = %v, want an *EnvError saying it is a FIFO", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CheckFixture(FIFO) blocked")
	}
}
