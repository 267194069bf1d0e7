// Command go-noop runs one Go variant of the example workload noop: N
// operations that each complete with their own iteration number (package
// noop), and prints one JSON result line (DESIGN section 3).
package main

import (
	"asyncstyles/internal/contract"
	"asyncstyles/internal/noop"
)

func main() { contract.Main(noop.New()) }
