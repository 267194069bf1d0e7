// Command go-cacheloop runs one Go variant of the cacheloop workload: N
// sequential loads of a file through a cache, the first a miss (package
// cacheloop), and prints one JSON result line (DESIGN section 3).
package main

import (
	"asyncstyles/internal/cacheloop"
	"asyncstyles/internal/contract"
)

func main() { contract.Main(cacheloop.New()) }
