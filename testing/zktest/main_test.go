package zktest

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine of this package and of the go-zookeeper clients the tests
// use must be gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
