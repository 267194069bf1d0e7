package noop

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"asyncstyles/internal/contract"
)

// run runs go-noop on args and returns its exit code and output.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = contract.Run(New(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVerifyAcceptsTheOwnIterationNumberOnly(t *testing.T) {
	if err := Verify(5, 5); err != nil {
		t.Fatalf("Verify(5, 5) = %v", err)
	}
	err := Verify(5, 4)
	var f *contract.Failure
	if !errors.As(err, &f) || f.Iteration != 5 || err.Error() != "iteration 5: completed with 4, expected 5" {
		t.Errorf("Verify(5, 4) = %v, want a *contract.Failure of iteration 5", err)
	}
}

func TestTheVariantsAreSyncSequentialThenGoroutineParallelOnNone(t *testing.T) {
	w := New()
	var ids []string
	for _, v := range w.Variants {
		ids = append(ids, contract.VariantID(w.Fields(v)))
	}
	if got, want := strings.Join(ids, " "), "noop/go/sync-sequential@none noop/go/goroutine-parallel@none"; got != want {
		t.Errorf("variants %s, want %s", got, want)
	}
}

func TestEveryVariantCountsEachIterationAndNoBytes(t *testing.T) {
	for _, v := range Variants() {
		for _, n := range []int{1, 1000} {
			res, err := v.Run(contract.NewPass(n, 0))
			if err != nil || res.OK != n || res.Bytes != 0 || res.Extra != nil {
				t.Errorf("%s-%s at N=%d: %+v, %v; want %d verified, 0 bytes", v.Style, v.Mode, n, res, err, n)
			}
		}
	}
}

func TestARunPrintsTheNoopLineOfEachVariant(t *testing.T) {
	cases := map[string]string{
		"sync-sequential":    `{"workload":"noop","lang":"go","style":"sync","shape":"","mode":"sequential","method":"inprocess","backend":"none","variant":"noop/go/sync-sequential@none","iterations":2000,"concurrency":1,"ok":2000,"bytes":0,`,
		"goroutine-parallel": `{"workload":"noop","lang":"go","style":"goroutine","shape":"","mode":"parallel","method":"inprocess","backend":"none","variant":"noop/go/goroutine-parallel@none","iterations":2000,"concurrency":0,"ok":2000,"bytes":0,`,
	}
	for name, want := range cases {
		code, stdout, stderr := run("--variant", name, "--iterations", "2000", "--warmup", "10")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want 0, nothing and one line starting %s", name, code, stderr, stdout, want)
		}
	}
}

func TestNoopHasNoFlagsOfItsOwn(t *testing.T) {
	code, stdout, stderr := run("--file", "fixtures/text.txt")
	if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "go-noop: flag provided but not defined: -file\n") {
		t.Errorf("--file: exit %d, stdout %q, stderr %q; want a usage error", code, stdout, stderr)
	}
	code, stdout, _ = run("--help")
	if code != 0 || !strings.HasPrefix(stdout, "usage: go-noop [--variant NAME] [--iterations N] [--concurrency K] [--warmup N] [--passes P] [--lockstep 0|1]\n") ||
		!strings.Contains(stdout, "variants: goroutine-parallel sync-sequential\n") {
		t.Errorf("--help: exit %d:\n%s", code, stdout)
	}
}

// benchmarkVariant times b.N operations of one variant: the style's own cost
// per operation, to compare with the suite's elapsed_ns / iterations.
func benchmarkVariant(b *testing.B, run func(*contract.Pass) (contract.Result, error)) {
	b.ReportAllocs()
	res, err := run(contract.NewPass(b.N, 0))
	if err != nil || res.OK != b.N {
		b.Fatalf("ok=%d of %d, err=%v", res.OK, b.N, err)
	}
}

func BenchmarkSyncSequential(b *testing.B)    { benchmarkVariant(b, SyncSequential) }
func BenchmarkGoroutineParallel(b *testing.B) { benchmarkVariant(b, GoroutineParallel) }
