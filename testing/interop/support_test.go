package interop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// testContext returns a context that ends after d or with the test.
func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// now is the wall clock without Go's monotonic reading, so Go and Java
// timestamps (both CLOCK_REALTIME on one host) compare on the same scale.
func now() time.Time { return time.Now().Round(0) }

// waitFor polls cond every 10ms until it holds, failing the test when ctx ends first.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, error)) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		ok, err := cond()
		if ok && err == nil {
			return
		}
		lastErr = err
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v (last error: %v)", what, ctx.Err(), lastErr)
		case <-tick.C:
		}
	}
}

// observer is a plain go-zookeeper connection that sets up and inspects nodes
// without going through either implementation under test.
type observer struct {
	t    *testing.T
	conn *zk.Conn
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

func newObserver(t *testing.T, connect string) *observer {
	t.Helper()
	conn, _, err := zk.Connect([]string{connect}, 4*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatalf("observer: connect %s: %v", connect, err)
	}
	t.Cleanup(conn.Close)
	return &observer{t: t, conn: conn}
}

// create makes path and its missing parents (persistent, empty) and sets data.
func (o *observer) create(path string, data []byte) {
	o.t.Helper()
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := range parts {
		p := "/" + strings.Join(parts[:i+1], "/")
		var d []byte
		if i == len(parts)-1 {
			d = data
		}
		if _, err := o.conn.Create(p, d, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			o.must(err, "create %s", p)
		}
	}
}

// children returns the children of path in sequence order (none when path does
// not exist).
func (o *observer) children(path string) ([]string, error) {
	kids, _, err := o.conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(sequence(a), sequence(b)) })
	return kids, err
}

// sequence returns the 10-digit sequential suffix every lock and lease node ends
// with; ZooKeeper's counter is per parent, so it orders the siblings.
func sequence(name string) string {
	return name[max(len(name)-10, 0):]
}

// counter reads a decimal counter node.
func (o *observer) counter(path string) int64 {
	o.t.Helper()
	data, _, err := o.conn.Get(path)
	o.must(err, "get %s", path)
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	o.must(err, "counter %s holds %q", path, data)
	return n
}

func (o *observer) must(err error, format string, args ...any) {
	o.t.Helper()
	if err != nil {
		o.t.Fatalf("observer: %s: %v", fmt.Sprintf(format, args...), err)
	}
}

// waitChildren waits until path has exactly n children and returns them in
// sequence order.
func (o *observer) waitChildren(ctx context.Context, path string, n int) []string {
	o.t.Helper()
	var kids []string
	waitFor(o.t, ctx, fmt.Sprintf("%d children under %s", n, path), func() (bool, error) {
		var err error
		kids, err = o.children(path)
		return len(kids) == n, err
	})
	return kids
}

// hold is one interval during which an owner held a lock or lease, as reported by
// the owner: from right after the acquire returned to right before the release
// began. A reported interval lies inside the real holding.
type hold struct {
	owner    string
	from, to time.Time
}

// holdFromRound turns a helper ROUND event into a hold.
func holdFromRound(owner string, e Event) (hold, error) {
	from, err1 := strconv.ParseInt(e.Field(1), 10, 64)
	to, err2 := strconv.ParseInt(e.Field(2), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return hold{}, fmt.Errorf("bad ROUND event %v: %w", e, err)
	}
	return hold{owner: owner, from: time.Unix(0, from), to: time.Unix(0, to)}, nil
}

// checkExclusive fails the test when two holds overlap.
func checkExclusive(t *testing.T, holds []hold) {
	t.Helper()
	if peak, a, b := maxConcurrent(holds); peak > 1 {
		t.Fatalf("exclusion violated: %s held %s..%s while %s held %s..%s",
			a.owner, a.from.Format(time.StampMicro), a.to.Format(time.StampMicro),
			b.owner, b.from.Format(time.StampMicro), b.to.Format(time.StampMicro))
	}
}

// maxConcurrent returns the largest number of holds in force at one instant and,
// when that is above one, two holds that overlapped at that instant.
func maxConcurrent(holds []hold) (peak int, a, b hold) {
	sorted := slices.Clone(holds)
	slices.SortFunc(sorted, func(x, y hold) int { return x.from.Compare(y.from) })
	var open []hold
	for _, h := range sorted {
		open = slices.DeleteFunc(open, func(o hold) bool { return !o.to.After(h.from) })
		open = append(open, h)
		if len(open) > peak {
			peak = len(open)
			if peak > 1 {
				a, b = open[0], h
			}
		}
	}
	return peak, a, b
}
