// Command go-httpchain-server is httpchain's server in Go (net/http), the same
// protocol as build/bin/c-httpchain-server.
//
// Usage: go-httpchain-server [--port P]
package main

import (
	"flag"
	"fmt"
	"os"

	"asyncstyles/internal/httpchain"
)

func main() {
	fs := flag.NewFlagSet("go-httpchain-server", flag.ContinueOnError)
	port := fs.Int("port", 0, "listen on 127.0.0.1:`P` (0: a free port)")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 || *port < 0 || *port > 65535 {
		fmt.Fprintln(os.Stderr, "usage: go-httpchain-server [--port P]")
		os.Exit(2)
	}
	os.Exit(httpchain.Serve(*port, os.Stdout, os.Stderr))
}
