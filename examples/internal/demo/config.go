package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// ConfigConfig sets up the feature-flag demo.
type ConfigConfig struct {
	// Instances is how many service instances follow the flag; 2 to 9, 3
	// when zero.
	Instances int
	// Flips is how many times the operator flips the flag; 1 to 100, 5 when
	// zero.
	Flips int
}

func (c ConfigConfig) withDefaults() (ConfigConfig, error) {
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

// seeWithin bounds how long after a write every instance must have seen it:
// one round trip for the write, the watch notification, and one read.
const seeWithin = 2 * time.Second

// Config shows a feature flag kept in ZooKeeper: each service instance,
// with a client of its own, follows the flag's node through a NodeCache and
// reads it locally on every request. An operator flips the flag; every
// instance sees each value within one round trip plus the watch, in the
// order written. It fails with ErrInvariant if an instance missed a value,
// saw them out of order, or saw one late.
func Config(ctx context.Context, connect string, out io.Writer, cfg ConfigConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "config")
	defer st.close()
	p := st.p
	const flag = "/flags/new-checkout"
	p.title("config: %d service instances follow the feature flag %s through a NodeCache", cfg.Instances, flag)

	operator, err := st.client(ctx)
	if err != nil {
		return err
	}
	if _, err := operator.Create(ctx, flag, []byte("off"), framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}
	caches := make([]*cache.NodeCache, cfg.Instances)
	for i := range caches {
		c, err := st.client(ctx)
		if err != nil {
			return err
		}
		nc, err := cache.NewNodeCache(c, flag)
		if err != nil {
			return err
		}
		defer nc.Close()
		if err := nc.Start(ctx); err != nil {
			return err
		}
		caches[i] = nc
		n, _ := nc.Current()
		p.say("instance-%d starts and reads the flag locally: %q", i+1, n.Data)
	}

	v := &verdict{}
	value := "off"
	for flip := 1; flip <= cfg.Flips; flip++ {
		value = map[string]string{"off": "on", "on": "off"}[value]
		written := time.Now()
		stat, err := operator.SetData(ctx, flag, []byte(value), -1)
		if err != nil {
			return err
		}
		var slowest time.Duration
		for i, nc := range caches {
			took, err := awaitVersion(ctx, nc, stat.Version, written)
			if err != nil {
				v.expect(false, "instance-%d did not see version %d within %v: %v", i+1, stat.Version, seeWithin, err)
				continue
			}
			n, _ := nc.Current()
			v.expect(string(n.Data) == value, "instance-%d holds %q at version %d, want %q", i+1, n.Data, stat.Version, value)
			slowest = max(slowest, took)
		}
		p.say("the operator sets the flag %q (version %d): every instance sees it within %v", value, stat.Version, slowest.Round(time.Millisecond))
	}
	for i, nc := range caches {
		v.expect(inOrder(nc, cfg.Flips), "instance-%d's events skipped or reordered a version", i+1)
	}
	return v.conclude(p, fmt.Sprintf("%d instances saw all %d flips, in order, each within %v of the write", cfg.Instances, cfg.Flips, seeWithin))
}

// awaitVersion waits until nc holds the flag at version (or later) and
// returns how long after written that was.
func awaitVersion(ctx context.Context, nc *cache.NodeCache, version int32, written time.Time) (time.Duration, error) {
	var took time.Duration
	err := waitUntil(ctx, seeWithin, fmt.Sprintf("version %d", version), func(context.Context) (bool, error) {
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
