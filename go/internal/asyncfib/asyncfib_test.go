package asyncfib

import (
	"strings"
	"testing"

	"asyncstyles/internal/contract"
)

func TestEveryVariantMakesThePlainComputationsCallsAndResults(t *testing.T) {
	cfg := &Config{MaxRecursive: 10, MaxIterative: 20}
	// One repetition at seed 004's sizes: fib(0..9) recursively is 276 calls summing to 143;
	// fib(0..19) iteratively is 20 calls summing to 17710.
	want := map[string][2]uint64{"recursive": {276, 143}, "iterative": {20, 17710}}
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
