package contract

import (
	"errors"
	"testing"
)

func TestGoroutinePerOperationCountsEveryVerifiedOperationAndItsBytes(t *testing.T) {
	res, err := GoroutinePerOperation(NewPass(100, 0), func(i int) (int64, error) { return 3, nil })
	if err != nil || res.OK != 100 || res.Bytes != 300 {
		t.Fatalf("got %+v, %v; want 100 ok, 300 bytes, no error", res, err)
	}
}

func TestGoroutinePerOperationKeepsAFailureAndDoesNotCountIt(t *testing.T) {
	res, err := GoroutinePerOperation(NewPass(10, 0), func(i int) (int64, error) {
		if i == 7 {
			return 0, &Failure{Iteration: 7, Reason: "wrong"}
		}
		return 1, nil
	})
	var f *Failure
	if !errors.As(err, &f) || f.Iteration != 7 {
		t.Fatalf("error %v, want the failure of iteration 7", err)
	}
	if res.OK != 9 || res.Bytes != 9 {
		t.Fatalf("got %+v, want 9 ok and 9 bytes", res)
	}
}
