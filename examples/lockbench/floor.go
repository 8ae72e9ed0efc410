package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// floorMutex is the bound every ZooKeeper lock is measured against (-impl
// floor): a FIFO queue of sequential nodes in which a waiter watches its
// predecessor once and holds on that node's deletion with no further
// request, so that a hand-off is one delete and its notification. It is no
// lock: a waiter that left the queue would let its successor in early. The
// benchmark's waiters never leave, and its critical-section check still
// counts any overlap.
type floorMutex struct {
	conn *zk.Conn
	dir  string
	node string // our node's name while we hold or wait
}

func (s *gozkSession) newFloorMutex(dir string) mutex {
	return &floorMutex{conn: s.conn, dir: dir}
}

func (m *floorMutex) acquire(ctx context.Context) error {
	created, err := m.conn.Create(m.dir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if errors.Is(err, zk.ErrNoNode) {
		if err = m.createDir(); err == nil {
			created, err = m.conn.Create(m.dir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		}
	}
	if err != nil {
		return fmt.Errorf("floor: create in %s: %w", m.dir, err)
	}
	m.node = path.Base(created)
	names, _, err := m.conn.Children(m.dir)
	if err != nil {
		return fmt.Errorf("floor: list %s: %w", m.dir, err)
	}
	// Sequence numbers share one width, so names sort in queue order.
	slices.Sort(names)
	i, _ := slices.BinarySearch(names, m.node)
	if i == 0 {
		return nil
	}
	found, _, events, err := m.conn.ExistsW(m.dir + "/" + names[i-1])
	switch {
	case err != nil:
		return fmt.Errorf("floor: watch %s: %w", names[i-1], err)
	case !found:
		return nil
	}
	select {
	case <-events:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *floorMutex) release(context.Context) error {
	if err := m.conn.Delete(m.dir+"/"+m.node, -1); err != nil {
		return fmt.Errorf("floor: delete %s: %w", m.node, err)
	}
	return nil
}

// createDir creates m.dir and its missing parents.
func (m *floorMutex) createDir() error {
	p := ""
	for _, part := range strings.Split(strings.TrimPrefix(m.dir, "/"), "/") {
		p += "/" + part
		if _, err := m.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}
