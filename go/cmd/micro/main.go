// Command micro measures, in Go, the switches the C micro-benchmarks measure
// (c/micro/coro_bench.c), so that runner/tools/micro.py can print them side by side.
//
// Usage: go-micro [N] [--tsv]   (N operations per pass, default 1,000,000)
//
//	switch.chan_pingpong  two goroutines pass a token over an unbuffered
//	                      channel; one figure is one hand-over (half a round trip)
//	switch.gosched        two goroutines call runtime.Gosched in turn; one
//	                      figure is one switch
//
// Both run with GOMAXPROCS=1, so that a hand-over is a goroutine switch on one
// thread, as a C coroutine switch is, and not a wake-up of another core.  Each
// figure: one untimed pass, then 7 timed passes; the median ns per operation by
// the wall clock and by the process's CPU time (getrusage: goroutines are not
// bound to a thread, so no thread clock measures them; with GOMAXPROCS=1 the
// runtime's other threads add little).  With --tsv each figure is one line:
// id TAB wall ns TAB cpu ns TAB process, and nothing else goes to stdout.
package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const rounds = 7

func cpuNs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintf(os.Stderr, "go-micro: getrusage: %v\n", err)
		os.Exit(3)
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}

// pingPong hands a token back and forth n times (2n hand-overs); returns the count received.
func pingPong(n int) int {
	ping, pong := make(chan int), make(chan int)
	got := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := range ping {
			pong <- v + 1
		}
	}()
	for i := 0; i < n; i++ {
		ping <- i
		if <-pong == i+1 {
			got++
		}
	}
	close(ping)
	wg.Wait()
	return got
}

// gosched runs two goroutines that yield in turn n times each (2n switches).
func gosched(n int) int {
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				counts[g]++
				runtime.Gosched()
			}
		}(g)
	}
	wg.Wait()
	return (counts[0] + counts[1]) / 2
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go-micro [N] [--tsv]   (N >= 1 operations per pass)")
	os.Exit(2)
}

func main() {
	n, tsv, haveN := 1000000, false, false
	digits := regexp.MustCompile(`^[0-9]+$`)
	for _, a := range os.Args[1:] {
		switch {
		case a == "--tsv":
			tsv = true
		case digits.MatchString(a) && !haveN:
			v, err := strconv.Atoi(a)
			if err != nil || v < 1 || v > 1000000000 {
				usage()
			}
			n, haveN = v, true
		default:
			usage()
		}
	}
	runtime.GOMAXPROCS(1)
	benches := []struct {
		id, name string
		fn       func(int) int
	}{
		{"switch.chan_pingpong", "unbuffered channel hand-over", pingPong},
		{"switch.gosched", "runtime.Gosched switch", gosched},
	}
	if !tsv {
		fmt.Printf("go micro-benchmark: N = %d, median of %d passes, GOMAXPROCS=1, CPU clock: process\n", n, rounds)
	}
	for _, b := range benches {
		if got := b.fn(n); got != n {
			fmt.Fprintf(os.Stderr, "go-micro: %s completed %d of %d\n", b.id, got, n)
			os.Exit(1)
		}
		wall, cpu := make([]float64, rounds), make([]float64, rounds)
		for r := 0; r < rounds; r++ {
			w0, c0 := time.Now(), cpuNs()
			got := b.fn(n)
			c1, w1 := cpuNs(), time.Since(w0)
			if got != n {
				fmt.Fprintf(os.Stderr, "go-micro: %s completed %d of %d\n", b.id, got, n)
				os.Exit(1)
			}
			ops := 2 * float64(n) // hand-overs or switches: two per iteration
			wall[r], cpu[r] = float64(w1.Nanoseconds())/ops, (c1-c0)/ops
		}
		if tsv {
			fmt.Printf("%s\t%.3f\t%.3f\tprocess\n", b.id, median(wall), median(cpu))
		} else {
			fmt.Printf("  %-40s %7.2f ns  (process CPU time: %.2f ns)\n", b.name, median(wall), median(cpu))
		}
	}
}
