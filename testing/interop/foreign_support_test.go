package interop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// kazooContender is a Kazoo lock handle in a Python helper; it is driven like
// a Curator handle, through the same line protocol.
func kazooContender(k *KazooHelper, handle string) *javaContender {
	return &javaContender{h: k.Helper, target: handle}
}

// gozkContender is go-zookeeper's own zk.Lock on its own connection.
type gozkContender struct {
	name string
	conn *zk.Conn
	lock *zk.Lock
}

// newGozkContender connects a go-zookeeper client for the test and returns its
// zk.Lock on path. zk.Lock cannot be cancelled: closing the connection at the
// end of the test ends a wait.
func newGozkContender(t *testing.T, connect, name, path string) *gozkContender {
	t.Helper()
	conn, _, err := zk.Connect([]string{connect}, goSessionTimeout, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatalf("%s: connect %s: %v", name, connect, err)
	}
	t.Cleanup(conn.Close)
	return &gozkContender{name: name, conn: conn, lock: zk.NewLock(conn, path, zk.WorldACL(zk.PermAll))}
}

func (g *gozkContender) String() string { return g.name }

func (g *gozkContender) start(context.Context) *pending {
	p := &pending{owner: g.name, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if p.err = g.lock.Lock(); p.err == nil {
			p.at = now()
		}
	}()
	return p
}

func (g *gozkContender) release(context.Context) (time.Time, error) {
	at := now()
	return at, g.lock.Unlock()
}

func (g *gozkContender) participants(context.Context) ([]string, error) {
	return nil, errors.New("go-zookeeper's zk.Lock does not list its contenders")
}

// watchers returns the sessions that watch nodePath, from the server's "wchp".
func watchers(ctx context.Context, srv *zktest.Server, nodePath string) ([]string, error) {
	out, err := srv.FourLetter(ctx, "wchp")
	if err != nil {
		return nil, err
	}
	var sessions []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "/"):
			in = strings.TrimSpace(line) == nodePath
		case in && strings.TrimSpace(line) != "":
			sessions = append(sessions, strings.TrimSpace(line))
		}
	}
	return sessions, nil
}

// outcome is what a second contender did while the first held the lock.
type outcome int

const (
	waited     outcome = iota + 1 // it queued behind the holder's node and watched it
	overlapped                    // it acquired beside the holder
)

func (o outcome) String() string {
	switch o {
	case waited:
		return "waits"
	case overlapped:
		return "OVERLAPS"
	}
	return "?"
}

// secondWhileHeld starts waiter while holderNode (the only other node under
// the lock path) holds the lock and reports whether the waiter acquired
// beside it or settled to wait: a waiter that waits watches the holder's
// node, so a new session among the node's watchers is the sign, with no
// sleep. The pending acquire is returned either way.
func secondWhileHeld(t *testing.T, ctx context.Context, srv *zktest.Server, holderNode string, waiter contender) (outcome, *pending) {
	t.Helper()
	before, err := watchers(ctx, srv, holderNode)
	if err != nil {
		t.Fatal(err)
	}
	p := waiter.start(ctx)
	var got outcome
	waitFor(t, ctx, fmt.Sprintf("%s to acquire or to watch %s", waiter, holderNode), func() (bool, error) {
		if p.finished() {
			got = overlapped
			return true, nil
		}
		now, err := watchers(ctx, srv, holderNode)
		if err != nil {
			return false, err
		}
		for _, s := range now {
			if !slices.Contains(before, s) {
				got = waited
				return true, nil
			}
		}
		return false, nil
	})
	if got == overlapped && p.err != nil {
		t.Fatalf("%s: acquire: %v", waiter, p.err)
	}
	return got, p
}
