// Package httpchain is the Go side of the httpchain workload (seed 001): a
// chain of three GETs on 127.0.0.1, each path the previous response's body,
// /a -> /b -> /c -> /d.  Every response is checked (status 200, body = the
// next path); a chain is verified when it ends at /d.
//
// The client is net/http: one http.Client whose Transport keeps up to K idle
// connections to the host (the default keeps 2, which would make K chains
// reconnect), every body read to its end and closed so that its connection
// is reused.  --stall-ms is the Client's Timeout: every GET, its body read to
// the end included, must be over within it (DESIGN section 3), or the run
// fails with exit 3.  Two variants:
//
//	sync-sequential     a loop of chains on one goroutine: blocking calls
//	goroutine-bounded   K goroutines, each a loop of chains over a shared counter
//
// --backend names the server answering on --port and keeps the agent word
// of the other languages (<server>.keepalive: Go's client keeps connections
// alive).  Serve is the Go server of the same protocol (go-httpchain-server).
package httpchain

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"asyncstyles/internal/contract"
)

// Next maps a path to the body the server answers with.
var Next = map[string]string{"/a": "/b", "/b": "/c", "/c": "/d"}

const (
	First = "/a"
	Last  = "/d"
	// ChainLen requests make one chain; every right body is 2 bytes.
	ChainLen = 3
)

// Backends the Go client may report (which server answers).
var Backends = []string{"cserver.keepalive", "goserver.keepalive", "nodeserver.keepalive"}

// Config is httpchain's own flags.
type Config struct {
	Port    string
	Backend string
	StallMs string // a GET not over within this long fails the run (exit 3)
}

// DefaultStallMs is --stall-ms's default; it equals the catalog's.
const DefaultStallMs = "10000"

// BackendArg is the --backend of args, read before the contract parses them
// (the line's backend field comes from it); a bad one is a usage error later.
func BackendArg(args []string) string {
	for i, a := range args {
		v := ""
		switch {
		case (a == "--backend" || a == "-backend") && i+1 < len(args):
			v = args[i+1]
		case strings.HasPrefix(a, "--backend="), strings.HasPrefix(a, "-backend="):
			v = a[strings.Index(a, "=")+1:]
		default:
			continue
		}
		for _, b := range Backends {
			if v == b {
				return v
			}
		}
	}
	return Backends[0]
}

// New returns the workload for contract.Main; backend is BackendArg's.
func New(backend string) contract.Workload {
	cfg := &Config{}
	return contract.Workload{
		Name:    "httpchain",
		Backend: backend,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.Port, "port", "", "the server's `P`ort on 127.0.0.1 (required; the runner passes it)")
			fs.StringVar(&cfg.StallMs, "stall-ms", DefaultStallMs, "a response not complete within `MS` milliseconds of its request fails the run (exit 3)")
			fs.StringVar(&cfg.Backend, "backend", Backends[0], "which server answers: `SERVER.AGENT`, one of "+strings.Join(Backends, ", "))
		},
		Check: cfg.Check,
		Variants: []contract.Variant{
			{Style: "sync", Mode: contract.Sequential, Run: cfg.Run},
			{Style: "goroutine", Mode: contract.Bounded, Run: cfg.Run},
		},
	}
}

// Check refuses a bad --port or --backend (usage) and a port nothing answers
// on (environment), before anything is timed.
func (c *Config) Check() error {
	p, err := strconv.Atoi(c.Port)
	if err != nil || p < 1 || p > 65535 || strings.TrimLeft(c.Port, "0123456789") != "" {
		return &contract.UsageError{Msg: fmt.Sprintf("--port needs the server's port, 1 to 65535, got %q (start build/bin/c-httpchain-server; it prints {\"port\":N})", c.Port)}
	}
	stall, err := strconv.Atoi(c.StallMs)
	if err != nil || stall < 1 || stall > 3600000 || strings.TrimLeft(c.StallMs, "0123456789") != "" {
		return &contract.UsageError{Msg: fmt.Sprintf("--stall-ms takes 1 to 3600000 milliseconds, got %q", c.StallMs)}
	}
	ok := false
	for _, b := range Backends {
		ok = ok || b == c.Backend
	}
	if !ok {
		return &contract.UsageError{Msg: fmt.Sprintf("--backend must be one of %s, got %q", strings.Join(Backends, ", "), c.Backend)}
	}
	// A connect, like every GET, has --stall-ms (DESIGN section 3): a server
	// whose backlog is full never answers it.
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+c.Port, time.Duration(stall)*time.Millisecond)
	if err != nil {
		return &contract.EnvError{Msg: fmt.Sprintf("cannot connect to 127.0.0.1:%s: %v (is the server running?)", c.Port, err)}
	}
	conn.Close()
	return nil
}

// stalled is the reason of a GET that was not over within --stall-ms.
const stalled = "no complete response within --stall-ms (the server does not answer, or not in full)"

// isTimeout tells the Client's Timeout (in the headers or in the body) from other errors.
func isTimeout(err error) bool {
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}

