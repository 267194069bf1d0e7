// Command go-readfile reads a small file N times in one of the Go readfile
// variants and prints one JSON result line (DESIGN section 3).
//
// Only the timed section is measured: the flags, the fixture check and the
// warm-up iterations come before the clock starts, and printing comes after.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"asyncstyles/internal/readfile"
)

var (
	iterations  = flag.Int("iterations", 10000, "reads in the timed section (a positive integer)")
	file        = flag.String("file", "fixtures/text.txt", "the fixture to read, relative to the working directory")
	expect      = flag.String("expect", "Hello, world", "the exact content every read must return")
	concurrency = flag.Int("concurrency", 0, "reads in flight for bounded variants (0 = unbounded); parallel and sequential variants report their own")
	warmup      = flag.Int("warmup", 0, "untimed reads before the timed section")
	variant     = flag.String("variant", "sync-sequential", "which variant to run")
)

func usage(out io.Writer) {
	fmt.Fprintf(out, "usage: go-readfile [--variant NAME] [--iterations N] [--file PATH] [--expect TEXT] [--concurrency K] [--warmup N]\n")
	fmt.Fprintf(out, "variants: %v\n", readfile.VariantNames())
	flag.CommandLine.SetOutput(out)
	flag.PrintDefaults()
}

func main() {
	// The flag package's own messages are replaced by ours so that --help goes
	// to stdout and every usage error is one line followed by the usage.
	flag.CommandLine.Init(os.Args[0], flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	if err := flag.CommandLine.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(os.Stdout)
			os.Exit(readfile.ExitOK)
		}
		failUsage(err.Error())
	}
	if flag.NArg() > 0 {
		failUsage(fmt.Sprintf("unexpected argument %q", flag.Arg(0)))
	}
	os.Exit(run())
}

func failUsage(msg string) {
	fmt.Fprintf(os.Stderr, "go-readfile: %s\n", msg)
	usage(os.Stderr)
	os.Exit(readfile.ExitUsage)
}

func run() int {
	cfg := readfile.Config{
		Variant:     *variant,
		File:        *file,
		Expect:      *expect,
		Iterations:  *iterations,
		Warmup:      *warmup,
		Concurrency: *concurrency,
	}
	v, err := cfg.Validate()
	if err != nil {
		failUsage(err.Error())
	}
	if err := readfile.CheckFixture(cfg.File); err != nil {
		fmt.Fprintf(os.Stderr, "go-readfile: %v\n", err)
		return readfile.ExitEnv
	}
	if cfg.Warmup > 0 {
		if _, err := v.Run(cfg, cfg.Warmup); err != nil {
			fmt.Fprintf(os.Stderr, "go-readfile: go/%s warm-up %v\n", v.Name, err)
			return readfile.ExitVerify
		}
	}

	before := readfile.GetUsage()
	start := time.Now()
	res, err := v.Run(cfg, cfg.Iterations)
	elapsed := time.Since(start)
	after := readfile.GetUsage()

	if err != nil {
		fmt.Fprintf(os.Stderr, "go-readfile: go/%s %v\n", v.Name, err)
		return readfile.ExitVerify
	}
	if res.OK != cfg.Iterations {
		fmt.Fprintf(os.Stderr, "go-readfile: go/%s verified %d of %d reads\n", v.Name, res.OK, cfg.Iterations)
		return readfile.ExitVerify
	}
	line := readfile.NewLine(v, cfg, res)
	line.ElapsedNs = elapsed.Nanoseconds()
	line.UserUs = after.UserUs - before.UserUs
	line.SysUs = after.SysUs - before.SysUs
	line.PeakRSSKb = after.PeakRSSKb
	line.Runtime = runtime.Version()
	fmt.Println(line.Encode())
	return readfile.ExitOK
}
