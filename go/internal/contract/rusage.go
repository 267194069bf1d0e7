//go:build unix

package contract

import (
	"runtime"
	"syscall"
)

// Usage is the process's CPU time and peak resident set size so far.
type Usage struct {
	UserUs    int64
	SysUs     int64
	PeakRSSKb int64
}

// GetUsage reads getrusage(RUSAGE_SELF).  ru_maxrss is KiB on Linux and
// bytes on macOS; PeakRSSKb is KiB on both.
func GetUsage() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	peak := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		peak /= 1024
	}
	return Usage{
		UserUs:    int64(ru.Utime.Sec)*1e6 + int64(ru.Utime.Usec),
		SysUs:     int64(ru.Stime.Sec)*1e6 + int64(ru.Stime.Usec),
		PeakRSSKb: peak,
	}
}
