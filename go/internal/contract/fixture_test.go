package contract

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture writes content to a fresh file and returns its path.
func fixture(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// expectEnvError wants CheckFixture(path, "--in") to be an *EnvError saying want.
func expectEnvError(t *testing.T, path, want string) {
	t.Helper()
	err := CheckFixture(path, "--in")
	var e *EnvError
	if !errors.As(err, &e) || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckFixture(%s) = %v, want an *EnvError saying %q", path, err, want)
	}
}

func TestCheckFixtureAcceptsAReadableRegularFile(t *testing.T) {
	if err := CheckFixture(fixture(t, "Hello, world"), "--in"); err != nil {
		t.Fatalf("a readable file was rejected: %v", err)
	}
}

func TestCheckFixtureNamesAMissingFileAndADirectoryAndTheFlag(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	expectEnvError(t, missing, "fixture "+missing+" is missing: run from the project root or pass --in PATH")
	expectEnvError(t, dir, "fixture "+dir+" is a directory: pass --in with a regular file")
}

func TestCheckFixtureRejectsAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	path := fixture(t, "Hello, world")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	expectEnvError(t, path, "unreadable")
}

// A FIFO would block the fixture check's open until a writer came: it must be
// refused as an environment error at once.
func TestCheckFixtureRejectsAFIFOWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		expectEnvError(t, path, "is a FIFO; --in must name a regular file")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("CheckFixture(FIFO) blocked")
	}
}

func TestCheckFixtureRejectsASocketAndADevice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer l.Close()
	expectEnvError(t, path, "is a socket; --in must name a regular file")
	if _, err := os.Stat("/dev/null"); err == nil {
		expectEnvError(t, "/dev/null", "is a device; --in must name a regular file")
	}
}
