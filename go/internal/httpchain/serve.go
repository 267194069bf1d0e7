package httpchain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"asyncstyles/internal/contract"
)

// Handler answers the protocol: GET /a -> "/b", /b -> "/c", /c -> "/d", 404
// otherwise.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		next, ok := Next[r.URL.Path]
		if r.Method != http.MethodGet || !ok || r.URL.RawQuery != "" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "not found")
			return
		}
		io.WriteString(w, next)
	})
}

// Serve listens on 127.0.0.1:port (0: a free one), writes {"port":N} and a
// newline to out when ready, and serves until SIGTERM, SIGINT or, when stdin
// is a pipe, its end.  It returns the exit code: 0, or 3 when the port cannot
// be bound or too few file descriptors are free.
func Serve(port int, out, errOut io.Writer) int {
	// Too few descriptors for the runtime's poller made it die ("runtime:
	// epollcreate failed", exit 2 and goroutine stacks): say so instead.  The
	// listener's socket and net.Listen's read of somaxconn are open at once.
	if err := contract.CheckSpareDescriptors(contract.SpareDescriptors + 1); err != nil {
		fmt.Fprintf(errOut, "go-httpchain-server: %v\n", err)
		return 3
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintf(errOut, "go-httpchain-server: cannot listen on 127.0.0.1:%d: %v\n", port, err)
		return 3
	}
	srv := &http.Server{Handler: Handler()}
	stop := make(chan struct{}, 3)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sigs; stop <- struct{}{} }()
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		go func() { io.Copy(io.Discard, os.Stdin); stop <- struct{}{} }()
	}
	line, _ := json.Marshal(map[string]int{"port": ln.Addr().(*net.TCPAddr).Port})
	if _, err := fmt.Fprintf(out, "%s\n", line); err != nil {
		ln.Close()
		return 3
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-stop:
	case err := <-done:
		fmt.Fprintf(errOut, "go-httpchain-server: %v\n", err)
		return 3
	}
	srv.Shutdown(context.Background())
	return 0
}
