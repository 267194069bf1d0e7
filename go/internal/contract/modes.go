package contract

import "sync"

// GoroutinePerOperation is the goroutine-parallel skeleton every workload
// shares: it starts the pass's clock (p.Begin, as C's skeletons do), starts
// one goroutine per operation, each running op(i), and waits for all of
// them with a WaitGroup.  op returns the bytes the operation
// moved and nil, or the operation's failure (a *Failure naming i).  The first
// failure is kept; every other completion counts as verified.
//
// op is called through a function value, one indirect call per operation:
// next to the goroutine each operation starts (hundreds of nanoseconds) that
// is noise, which is why this piece is shared and the sequential loops (where
// such a call would be a large part of a plain function's cost) are not.
func GoroutinePerOperation(p *Pass, op func(i int) (int64, error)) (Result, error) {
	n := p.N
	p.Begin()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		res   Result
		first error
	)
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			bytes, err := op(i)
			mu.Lock()
			if err != nil {
				if first == nil {
					first = err
				}
			} else {
				res.OK++
				res.Bytes += bytes
			}
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	return res, first
}
