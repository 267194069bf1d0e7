package tasks

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"asyncstyles/internal/contract"
)

func TestCheckTakesDigitsWithinBounds(t *testing.T) {
	for text, ok := range map[string]bool{"1000": true, "0": true, "-5": false, "5s": false, "": false, "86400001": false, "99999999999999999999": false} {
		c := &Config{SleepText: text}
		if err := c.Check(); (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", text, err, ok)
		}
	}
}

func TestEveryTaskSleepsAndCompletes(t *testing.T) {
	var out, errb bytes.Buffer
	t0 := time.Now()
	code := contract.Run(New(), []string{"--iterations", "2000", "--sleep-ms", "30"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if time.Since(t0) < 30*time.Millisecond {
		t.Fatal("the tasks did not sleep")
	}
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line["ok"] != 2000.0 || line["start_ns"] == nil || line["start_ns"].(float64) <= 0 {
		t.Errorf("line %s", out.String())
	}
}
