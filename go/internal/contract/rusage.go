//go:build unix

package contract

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
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
	if hwm := vmHWMKb(); hwm > 0 {
		peak = hwm
	}
	return Usage{
		UserUs:    int64(ru.Utime.Sec)*1e6 + int64(ru.Utime.Usec),
		SysUs:     int64(ru.Stime.Sec)*1e6 + int64(ru.Stime.Usec),
		PeakRSSKb: peak,
	}
}

// vmHWMKb is this image's peak RSS from /proc/self/status (Linux), 0 elsewhere.
// ru_maxrss survives exec(), so a program started by a larger parent would
// report the parent's peak; VmHWM belongs to this image alone (as in C).
func vmHWMKb() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, ln := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(ln, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) >= 1 {
				if n, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
					return n
				}
			}
		}
	}
	return 0
}
