package contract

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// count is the value of an N flag.  Only decimal digits are taken, as in C
// and Node: strconv.Atoi alone would also take a sign, and the flag
// package's Int a base prefix and underscores (and 010 as eight); leading
// zeros are decimal digits here, so 010 is ten.  Set only keeps the text and
// value checks it after parsing, because the flag package would wrap an
// error of Set in its own words: this way every bad N of a flag gets the one
// message "--iterations must be a positive integer, got 0x10".
type count struct {
	text string
	min  int // 0 or 1
}

func (c *count) String() string     { return c.text }
func (c *count) Set(s string) error { c.text = s; return nil }

// value returns the number, or a *UsageError naming the flag and the text.
func (c *count) value(name string) (int, error) {
	n, err := strconv.Atoi(c.text)
	if err != nil || !digitsOnly(c.text) || n < c.min {
		what := "a positive integer"
		if c.min == 0 {
			what = "zero or a positive integer"
		}
		got := c.text
		if got == "" {
			got = `""`
		}
		return 0, &UsageError{fmt.Sprintf("--%s must be %s, got %s", name, what, got)}
	}
	return n, nil
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// FlagCount reads a workload flag's text as decimal digits only, from lo to
// hi, the way the N flags are read; anything else is a *UsageError in the
// words the C and Go programs share: "--delay-ms must be an integer from 0
// to 86400000, got "x"".
func FlagCount(name, text string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(text)
	if err != nil || !digitsOnly(text) || n < lo || n > hi {
		return 0, &UsageError{fmt.Sprintf("%s must be an integer from %d to %d, got %q", name, lo, hi, text)}
	}
	return n, nil
}

// options are the generic flags of every program, as given.
type options struct {
	iterations  count
	concurrency count
	warmup      count
	passes      count
	lockstep    count
	variant     string
}

// settings are the generic flags' values, checked.
type settings struct {
	iterations, concurrency, warmup, passes, lockstep int
	variant                                           string
}

// genericFlags are the flags every program has; the usage lists the others
// as the workload's own.
var genericFlags = map[string]bool{"iterations": true, "concurrency": true, "warmup": true, "passes": true, "lockstep": true, "variant": true}

// register declares the generic flags on fs; defaultVariant is the workload's
// first variant.
func (o *options) register(fs *flag.FlagSet, defaultVariant string) {
	o.iterations = count{text: strconv.Itoa(DefaultIterations), min: 1}
	o.concurrency = count{text: "0", min: 0}
	o.warmup = count{text: "0", min: 0}
	o.passes = count{text: "1", min: 1}
	o.lockstep = count{text: "0", min: 0}
	fs.Var(&o.iterations, "iterations", "operations in the timed section, `N` >= 1")
	fs.Var(&o.concurrency, "concurrency", fmt.Sprintf("operations in flight in bounded mode, `K` (0 = the default bound, %d); sequential and parallel variants report their own", DefaultBound))
	fs.Var(&o.warmup, "warmup", "untimed operations before the timed section, `N` >= 0")
	fs.Var(&o.passes, "passes", fmt.Sprintf("timed passes of N after the warm-up, `P` from 1 to %d", MaxPasses))
	fs.Var(&o.lockstep, "lockstep", "1: after the warm-up, a timed pass per 'pass' on stdin, 'end' to finish (DESIGN section 3), `0|1`")
	fs.StringVar(&o.variant, "variant", defaultVariant, "which variant to run, a `NAME` of the list above")
}

// check turns the flags' texts into numbers, the first bad one a *UsageError.
func (o *options) check() (settings, error) {
	s := settings{variant: o.variant}
	var err error
	if s.iterations, err = o.iterations.value("iterations"); err != nil {
		return s, err
	}
	if s.concurrency, err = o.concurrency.value("concurrency"); err != nil {
		return s, err
	}
	if s.warmup, err = o.warmup.value("warmup"); err != nil {
		return s, err
	}
	if s.passes, err = FlagCount("--passes", o.passes.text, 1, MaxPasses); err != nil {
		return s, err
	}
	if s.lockstep, err = FlagCount("--lockstep", o.lockstep.text, 0, 1); err != nil {
		return s, err
	}
	if s.lockstep == 1 && s.passes != 1 {
		return s, &UsageError{"--lockstep runs one pass a command: --passes must be 1"}
	}
	return s, nil
}

// usage writes the program's help: a synopsis with the workload's own flags,
// the variants, the exit codes and every flag with its default.
func usage(out io.Writer, prog string, w Workload, fs *flag.FlagSet) {
	var own strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		if genericFlags[f.Name] {
			return
		}
		if arg, _ := flag.UnquoteUsage(f); arg != "" {
			fmt.Fprintf(&own, " [--%s %s]", f.Name, arg)
		} else {
			fmt.Fprintf(&own, " [--%s]", f.Name)
		}
	})
	fmt.Fprintf(out, "usage: %s [--variant NAME] [--iterations N] [--concurrency K] [--warmup N] [--passes P] [--lockstep 0|1]%s\n", prog, own.String())
	fmt.Fprintf(out, "Runs one Go %s variant and prints one JSON line with the result.\n", w.Name)
	fmt.Fprintf(out, "variants: %s\n", strings.Join(w.names(), " "))
	fmt.Fprintf(out, "exit codes: 0 valid, 1 verification failed, 2 usage error, 3 environment error\n")
	fs.SetOutput(out)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
