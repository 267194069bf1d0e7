// Command go-tasks runs the Go variant of tasks: N goroutines suspended at
// once in time.Sleep (package tasks), and prints one JSON result line.
package main

import (
	"asyncstyles/internal/contract"
	"asyncstyles/internal/tasks"
)

func main() { contract.Main(tasks.New()) }
