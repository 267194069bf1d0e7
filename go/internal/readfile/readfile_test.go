package readfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"asyncstyles/internal/contract"
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

// variants returns the variants reading cfg's file, by name.
func variants(cfg Config) map[string]contract.Variant {
	w := New()
	byName := map[string]contract.Variant{}
	for _, v := range Variants(&cfg) {
		byName[contract.Name(w.Fields(v))] = v
	}
	return byName
}

// run runs go-readfile on args and returns its exit code and output.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = contract.Run(New(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVerifyAcceptsExactContent(t *testing.T) {
	if err := Verify(3, []byte(hello), nil, []byte(hello)); err != nil {
		t.Fatalf("Verify rejected the expected content: %v", err)
	}
}

func TestVerifyRejectsWrongContentNamingTheIteration(t *testing.T) {
	for _, got := range []string{"", "Hello, world\n", "hello, world", "Hello"} {
		err := Verify(7, []byte(got), nil, []byte(hello))
		var f *contract.Failure
		if !errors.As(err, &f) {
			t.Fatalf("Verify(%q) = %v, want a *contract.Failure", got, err)
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

func TestTheVariantsAreSyncSequentialThenGoroutineParallel(t *testing.T) {
	w := New()
	var ids []string
	for _, v := range w.Variants {
		ids = append(ids, contract.VariantID(w.Fields(v)))
	}
	want := "readfile/go/sync-sequential@os.ReadFile readfile/go/goroutine-parallel@os.ReadFile"
	if strings.Join(ids, " ") != want {
		t.Errorf("variants %v, want %s", ids, want)
	}
}

func TestEveryVariantReadsAndCountsEachIteration(t *testing.T) {
	path := fixture(t, hello)
	for name, v := range variants(Config{File: path, Expect: hello}) {
		res, err := v.Run(contract.NewPass(250, 0))
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
	for name, v := range variants(Config{File: path, Expect: hello}) {
		res, err := v.Run(contract.NewPass(20, 0))
		var f *contract.Failure
		if !errors.As(err, &f) {
			t.Fatalf("%s: err = %v, want a *contract.Failure", name, err)
		}
		if res.OK != 0 || f.Iteration < 0 || f.Iteration >= 20 {
			t.Errorf("%s: ok=%d failure at %d, want 0 verified and an iteration in [0,20)", name, res.OK, f.Iteration)
		}
	}
}

func TestEveryVariantFailsWhenTheFileVanishes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.txt")
	for name, v := range variants(Config{File: missing, Expect: hello}) {
		_, err := v.Run(contract.NewPass(5, 0))
		if err == nil || !strings.Contains(err.Error(), "read failed") {
			t.Errorf("%s: err = %v, want a read failure", name, err)
		}
	}
}

func TestTheFlagsDefaultToTheFixtureAndItsText(t *testing.T) {
	fs := flag.NewFlagSet("readfile", flag.ContinueOnError)
	New().Flags(fs)
	if got := fs.Lookup("file").DefValue; got != "fixtures/text.txt" {
		t.Errorf("--file defaults to %q", got)
	}
	if got := fs.Lookup("expect").DefValue; got != "Hello, world" {
		t.Errorf("--expect defaults to %q", got)
	}
}

func TestCheckRefusesAnEmptyFileFlagAndAMissingFixture(t *testing.T) {
	if err := (&Config{File: fixture(t, hello)}).Check(); err != nil {
		t.Fatalf("a readable fixture was rejected: %v", err)
	}
	var u *contract.UsageError
	if err := (&Config{}).Check(); !errors.As(err, &u) {
		t.Errorf("an empty --file: %v, want a *contract.UsageError", err)
	}
	var e *contract.EnvError
	err := (&Config{File: "nope/missing.txt"}).Check()
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "pass --file PATH") {
		t.Errorf("a missing fixture: %v, want a *contract.EnvError naming --file", err)
	}
}

func TestARunPrintsTheReadfileLineOfEachVariant(t *testing.T) {
	path := fixture(t, hello)
	cases := map[string]string{
		"sync-sequential":    `{"workload":"readfile","lang":"go","style":"sync","shape":"","mode":"sequential","method":"inprocess","backend":"os.ReadFile","variant":"readfile/go/sync-sequential@os.ReadFile","iterations":4,"concurrency":1,"ok":4,"bytes":48,`,
		"goroutine-parallel": `{"workload":"readfile","lang":"go","style":"goroutine","shape":"","mode":"parallel","method":"inprocess","backend":"os.ReadFile","variant":"readfile/go/goroutine-parallel@os.ReadFile","iterations":4,"concurrency":0,"ok":4,"bytes":48,`,
	}
	for name, want := range cases {
		code, stdout, stderr := run("--variant", name, "--iterations", "4", "--file", path, "--warmup", "2")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) {
			t.Errorf("%s: exit %d, stderr %q, line %s; want 0, nothing and a line starting %s", name, code, stderr, stdout, want)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
			t.Errorf("%s: not JSON: %s", name, stdout)
		}
	}
}

func TestARunFailsWithTheContractsExitCodes(t *testing.T) {
	wrong := fixture(t, "Hello, World")
	cases := []struct {
		code int
		want string
		args []string
	}{
		{1, `iteration 0: read 12 bytes 'Hello, World', expected 12 bytes 'Hello, world'`, []string{"--file", wrong}},
		{1, `iteration 0: read 12 bytes 'Hello, world', expected 7 bytes 'Goodbye'`, []string{"--expect", "Goodbye", "--file", fixture(t, hello)}},
		{2, "--file must name the fixture", []string{"--file", ""}},
		{3, "fixture nope/missing.txt is missing", []string{"--file", "nope/missing.txt"}},
		{3, "is a directory", []string{"--file", t.TempDir()}},
	}
	for _, c := range cases {
		code, stdout, stderr := run(append(c.args, "--iterations", "3")...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != c.code || stdout != "" || !strings.Contains(first, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, nothing and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
		if c.code != 2 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: stderr is not one line: %q", c.args, stderr)
		}
	}
}

func TestTheUsageNamesReadfilesFlagsAndVariants(t *testing.T) {
	code, stdout, _ := run("--help")
	for _, want := range []string{"usage: go-readfile [--variant NAME] [--iterations N] [--concurrency K] [--warmup N] [--passes P] [--lockstep 0|1] [--expect TEXT] [--file PATH]",
		"variants: goroutine-parallel sync-sequential", `(default "fixtures/text.txt")`, `(default "Hello, world")`} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d; the usage lacks %q:\n%s", code, want, stdout)
		}
	}
}

// benchmarkVariant times b.N reads of the fixture in one variant; run with
// `go test -bench . ./internal/readfile` and compare with the suite's numbers
// per read (elapsed_ns / iterations).
func benchmarkVariant(b *testing.B, name string) {
	path := fixture(b, hello)
	v := variants(Config{File: path, Expect: hello})[name]
	b.ReportAllocs()
	b.ResetTimer()
	res, err := v.Run(contract.NewPass(b.N, 0))
	b.StopTimer()
	if err != nil || res.OK != b.N {
		b.Fatalf("%s: ok=%d of %d, err=%v", name, res.OK, b.N, err)
	}
}

func BenchmarkSyncSequential(b *testing.B)    { benchmarkVariant(b, "sync-sequential") }
func BenchmarkGoroutineParallel(b *testing.B) { benchmarkVariant(b, "goroutine-parallel") }
