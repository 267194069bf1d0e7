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
func CheckDescriptors() error {
	var fds []int
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for len(fds) < SpareDescriptors {
		fd, err := syscall.Dup(2)
		if err != nil {
			var lim syscall.Rlimit
			_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
			return &EnvError{Msg: fmt.Sprintf("too few file descriptors (%v): ulimit -n is %d and %d are free; "+
				"Go's poller needs 2 and each file in flight 1: raise it to at least %d",
				err, lim.Cur, len(fds), lim.Cur+uint64(SpareDescriptors-len(fds)))}
		}
		fds = append(fds, fd)
	}
	return nil
}
