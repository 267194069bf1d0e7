package cacheloop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"asyncstyles/internal/contract"
)

func fixture(t *testing.T, content string) *Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{File: path}
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestEveryVariantHitsNMinusOneTimesAndMissesOnce(t *testing.T) {
	cfg := fixture(t, "Hello, world")
	for _, v := range Variants(cfg) {
		res, err := v.Run(contract.NewPass(100, 1))
		if err != nil {
			t.Fatalf("%s: %v", v.Style, err)
		}
		if res.OK != 100 || res.Bytes != 1200 {
			t.Fatalf("%s: ok %d bytes %d", v.Style, res.OK, res.Bytes)
		}
		want := map[string]any{"hits": 99, "misses": 1, "file_bytes": int64(12)}
		for _, e := range res.Extra {
			if want[e.Name] != e.Value {
				t.Fatalf("%s: %s = %v, want %v", v.Style, e.Name, e.Value, want[e.Name])
			}
		}
		if len(res.Extra) != 3 {
			t.Fatalf("%s: extras %v", v.Style, res.Extra)
		}
	}
}

func TestAnEmptyFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := (&Config{File: path}).Check()
	if err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("got %v", err)
	}
}

func TestAFileThatGoesAwayFailsTheMissNamingTheIteration(t *testing.T) {
	cfg := fixture(t, "abc")
	os.Remove(cfg.File)
	for _, v := range Variants(cfg) {
		if _, err := v.Run(contract.NewPass(3, 1)); err == nil || !strings.Contains(err.Error(), "load failed") {
			t.Fatalf("%s: got %v", v.Style, err)
		}
	}
}
