// Command go-asyncfib runs one Go variant of the asyncfib workload:
// recursive or iterative fibonacci as plain calls or a goroutine per call
// (package asyncfib), and prints one JSON result line (DESIGN section 3).
package main

import (
	"asyncstyles/internal/asyncfib"
	"asyncstyles/internal/contract"
)

func main() { contract.Main(asyncfib.New()) }
