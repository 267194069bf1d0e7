package httpchain

import (
	"bufio"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"asyncstyles/internal/contract"
)

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return srv.URL[strings.LastIndex(srv.URL, ":")+1:]
}

func TestHandlerAnswersTheChainAnd404(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]string{"/a": "/b", "/b": "/c", "/c": "/d", "/d": "not found", "/": "not found"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != want {
			t.Errorf("GET %s: %q, want %q", path, body, want)
		}
		if (want == "not found") != (resp.StatusCode == http.StatusNotFound) {
			t.Errorf("GET %s: status %d", path, resp.StatusCode)
		}
	}
}

func TestRunVerifiesEveryChainSequentialAndBounded(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	c := &Config{Port: port(t, srv), Backend: Backends[1], StallMs: DefaultStallMs}
	for _, k := range []int{1, 4} {
		res, err := c.Run(contract.NewPass(20, k))
		if err != nil || res.OK != 20 || res.Bytes != 20*6 {
			t.Errorf("k=%d: %+v, %v", k, res, err)
		}
	}
}

func TestAWrongBodyIsAFailureNamingTheChain(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "/x") }))
	defer srv.Close()
	c := &Config{Port: port(t, srv), Backend: Backends[0], StallMs: DefaultStallMs}
	_, err := c.Run(contract.NewPass(3, 1))
	var f *contract.Failure
	if !errors.As(err, &f) || f.Iteration != 0 || !strings.Contains(f.Reason, `expected "/b"`) {
		t.Fatalf("got %v", err)
	}
}

func TestAServerThatDoesNotAnswerIsAnEnvironmentError(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	c := &Config{Port: port(t, srv), Backend: Backends[0], StallMs: "200"}
	start := time.Now()
	_, err := c.Run(contract.NewPass(1, 1))
	var env *contract.EnvError
	if !errors.As(err, &env) || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

// fullBacklog listens on 127.0.0.1 with a backlog of 0, never accepts, and
// connects to itself until a connect is not answered: the port's backlog is
// full, so a client's connect hangs (the kernel drops its SYN).
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	for k := 0; ; k++ {
		if k == 1000 {
			t.Skip("the backlog never filled")
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return addr[strings.LastIndex(addr, ":")+1:]
}

func TestAConnectNotAnsweredWithinStallMsIsAnEnvironmentError(t *testing.T) {
	c := &Config{Port: fullBacklog(t), Backend: Backends[0], StallMs: "300"}
	start := time.Now()
	err := c.Check()
	var env *contract.EnvError
	if !errors.As(err, &env) || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("got %v", err)
	}
	// --stall-ms bounds the connect as it bounds every GET (DESIGN section 3).
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v with --stall-ms 300", took)
	}
}

func TestBackendArgReadsTheFlagOrFallsBack(t *testing.T) {
	cases := map[string][]string{
		"goserver.keepalive":   {"--port", "1", "--backend", "goserver.keepalive"},
		"nodeserver.keepalive": {"-backend=nodeserver.keepalive"},
		"cserver.keepalive":    {"--backend", "bogus"},
	}
	for want, args := range cases {
		if got := BackendArg(args); got != want {
			t.Errorf("%v: %q, want %q", args, got, want)
		}
	}
}

// rawServer answers every request head on 127.0.0.1 with answer(path), byte
// for byte, and keeps each connection open until the test ends.
func rawServer(t *testing.T, answer func(path string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go func() {
				r := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.WriteString(conn, answer(req.URL.Path))
				}
			}()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func TestABodyShorterThanItsContentLengthIsAnEnvironmentErrorAfterStallMs(t *testing.T) {
	// The headers come at once; the body never ends, and the connection stays open.
	p := rawServer(t, func(path string) string { return "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + Next[path] })
	c := &Config{Port: p, Backend: Backends[0], StallMs: "200"}
	for _, k := range []int{1, 4} {
		start := time.Now()
		_, err := c.Run(contract.NewPass(4, k))
		var env *contract.EnvError
		if !errors.As(err, &env) || !strings.Contains(err.Error(), "no complete response within --stall-ms") {
			t.Fatalf("k=%d: got %v", k, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("k=%d: took %v", k, time.Since(start))
		}
	}
}

func TestBytesAfterAResponseFailTheChain(t *testing.T) {
	p := rawServer(t, func(path string) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" + Next[path] + "junk\r\n"
	})
	defer log.SetOutput(log.Writer()) // Run takes net/http's log for good
	c := &Config{Port: p, Backend: Backends[0], StallMs: DefaultStallMs}
	for _, k := range []int{1, 4} {
		res, err := c.Run(contract.NewPass(10, k))
		var f *contract.Failure
		if !errors.As(err, &f) || res.OK == 10 {
			t.Fatalf("k=%d: %+v, %v", k, res, err)
		}
		if !strings.Contains(f.Reason, "broke the protocol") && !strings.Contains(f.Reason, "malformed") {
			t.Errorf("k=%d: %q", k, f.Reason)
		}
	}
}
