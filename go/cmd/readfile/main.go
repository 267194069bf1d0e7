// Command go-readfile reads a small file N times in one of the Go readfile
// variants and prints one JSON result line (DESIGN section 3).
//
// Only the timed section is measured: the flags, the fixture check and the
// warm-up iterations come before the clock starts, and printing comes after
// (package contract).
package main

import (
	"asyncstyles/internal/contract"
	"asyncstyles/internal/readfile"
)

func main() { contract.Main(readfile.New()) }
