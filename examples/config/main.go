// Command config shows a feature flag kept in ZooKeeper and followed by
// every service instance through a CuratorCache: each instance, with a
// client of its own as separate processes would have, reads the flag
// locally, and sees every change the operator writes within one round trip
// plus the watch, in order. It exits with status 1 if an instance missed a value,
// saw them out of order, or saw one late.
//
//	go run ./examples/config [-instances 3] [-flips 5]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: the operator's client creates and sets the
// flag; each instance's client starts a single-node CuratorCache, reads it
// with Get, is told of each change by a listener built with
// cache.NewListener, and closes it at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	instances := flag.Int("instances", 3, "number of service instances, each with its own client (2..9)")
	flips := flag.Int("flips", 5, "how many times the operator flips the flag (1..100)")
	flag.Parse()
	cfg := config{Instances: *instances, Flips: *flips}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// flagPath is the feature flag's node.
const flagPath = "/flags/new-checkout"

// seeWithin bounds how long after a write every instance must have seen it:
// one round trip for the write, the watch notification, and one read.
const seeWithin = 2 * time.Second

// run shows a feature flag kept in ZooKeeper: each service instance, with
// a client of its own, follows the flag's node through a CuratorCache and
// reads it locally on every request. An operator flips the flag; every
// instance sees each value within one round trip plus the watch, in the
// order written. It fails with errInvariant if an instance missed a
// value, saw them out of order, or saw one late.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "config")
	defer st.Close()
	p := st.Printer
	p.Title("config: %d service instances follow the feature flag %s through a CuratorCache", cfg.Instances, flagPath)

	operator, err := newClient(ctx, connect, st.Namespace())
	if err != nil {
		return err
	}
	defer operator.Close()
	if _, err := operator.Create(ctx, flagPath, []byte("off"), framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}
	caches := make([]*instance, cfg.Instances)
	for i := range caches {
		c, err := newClient(ctx, connect, st.Namespace())
		if err != nil {
			return err
		}
		defer c.Close()
		in, err := startInstance(ctx, c, cfg.Flips)
		if err != nil {
			return err
		}
		defer in.cache.Close()
		caches[i] = in
		n, _ := in.cache.Get(flagPath)
		p.Say("instance-%d starts and reads the flag locally: %q", i+1, n.Data)
	}

	v := &verdict{}
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
			n, _ := nc.cache.Get(flagPath)
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

// instance is one service instance's view of the flag: a single-node
// CuratorCache, and the versions its listener was told of, in order.
type instance struct {
	cache    *cache.CuratorCache
	versions chan int32
}

// startInstance starts the instance's cache of the flag, with a listener
// that records the version of each create and change of the flag's node.
func startInstance(ctx context.Context, c *framework.Client, flips int) (*instance, error) {
	cc, err := cache.NewCuratorCache(c, flagPath, cache.WithSingleNodeCache())
	if err != nil {
		return nil, err
	}
	in := &instance{cache: cc, versions: make(chan int32, flips+1)}
	l, err := cache.NewListener().
		ForCreatesAndChanges(func(_, n cache.Node) {
			select {
			case in.versions <- n.Stat.Version:
			default: // more than the demo writes: inOrder sees a gap
			}
		}).
		Build()
	if err == nil {
		cc.Listen(l)
		err = cc.Start(ctx)
	}
	if err != nil {
		cc.Close()
		return nil, err
	}
	return in, nil
}

// awaitVersion waits until nc holds the flag at version (or later) and
// returns how long after written that was.
func awaitVersion(ctx context.Context, nc *instance, version int32, written time.Time) (time.Duration, error) {
	var took time.Duration
	err := waitUntil(ctx, seeWithin, fmt.Sprintf("version %d", version), func(context.Context) (bool, error) {
		n, ok := nc.cache.Get(flagPath)
		took = time.Since(written)
		return ok && n.Stat.Version >= version, nil
	})
	return took, err
}

// inOrder reports whether nc's listener was told of the flag's creation
// (version 0) and then of one change per version, 1 to flips, in order (a
// cache may coalesce writes that come faster than a round trip; the demo
// writes one at a time). It waits at most seeWithin for calls still on
// their way.
func inOrder(nc *instance, flips int) bool {
	timeout := time.After(seeWithin)
	for want := int32(0); want <= int32(flips); want++ {
		select {
		case got := <-nc.versions:
			if got != want {
				return false
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
