package asyncfib

import (
	"strings"
	"testing"

	"asyncstyles/internal/contract"
)

func TestEveryVariantMakesThePlainComputationsCallsAndResults(t *testing.T) {
	cfg := &Config{MaxRecursive: DefaultMaxRecursive, MaxIterative: DefaultMaxIterative}
	// One repetition at seed 004's sizes (M = 10 for both shapes: fibonacci_10(i)
	// and fibonacci_20(i) for i < 10): fib(0..9) recursively is 276 calls summing
	// to 143; iteratively 10 calls summing to 143.
	want := map[string][2]uint64{"recursive": {276, 143}, "iterative": {10, 143}}
	for _, v := range Variants(cfg) {
		res, err := v.Run(contract.NewPass(1, 1))
		if err != nil {
			t.Fatalf("%s-%s: %v", v.Style, v.Shape, err)
		}
		if res.OK != 1 || len(res.Extra) != 2 {
			t.Fatalf("%s-%s: %+v", v.Style, v.Shape, res)
		}
		if res.Extra[0].Value != want[v.Shape][0] || res.Extra[1].Value != want[v.Shape][1] {
			t.Fatalf("%s-%s: calls %v checksum %v, want %v", v.Style, v.Shape, res.Extra[0].Value, res.Extra[1].Value, want[v.Shape])
		}
	}
}

func TestAnMOutOfItsBoundsIsAUsageError(t *testing.T) {
	for _, c := range []Config{{0, 20}, {41, 20}, {10, 0}, {10, 91}} {
		err := c.Check()
		if err == nil || !strings.Contains(err.Error(), "must be an integer from 1 to") {
			t.Fatalf("%+v: got %v", c, err)
		}
	}
}
