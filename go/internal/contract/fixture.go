package contract

import (
	"errors"
	"fmt"
	"os"
)

// CheckFixture makes sure path, the value of the workload's flag (e.g.
// "--file"), is a regular file this process can read, before anything is
// timed.  It returns nil or an *EnvError saying what to fix.
func CheckFixture(path, flag string) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return &EnvError{fmt.Sprintf("fixture %s is missing: run from the project root or pass %s PATH", path, flag)}
	}
	if err != nil {
		return &EnvError{fmt.Sprintf("fixture %s cannot be examined: %v", path, err)}
	}
	if info.IsDir() {
		return &EnvError{fmt.Sprintf("fixture %s is a directory: pass %s with a regular file", path, flag)}
	}
	// Opening a FIFO blocks until a writer comes, so anything but a regular
	// file is refused before the open below.
	if !info.Mode().IsRegular() {
		return &EnvError{fmt.Sprintf("fixture %s is %s; %s must name a regular file", path, kindOf(info.Mode()), flag)}
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
