package httpchain

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
