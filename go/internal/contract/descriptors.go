//go:build unix

package contract

import (
	"fmt"
	"syscall"
)

// SpareDescriptors is how many file descriptors a Go program needs free
// before it opens anything: two for the runtime's poller (epoll and its
// eventfd on Linux), which the first file opened creates, and one for that
// file.  Without them the runtime itself dies ("fatal error: runtime:
// eventfd failed") with exit 2, which is the contract's usage code.
const SpareDescriptors = 3

// CheckDescriptors returns an *EnvError when fewer than SpareDescriptors
// descriptors are free (ulimit -n too low), else nil.  It probes with dup,
// which the runtime does not watch, so nothing is registered with the
// poller before the limit is known to leave it room.
func CheckDescriptors() error { return CheckSpareDescriptors(SpareDescriptors) }

// CheckSpareDescriptors is CheckDescriptors for a program that opens more
// than one file before its first operation: spare counts the poller's 2 and
// every file open at once (a server: its listener and the
// /proc/sys/net/core/somaxconn read that net.Listen makes while it is open).
func CheckSpareDescriptors(spare int) error {
	var fds []int
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for len(fds) < spare {
		fd, err := syscall.Dup(2)
		if err != nil {
			var lim syscall.Rlimit
			_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
			return &EnvError{Msg: fmt.Sprintf("too few file descriptors (%v): ulimit -n is %d and %d are free; "+
				"Go's poller needs 2 and each file in flight 1: raise it to at least %d",
				err, lim.Cur, len(fds), lim.Cur+uint64(spare-len(fds)))}
		}
		fds = append(fds, fd)
	}
	return nil
}
