// Command empty is the empty Go program: the runner runs it once per round,
// and its wall time is what starting and ending a Go process costs on this
// host (exec, the runtime's start, exit), which every Go variant's time
// outside its clock is compared with less it (DESIGN section 6).
package main

func main() {}
