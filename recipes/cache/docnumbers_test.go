package cache_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/internal/docnum"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// The numbers the docs cite for the cache's unexported bounds are the
// code's: the reads a load keeps in flight and the events' slack.
func TestDocsCiteTheCachesNumbers(t *testing.T) {
	for _, c := range []struct {
		rel, pattern string
		code         int
	}{
		{"recipes/cache/doc.go", `up to (\d+) readers more keep that many nodes' reads in flight`, cache.ReadsInFlight},
		{"docs/guarantees.md", `keep up to (\d+) nodes' reads in flight`, cache.ReadsInFlight},
		{"recipes/cache/doc.go", `a slack of ([\d,]+) events`, cache.Slack},
		{"recipes/cache/doc.go", `up to (\d+) readers read batches`, cache.BatchReaders},
		{"recipes/cache/doc.go", `batches of up to (\d+) nodes`, cache.BatchReads},
	} {
		n, err := docnum.Cited(c.rel, c.pattern)
		if err != nil {
			t.Error(err)
			continue
		}
		if n[0] != int64(c.code) {
			t.Errorf("%s says %d (%q); the code keeps %d", c.rel, n[0], c.pattern, c.code)
		}
	}
}
