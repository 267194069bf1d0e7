package contract

import (
	"runtime"
	"syscall"
	"time"
)

// Pass is one pass of a variant, the warm-up or the timed one: N operations,
// K of them in flight (K = Concurrency(Mode, --concurrency); it matters to
// bounded variants only).
//
// The clock (DESIGN section 3): a variant calls Begin once, right before its
// first per-operation allocation (records, closures, goroutines, timers,
// connections), as C's ab_run_begin and Node's pass.begin(); what it
// prepares before that is only what no operation owns (a table of expected
// values, a shared client).  The clock stops when the N-th operation has
// verified (Result.Done), or when Run returns.  A pass that never began
// fails.  Begin first records what the pass did since Run was called (the
// line's preclock_heap_bytes and preclock_faults): a test runs every
// variant at two N and requires them not to grow with N.
type Pass struct {
	N, K int

	start time.Time
	begun bool
	stats *runtime.MemStats // what the marks read, made once
	mark  mark              // when the contract called the variant
	// What the pass did before Begin: bytes allocated on Go's heap and minor
	// page faults of the process.
	preclockHeapBytes, preclockFaults int64
}

// mark is the heap allocated so far and the minor page faults so far.
type mark struct {
	heapBytes, faults int64
}

// markNow reads the mark into stats, made by the caller, so that reading
// allocates nothing of its own.  runtime.ReadMemStats stops the world for a
// moment and flushes every P's cache of spans first, so TotalAlloc counts
// every allocation so far (runtime/metrics' figure counts a cached span's
// objects only when the span leaves the cache: a 16 KB slice made just
// before would not show).
func markNow(stats *runtime.MemStats) mark {
	var m mark
	runtime.ReadMemStats(stats)
	m.heapBytes = int64(stats.TotalAlloc)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		m.faults = int64(ru.Minflt)
	}
	return m
}

// NewPass is a pass of n operations with k in flight, marked now (after
// the pass and its statistics were made, so neither counts).
func NewPass(n, k int) *Pass {
	p := &Pass{N: n, K: k, stats: new(runtime.MemStats)}
	p.mark = markNow(p.stats)
	return p
}

// Begin starts the pass's clock.  Calling it twice is a bug in the variant:
// it panics.
func (p *Pass) Begin() {
	if p.begun {
		panic("contract: Pass.Begin called twice")
	}
	now := markNow(p.stats)
	p.preclockHeapBytes = max(0, now.heapBytes-p.mark.heapBytes)
	p.preclockFaults = max(0, now.faults-p.mark.faults)
	p.begun = true
	p.start = time.Now()
}

// Started is when Begin started the clock (the zero time before it).
func (p *Pass) Started() time.Time { return p.start }
