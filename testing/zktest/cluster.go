package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Cluster is a ZooKeeper ensemble of processes on 127.0.0.1, each with its
// own ports and data, whose members can be killed and restarted one by one,
// paused, and partitioned from each other: every quorum and election link
// between members runs through proxies. Members are numbered from 0; member
// i has ZooKeeper id i+1. A Cluster is safe for concurrent use.
type Cluster struct {
	dir     string
	members []*Server
	net     peerNet
}

// StartCluster starts an ensemble of n members for the test and closes it when
// the test ends, after printing the tail of every member's log if the test
// failed. A cluster that cannot start fails the test.
func StartCluster(tb testing.TB, n int, opts ...ServerOption) *Cluster {
	tb.Helper()
	c, err := NewCluster(n, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			for i, m := range c.members {
				tb.Logf("ZooKeeper member %d (%s), last %d log lines:\n%s", i, m.Addr(), failureLogLines, m.LogTail(failureLogLines))
			}
		}
		if err := c.Close(); err != nil {
			tb.Errorf("close ZooKeeper cluster: %v", err)
		}
	})
	return c
}

// NewCluster starts an ensemble of n members in parallel and returns once
// every member is leading or following. The caller must Close it.
func NewCluster(n int, opts ...ServerOption) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("zktest: cluster size %d: need at least one member", n)
	}
	cfg, err := newServerConfig(opts)
	if err != nil {
		return nil, err
	}
	rt, err := findRuntime()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zktest-cluster-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	c := &Cluster{dir: dir}
	for i := range n {
		m, err := newServer(rt, cfg, filepath.Join(dir, fmt.Sprintf("member-%d", i)), c)
		if err != nil {
			c.Close()
			return nil, err
		}
		m.inst.myID = i + 1
		c.members = append(c.members, m)
	}
	for attempt := 1; ; attempt++ {
		err := c.startAll()
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			c.Close()
			return nil, err
		}
	}
}

// startAll gives every member fresh ports, launches all of them and waits
// for them together; on failure no member runs.
func (c *Cluster) startAll() error {
	p, err := pickPorts(3 * len(c.members))
	if err != nil {
		return err
	}
	peers := make([]ports, len(c.members))
	for i := range peers {
		peers[i] = ports{client: p[3*i], quorum: p[3*i+1], election: p[3*i+2]}
	}
	views, err := c.net.build(peers)
	if err != nil {
		return err
	}
	for i, m := range c.members {
		m.inst.ports = peers[i]
		m.inst.peers = views[i]
	}
	began := time.Now() // each member's start is recorded from here until it is ready
	for _, m := range c.members {
		m.mu.Lock()
		err := m.launchLocked()
		m.mu.Unlock()
		if err != nil {
			c.stopAll()
			return err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = m.awaitReady(ctx, m.proc); errs[i] != nil {
				cancel() // one failed member fails the start; stop waiting
				return
			}
			m.noteStart(time.Since(began))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		var report strings.Builder
		for i, m := range c.members {
			fmt.Fprintf(&report, "\nmember %d (%s): %v\nlast %d log lines:\n%s\n",
				i, m.Addr(), errs[i], failureLogLines, m.LogTail(failureLogLines))
		}
		c.stopAll()
		if errors.Is(err, errPortTaken) {
			return errPortTaken
		}
		return fmt.Errorf("zktest: start ZooKeeper cluster of %d:%s", len(c.members), report.String())
	}
	return nil
}

func (c *Cluster) stopAll() {
	for _, m := range c.members {
		m.mu.Lock()
		m.stopLocked()
		m.mu.Unlock()
	}
}

// quorumRunning reports whether a majority of the members have a process.
func (c *Cluster) quorumRunning() bool {
	up := 0
	for _, m := range c.members {
		if m.running.Load() {
			up++
		}
	}
	return up > len(c.members)/2
}

// ConnectString lists every member's client address, separated by commas,
// in the form ZooKeeper clients accept.
func (c *Cluster) ConnectString() string { return strings.Join(c.Addrs(), ",") }

// Addrs returns the client address of each member, index i for member i.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.Addr()
	}
	return out
}

// Size is the number of members, running or not.
func (c *Cluster) Size() int { return len(c.members) }

// Server returns member i, for FourLetter, LogTail and its address; it panics
// when i is out of range, like an index.
func (c *Cluster) Server(i int) *Server { return c.members[i] }

// Kill kills member i's process at once, keeping its data for Restart.
func (c *Cluster) Kill(i int) error {
	m, err := c.member(i)
	if err != nil {
		return err
	}
	return m.Stop()
}

// Restart starts member i again on its ports and data (killing it first if it
// runs) and returns once it has joined a quorum, or once it answers when too
// few members run to form one.
func (c *Cluster) Restart(i int) error {
	m, err := c.member(i)
	if err != nil {
		return err
	}
	return m.Restart()
}

// Leader returns the index of the member that currently reports that it
// leads, or an error wrapping ErrNoLeader when none does.
func (c *Cluster) Leader() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	modes := make([]string, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		if !m.running.Load() {
			modes[i] = "down"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode, err := serverMode(ctx, m.Addr())
			switch {
			case err != nil:
				modes[i] = "unreachable"
			case mode == "":
				modes[i] = "not serving"
			default:
				modes[i] = mode
			}
		}()
	}
	wg.Wait()
	leader := -1
	for i, mode := range modes {
		if mode != "leader" {
			continue
		}
		if leader >= 0 {
			return -1, fmt.Errorf("zktest: members %d and %d both report leader", leader, i)
		}
		leader = i
	}
	if leader < 0 {
		return -1, fmt.Errorf("%w: member modes %v", ErrNoLeader, modes)
	}
	return leader, nil
}

// Close kills every member and removes all data and logs. It is idempotent.
func (c *Cluster) Close() error {
	var errs []error
	for _, m := range c.members {
		errs = append(errs, m.Close())
	}
	c.net.close()
	errs = append(errs, os.RemoveAll(c.dir))
	return errors.Join(errs...)
}

func (c *Cluster) member(i int) (*Server, error) {
	if i < 0 || i >= len(c.members) {
		return nil, fmt.Errorf("zktest: member %d: cluster has members 0..%d", i, len(c.members)-1)
	}
	return c.members[i], nil
}
