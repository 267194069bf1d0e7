// Command go-httpchain runs N chains of three GETs against the httpchain
// server on --port in one of the Go variants and prints one JSON result line
// (DESIGN section 3).
package main

import (
	"os"

	"asyncstyles/internal/contract"
	"asyncstyles/internal/httpchain"
)

func main() { contract.Main(httpchain.New(httpchain.BackendArg(os.Args[1:]))) }
