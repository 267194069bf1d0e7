// Command go-doxbee runs one Go variant of doxbee, bluebird's fake database
// transactions (package doxbee), and prints one JSON result line (DESIGN
// section 3).
package main

import (
	"asyncstyles/internal/contract"
	"asyncstyles/internal/doxbee"
)

func main() { contract.Main(doxbee.New()) }
