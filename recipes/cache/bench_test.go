package cache_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// benchNodes is the size of the benchmarks' tree: 100 parents of 99
// children each, under one root.
const benchParents, benchChildren = 100, 99

// BenchmarkTreeCache loads a TreeCache of 10,000 nodes and then follows
// changes to them. It reports the load time against a loop of plain
// go-zookeeper reads of the same tree (each node's data and children, one
// request after the other: the floor of a sequential loader), and how many
// changes per second the cache follows. Run it with -benchtime=1x.
func BenchmarkTreeCache(b *testing.B) {
	srv := zktest.StartServer(b)
	c := zkclient.New(b, srv.ConnectString(), framework.WithSessionTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const root = "/bench"
	if err := buildTree(ctx, c, root); err != nil {
		b.Fatal(err)
	}
	conn := c.Conn()
	var floor, load, follow time.Duration
	for range b.N {
		began := time.Now()
		if n, err := readTree(conn, root); err != nil || n != 1+benchParents*(1+benchChildren) {
			b.Fatalf("plain reads: %d nodes, %v", n, err)
		}
		floor += time.Since(began)

		tc, err := cache.NewTreeCache(c, root)
		if err != nil {
			b.Fatal(err)
		}
		began = time.Now()
		if err := tc.Start(ctx); err != nil {
			b.Fatal(err)
		}
		load += time.Since(began)
		drain(b, tc.Events(), cache.Initialized)

		began = time.Now()
		for p := range benchParents {
			if _, err := c.SetData(ctx, fmt.Sprintf("%s/p%03d/c%03d", root, p, 0), []byte("changed"), -1); err != nil {
				b.Fatal(err)
			}
		}
		for range benchParents {
			drain(b, tc.Events(), cache.NodeUpdated)
		}
		follow += time.Since(began)
		if err := tc.Close(); err != nil {
			b.Fatal(err)
		}
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((load / n).Milliseconds()), "load-ms")
	b.ReportMetric(float64((floor / n).Milliseconds()), "plain-reads-ms")
	b.ReportMetric(float64(load)/float64(floor), "load/plain")
	b.ReportMetric(float64(benchParents)/(follow/n).Seconds(), "changes/s")
}

// buildTree creates the benchmark's tree in transactions of one parent and
// its children.
func buildTree(ctx context.Context, c *framework.Client, root string) error {
	return buildTreeOf(ctx, c, root, benchParents, benchChildren)
}

// buildTreeOf creates root with parents children of children each, one
// transaction per parent.
func buildTreeOf(ctx context.Context, c *framework.Client, root string, parents, children int) error {
	if _, err := c.Create(ctx, root, nil); err != nil {
		return err
	}
	for p := range parents {
		parent := fmt.Sprintf("%s/p%03d", root, p)
		ops := []any{&zk.CreateRequest{Path: parent, Data: []byte("parent")}}
		for i := range children {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/c%03d", parent, i), Data: []byte("child")})
		}
		if _, err := c.Transaction(ctx, ops...); err != nil {
			return err
		}
	}
	return nil
}

// readTree reads every node's data and children with plain go-zookeeper
// calls, one after the other, and returns how many nodes it read.
func readTree(conn *zk.Conn, p string) (int, error) {
	if _, _, err := conn.Get(p); err != nil {
		return 0, err
	}
	names, _, err := conn.Children(p)
	if err != nil {
		return 0, err
	}
	n := 1
	for _, name := range names {
		m, err := readTree(conn, p+"/"+name)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// drain reads events until one of type want, failing after 30 s.
func drain(b *testing.B, events <-chan cache.Event, want cache.EventType) {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Type == want {
				return
			}
		case <-timeout:
			b.Fatalf("no %v within 30 s", want)
		}
	}
}