// get sends GET path and checks the answer; it returns the body, or why not
// (without the path: chain names the request).  A server that refuses or does
// not answer in full within --stall-ms is an *contract.EnvError.
func get(client *http.Client, base, path string) (string, error) {
	resp, err := client.Get(base + path)
	if err != nil {
		var op *net.OpError
		switch {
		case errors.As(err, &op) && errors.Is(err, syscall.ECONNREFUSED):
			return "", &contract.EnvError{Msg: "the server refused the connection"}
		case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
			// Each connection in flight is a descriptor: the limit, not the
			// server, failed the request.
			var lim syscall.Rlimit
			_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
			return "", &contract.EnvError{Msg: fmt.Sprintf("too many open files (ulimit -n is %d): each connection in flight needs one; raise it or lower K",
				lim.Cur)}
		case isTimeout(err):
			return "", &contract.EnvError{Msg: stalled}
		}
		return "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	resp.Body.Close()
	if err != nil && isTimeout(err) {
		return "", &contract.EnvError{Msg: stalled} // the headers came, the body never ended
	}
	if err != nil {
		return "", fmt.Errorf("the server closed the connection mid-response (%v)", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d, expected 200", resp.StatusCode)
	}
	if string(body) != Next[path] {
		return "", fmt.Errorf("body %s, expected %q", contract.Quote(body), Next[path])
	}
	return string(body), nil
}

// chain runs one chain and returns its last path; a failure names the
// request as C's and Node's do: "request 2 (GET /b): status 404, expected 200".
func chain(client *http.Client, base string) (string, error) {
	path := First
	for step := 0; step < ChainLen; step++ {
		body, err := get(client, base, path)
		var env *contract.EnvError
		if errors.As(err, &env) {
			return "", &contract.EnvError{Msg: fmt.Sprintf("request %d (GET %s): %v", step+1, path, err)}
		} else if err != nil {
			return "", fmt.Errorf("request %d (GET %s): %v", step+1, path, err)
		}
		path = body
	}
	return path, nil
}

// protocolLog is where net/http's log goes during a pass.  The Transport
// tells of a server that broke the protocol between two responses (bytes
// after a response's end: "Unsolicited response received on idle HTTP
// channel") only in its log, then drops the connection and goes on with a
// new one, so a chain whose exchange was not well-formed would count as
// verified.  A line logged fails the chain that saw it (or the next one:
// the Transport reads the stray bytes on its own goroutine), and stderr keeps
// its one line.
type protocolLog struct {
	first atomic.Pointer[string] // the first line net/http logged, nil while none
}

func (l *protocolLog) Write(p []byte) (int, error) {
	// net/http quotes the stray bytes (%q of up to 4 KiB): a line's head is enough.
	if len(p) > 200 {
		p = append(p[:200:200], "..."...)
	}
	line := strings.TrimSpace(string(p))
	l.first.CompareAndSwap(nil, &line)
	return len(p), nil
}

// broken is the first line logged so far, or "" (one atomic load a chain).
func (l *protocolLog) broken() string {
	if p := l.first.Load(); p != nil {
		return *p
	}
	return ""
}

// Run runs p.N chains, p.K at a time (K goroutines over a shared counter;
// K = 1 is the sequential loop on the calling goroutine).  The clock starts
// before the transport, whose connections are the pass's, as C starts it
// before its connection records (c/httpchain/httpchain.h).
func (c *Config) Run(p *contract.Pass) (contract.Result, error) {
	n, k := p.N, p.K
	if k < 1 {
		k = 1
	}
	if k > n {
		k = n
	}
	stall, _ := strconv.Atoi(c.StallMs) // checked by Check
	// net/http's log is the pass's from now on, for good: a Transport
	// goroutine may still log once Run has returned, and stderr has one line.
	plog := &protocolLog{}
	log.SetFlags(0)
	log.SetOutput(plog)
	p.Begin()
	tr := &http.Transport{MaxIdleConnsPerHost: k, MaxIdleConns: k, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Duration(stall) * time.Millisecond}
	base := "http://127.0.0.1:" + c.Port
	var res contract.Result
	one := func(i int) error {
		last, err := chain(client, base)
		var env *contract.EnvError
		if errors.As(err, &env) {
			return &contract.EnvError{Msg: fmt.Sprintf("iteration %d: %v", i, err)}
		} else if err != nil {
			return &contract.Failure{Iteration: i, Reason: err.Error()}
		}
		if last != Last {
			return &contract.Failure{Iteration: i, Reason: fmt.Sprintf("the chain ended at %q, expected %q", last, Last)}
		}
		if why := plog.broken(); why != "" {
			return &contract.Failure{Iteration: i, Reason: "the server broke the protocol: net/http: " + why}
		}
		return nil
	}
	if k == 1 {
		for i := 0; i < n; i++ {
			if err := one(i); err != nil {
				return res, err
			}
			res.OK++
			res.Bytes += 2 * ChainLen
		}
		res.Done = time.Now() // the idle connections close after the clock, as in C and Node
		return res, nil
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	wg.Add(k)
	for w := 0; w < k; w++ {
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || first != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				err := one(i)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
				} else {
					res.OK++
					res.Bytes += 2 * ChainLen
					if res.OK == n {
						res.Done = time.Now()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res, first
}
