// Command config shows a feature flag kept in ZooKeeper and followed by
// every service instance through a NodeCache: each instance, with a client
// of its own as separate processes would have, reads the flag locally, and
// sees every change the operator writes within one round trip plus the
// watch, in order. It exits with status 1 if an instance missed a value,
// saw them out of order, or saw one late.
//
//	go run ./examples/config [-instances 3] [-flips 5]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: the operator's client creates and sets the
// flag; each instance's client starts a NodeCache, reads it with Current and
// follows its Events, and closes it at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	instances := flag.Int("instances", 3, "number of service instances, each with its own client (2..9)")
	flips := flag.Int("flips", 5, "how many times the operator flips the flag (1..100)")
	flag.Parse()
	cfg := config{Instances: *instances, Flips: *flips}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// flagPath is the feature flag's node.
const flagPath = "/flags/new-checkout"

// seeWithin bounds how long after a write every instance must have seen it:
// one round trip for the write, the watch notification, and one read.
const seeWithin = 2 * time.Second

// run shows a feature flag kept in ZooKeeper: each service instance, with
// a client of its own, follows the flag's node through a NodeCache and
// reads it locally on every request. An operator flips the flag; every
// instance sees each value within one round trip plus the watch, in the
// order written. It fails with demo.ErrInvariant if an instance missed a
// value, saw them out of order, or saw one late.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := demo.NewStage(connect, out, "config")
	defer st.Close()
	p := st.Printer
	p.Title("config: %d service instances follow the feature flag %s through a NodeCache", cfg.Instances, flagPath)

	operator, err := newClient(ctx, connect, st.Namespace())
	if err != nil {
		return err
	}
	defer operator.Close()
	if _, err := operator.Create(ctx, flagPath, []byte("off"), framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}
	caches := make([]*cache.NodeCache, cfg.Instances)
	for i := range caches {
		c, err := newClient(ctx, connect, st.Namespace())
		if err != nil {
			return err
		}
		defer c.Close()
		nc, err := cache.NewNodeCache(c, flagPath)
		if err != nil {
			return err
		}
		defer nc.Close()
		if err := nc.Start(ctx); err != nil {
			return err
		}
		caches[i] = nc
		n, _ := nc.Current()
		p.Say("instance-%d starts and reads the flag locally: %q", i+1, n.Data)
	}

	v := &demo.Verdict{}
	value := "off"
	for flip := 1; flip <= cfg.Flips; flip++ {
		value = map[string]string{"off": "on", "on": "off"}[value]
		written := time.Now()
		stat, err := operator.SetData(ctx, flagPath, []byte(value), -1)
		if err != nil {
			return err
		}
		var slowest time.Duration
		for i, nc := range caches {
			took, err := awaitVersion(ctx, nc, stat.Version, written)
			if err != nil {
				v.Expect(false, "instance-%d did not see version %d within %v: %v", i+1, stat.Version, seeWithin, err)
				continue
			}
			n, _ := nc.Current()
			v.Expect(string(n.Data) == value, "instance-%d holds %q at version %d, want %q", i+1, n.Data, stat.Version, value)
			slowest = max(slowest, took)
		}
		p.Say("the operator sets the flag %q (version %d): every instance sees it within %v", value, stat.Version, slowest.Round(time.Millisecond))
	}
	for i, nc := range caches {
		v.Expect(inOrder(nc, cfg.Flips), "instance-%d's events skipped or reordered a version", i+1)
	}
	return v.Conclude(p, fmt.Sprintf("%d instances saw all %d flips, in order, each within %v of the write", cfg.Instances, cfg.Flips, seeWithin))
}

// awaitVersion waits until nc holds the flag at version (or later) and
// returns how long after written that was.
func awaitVersion(ctx context.Context, nc *cache.NodeCache, version int32, written time.Time) (time.Duration, error) {
	var took time.Duration
	err := demo.WaitUntil(ctx, seeWithin, fmt.Sprintf("version %d", version), func(context.Context) (bool, error) {
		n, ok := nc.Current()
		took = time.Since(written)
		return ok && n.Stat.Version >= version, nil
	})
	return took, err
}

// inOrder reports whether nc's events were the initial load and then one
// update per version, 1 to flips, in order (a cache may coalesce writes
// that come faster than a round trip; the demo writes one at a time). It
// waits at most seeWithin for events still on their way.
func inOrder(nc *cache.NodeCache, flips int) bool {
	timeout := time.After(seeWithin)
	for want := int32(0); want < int32(flips); {
		select {
		case e := <-nc.Events():
			switch e.Type {
			case cache.NodeAdded:
				if e.Node.Stat.Version != 0 {
					return false
				}
			case cache.NodeUpdated:
				if want++; e.Node.Stat.Version != want {
					return false
				}
			}
		case <-timeout:
			return false
		}
	}
	return true
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, a session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}

// config sets up the demo.
type config struct {
	// Instances is how many service instances follow the flag; 2 to 9, 3
	// when zero.
	Instances int
	// Flips is how many times the operator flips the flag; 1 to 100, 5 when
	// zero.
	Flips int
}

func (c config) withDefaults() (config, error) {
	if c.Instances == 0 {
		c.Instances = 3
	}
	if c.Flips == 0 {
		c.Flips = 5
	}
	switch {
	case c.Instances < 2 || c.Instances > 9:
		return c, fmt.Errorf("demo: Instances %d is outside 2..9", c.Instances)
	case c.Flips < 1 || c.Flips > 100:
		return c, fmt.Errorf("demo: Flips %d is outside 1..100", c.Flips)
	}
	return c, nil
}
