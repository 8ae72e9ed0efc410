package campaign_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine of the campaign's clients, proxies and workers must be gone
// when the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
