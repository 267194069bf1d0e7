package doxbee

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"asyncstyles/internal/contract"
)

func TestCheckTakesDigitsWithinBounds(t *testing.T) {
	for _, tc := range []struct {
		delay, queries string
		ok             bool
	}{
		{"1", "25", true}, {"0", "1", true}, {"-1", "25", false}, {"1x", "25", false},
		{"", "25", false}, {"86400001", "25", false}, {"1", "0", false}, {"1", "+3", false},
	} {
		c := &Config{DelayText: tc.delay, QueriesText: tc.queries}
		err := c.Check()
		if (err == nil) != tc.ok {
			t.Errorf("delay %q queries %q: err %v, want ok=%v", tc.delay, tc.queries, err, tc.ok)
		}
		if err != nil {
			if _, usage := err.(*contract.UsageError); !usage {
				t.Errorf("delay %q queries %q: %T, want a usage error", tc.delay, tc.queries, err)
			}
		}
	}
}

func TestTheLookupMissesAndResultsDiffer(t *testing.T) {
	if Expected(3, Lookup, 0) != 0 {
		t.Fatal("the lookup must find nothing")
	}
	if Expected(3, Put, 0) == Expected(4, Put, 0) || Expected(3, FileVersion, 1) == Expected(3, FileVersion, 2) {
		t.Fatal("results of different uploads or queries must differ")
	}
}

func TestAWrongResultFailsItsUpload(t *testing.T) {
	u := upload{i: 5}
	if err := u.verify(Put, 0, Expected(5, Put, 0)+1); err == nil || !strings.Contains(err.Error(), "blob put") {
		t.Fatalf("got %v", err)
	}
	if u.checked != 0 {
		t.Fatal("a wrong result must not count as checked")
	}
}

func TestTheSequentialShapeJoinsThePutAndTheLookupThenWaitsOneStepAtATime(t *testing.T) {
	// With one upload, two operations wait at once only for the put and the
	// lookup, as in every style of every language; 7 operations wait in all
	// (8 results: the query creation is synchronous).
	var inFlight, most, waits atomic.Int64
	c := &Config{DelayText: "1", QueriesText: "4"}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	c.wait = func() {
		waits.Add(1)
		now := inFlight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
	}
	res, err := c.Run(contract.NewPass(1, 1), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 1 || most.Load() != 2 || waits.Load() != 7 {
		t.Fatalf("ok %d, most in flight %d, waits %d: want 1, 2, 7", res.OK, most.Load(), waits.Load())
	}
}

func TestBothShapesVerifyEveryUpload(t *testing.T) {
	for _, delay := range []string{"0", "1"} {
		for _, v := range []string{"goroutine-sequential-parallel", "goroutine-parallel-parallel"} {
			var out, errb bytes.Buffer
			code := contract.Run(New(), []string{"--variant", v, "--iterations", "200", "--delay-ms", delay, "--queries", "4"}, &out, &errb)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", v, code, errb.String())
			}
			var line map[string]any
			if err := json.Unmarshal(out.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			per := 8.0
			if strings.HasPrefix(v, "goroutine-parallel") {
				per = 5
			}
			if line["ok"] != 200.0 || line["commits"] != 200.0 || line["checked"] != 200*per || line["ops_per_upload"] != per {
				t.Errorf("%s delay %s: %s", v, delay, out.String())
			}
		}
	}
}
