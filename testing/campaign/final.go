package campaign

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// nodesUnder lists the children of every parent, as full paths; a parent
// that does not exist (an empty container, reaped) has none.
func nodesUnder(ctx context.Context, c *framework.Client, parents []string) ([]string, error) {
	var nodes []string
	for _, parent := range parents {
		children, _, err := c.Children(ctx, parent)
		switch {
		case errors.Is(err, zk.ErrNoNode):
		case err != nil:
			return nil, fmt.Errorf("campaign: list %s: %w", parent, err)
		}
		for _, child := range children {
			nodes = append(nodes, parent+"/"+child)
		}
	}
	return nodes, nil
}

// synced brings the member c is connected to up to date with the ensemble's
// leader, so that a fresh client's reads see every write acknowledged before
// they began: a follower that was cut off or paused may lag behind the
// leader's commits for a moment after it serves again.
func synced(c *framework.Client) error {
	if _, err := c.Conn().Sync("/"); err != nil {
		return fmt.Errorf("campaign: sync with the leader: %w", err)
	}
	return nil
}

// finalState reads the outcome once every client has closed: the counter,
// the fence, the acknowledgement nodes, and the lock's (or lease and lock)
// nodes, polled until the ensemble has expired the sessions the clients
// abandoned (bounded by a few session timeouts). Every read follows a sync.
func finalState(ctx context.Context, cluster *zktest.Cluster, p paths, sessionTimeout time.Duration) (endState, error) {
	var f endState
	c, err := adminClient(ctx, cluster)
	if err != nil {
		return f, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	deadline := time.Now().Add(4*sessionTimeout + 5*time.Second)
	for {
		if err := synced(c); err != nil {
			return f, err
		}
		if f.Orphans, err = nodesUnder(ctx, c, p.nodes); err != nil {
			return f, err
		}
		if len(f.Orphans) == 0 || time.Now().After(deadline) || !sleepCtx(ctx, 100*time.Millisecond) {
			break
		}
	}

	if f.Counter, _, err = readInt(ctx, c, p.counter); err != nil {
		return f, fmt.Errorf("campaign: %w", err)
	}
	if f.Fence, _, err = readInt(ctx, c, p.fence); err != nil {
		return f, fmt.Errorf("campaign: %w", err)
	}
	if f.Long, f.Count, err = counterValues(ctx, c, p); err != nil {
		return f, err
	}
	names, _, err := c.Children(ctx, p.acks)
	if err != nil {
		return f, fmt.Errorf("campaign: list %s: %w", p.acks, err)
	}
	for _, name := range names {
		data, _, err := c.GetData(ctx, p.acks+"/"+name)
		if err != nil {
			return f, fmt.Errorf("campaign: read %s/%s: %w", p.acks, name, err)
		}
		a, err := parseAck(name, data)
		if err != nil {
			return f, fmt.Errorf("campaign: %w", err)
		}
		f.Acks = append(f.Acks, a)
	}
	return f, nil
}
