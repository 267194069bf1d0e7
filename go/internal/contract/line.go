package contract

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Line is the one JSON line of a valid run, its fields in the contract's
// order, the same in C, Go and Node.  Extra holds a workload's own fields, written after runtime in
// their order; their names must not repeat the contract's.
type Line struct {
	Workload    string  `json:"workload"`
	Lang        string  `json:"lang"`
	Style       string  `json:"style"`
	Shape       string  `json:"shape"`
	Mode        string  `json:"mode"`
	Method      string  `json:"method"`
	Backend     string  `json:"backend"`
	Variant     string  `json:"variant"`
	Iterations  int     `json:"iterations"`
	Concurrency int     `json:"concurrency"`
	OK          int     `json:"ok"`
	Bytes       int64   `json:"bytes"`
	ElapsedNs   int64   `json:"elapsed_ns"`
	UserUs      int64   `json:"user_us"`
	SysUs       int64   `json:"sys_us"`
	PeakRSSKb   int64   `json:"peak_rss_kb"`
	IdleRSSKb   int64   `json:"idle_rss_kb"`
	Runtime     string  `json:"runtime"`
	Extra       []Extra `json:"-"`
	// Trailing is written after Extra: the most any timed pass did before
	// its clock (Pass.Begin: preclock_heap_bytes, preclock_faults), how long
	// the warm-up took (warmup_ns) and every timed pass's time
	// (passes_elapsed_ns, the first being ElapsedNs).
	Trailing []Extra `json:"-"`
}

// Extra is one field a workload appends to its line, e.g. a cache's hits.
type Extra struct {
	Name  string
	Value any // anything encoding/json writes as one value
}

// NewLine fills the fields that follow from the variant's fields, N, the
// pass's K (Concurrency) and the result; the caller adds the measurements.
// The line's concurrency is the most in flight (DESIGN section 3): 1, 0 for
// all N, or min(K, N).
func NewLine(f Fields, iterations, concurrency int, res Result) Line {
	if concurrency > iterations {
		concurrency = iterations
	}
	return Line{
		Workload:    f.Workload,
		Lang:        f.Lang,
		Style:       f.Style,
		Shape:       f.Shape,
		Mode:        f.Mode,
		Method:      f.Method,
		Backend:     f.Backend,
		Variant:     VariantID(f),
		Iterations:  iterations,
		Concurrency: concurrency,
		OK:          res.OK,
		Bytes:       res.Bytes,
		Extra:       res.Extra,
	}
}

// Encode returns the line as compact JSON without a trailing newline.  A
// value that encoding/json cannot write is a bug in the workload: it panics.
func (l Line) Encode() string {
	b, err := json.Marshal(l)
	if err != nil { // a struct of strings and ints always marshals
		panic(err)
	}
	if len(l.Extra)+len(l.Trailing) == 0 {
		return string(b)
	}
	// encoding/json writes a map's keys sorted, so the workload's fields are
	// appended by hand to keep their order.
	var out strings.Builder
	out.Write(b[:len(b)-1])
	for _, e := range append(append([]Extra{}, l.Extra...), l.Trailing...) {
		name, _ := json.Marshal(e.Name)
		value, err := json.Marshal(e.Value)
		if err != nil {
			panic(fmt.Sprintf("contract: extra field %s: %v", e.Name, err))
		}
		fmt.Fprintf(&out, ",%s:%s", name, value)
	}
	out.WriteByte('}')
	return out.String()
}
