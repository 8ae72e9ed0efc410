package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

// closeTimeout bounds how long closing one session may take.
const closeTimeout = 10 * time.Second

// session is one client session of the implementation under test.
type session interface {
	// newMutex returns a lock handle on path for this session.
	newMutex(path string) (mutex, error)
	// id is the session's id, 0 while it has none.
	id() int64
	// close ends the session; it is idempotent and safe to call concurrently
	// with operations, which then fail.
	close()
}

// mutex is one lock handle.
type mutex interface {
	acquire(ctx context.Context) error
	release(ctx context.Context) error
}

// dial opens one connected session of the configured implementation.
func dial(ctx context.Context, cfg config, connect string) (session, error) {
	switch cfg.impl {
	case implGozk:
		return dialGozk(ctx, connect, cfg.sessionTimeout, false)
	case implFloor:
		return dialGozk(ctx, connect, cfg.sessionTimeout, true)
	}
	var driver locks.LockInternalsDriver = locks.StandardLockInternalsDriver{}
	if cfg.driver == driverUnfair {
		driver = locks.UnfairLockInternalsDriver{}
	}
	return dialCurator(ctx, connect, cfg.sessionTimeout, driver)
}

// curatorSession is a framework.Client; its handles are InterProcessMutexes.
type curatorSession struct {
	client *framework.Client
	driver locks.LockInternalsDriver
	once   sync.Once
}

func dialCurator(ctx context.Context, connect string, sessionTimeout time.Duration, driver locks.LockInternalsDriver) (*curatorSession, error) {
	policy := retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10}
	c, err := framework.NewClient(connect, policy, framework.WithSessionTimeout(sessionTimeout))
	if err != nil {
		return nil, err
	}
	s := &curatorSession{client: c, driver: driver}
	if err := c.Start(); err != nil {
		s.close()
		return nil, err
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		s.close()
		return nil, fmt.Errorf("connect to %s: %w", connect, err)
	}
	return s, nil
}

func (s *curatorSession) newMutex(path string) (mutex, error) {
	m, err := locks.NewInterProcessMutex(s.client, path, locks.WithDriver(s.driver))
	return curatorMutex{m}, err
}

func (s *curatorSession) id() int64 { return s.client.SessionID() }

func (s *curatorSession) close() { s.once.Do(func() { _ = s.client.Close() }) }

type curatorMutex struct{ m *locks.InterProcessMutex }

func (m curatorMutex) acquire(ctx context.Context) error { return m.m.Acquire(ctx) }
func (m curatorMutex) release(ctx context.Context) error { return m.m.Release(ctx) }

// gozkSession is a go-zookeeper connection; its handles are zk.Locks, or
// floorMutexes for -impl floor.
type gozkSession struct {
	conn   *zk.Conn
	events <-chan zk.Event
	floor  bool
	once   sync.Once
}

func dialGozk(ctx context.Context, connect string, sessionTimeout time.Duration, floor bool) (*gozkSession, error) {
	conn, events, err := zk.Connect(strings.Split(connect, ","), sessionTimeout, zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", connect, err)
	}
	s := &gozkSession{conn: conn, events: events, floor: floor}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, fmt.Errorf("connect to %s: connection closed", connect)
			}
			if ev.State == zk.StateHasSession {
				return s, nil
			}
		case <-ctx.Done():
			s.close()
			return nil, fmt.Errorf("connect to %s: %w", connect, ctx.Err())
		}
	}
}

func (s *gozkSession) newMutex(path string) (mutex, error) {
	if s.floor {
		return s.newFloorMutex(path), nil
	}
	return gozkMutex{zk.NewLock(s.conn, path, zk.WorldACL(zk.PermAll))}, nil
}

func (s *gozkSession) id() int64 { return s.conn.SessionID() }

// close closes the connection and waits (bounded) until go-zookeeper's
// goroutines have ended, which it signals by closing the event channel.
func (s *gozkSession) close() {
	s.once.Do(func() {
		s.conn.Close()
		deadline := time.After(closeTimeout)
		for {
			select {
			case _, ok := <-s.events:
				if !ok {
					return
				}
			case <-deadline:
				return
			}
		}
	})
}

// gozkMutex adapts zk.Lock, which takes no context: a waiting Lock is ended
// by closing its session.
type gozkMutex struct{ l *zk.Lock }

func (m gozkMutex) acquire(context.Context) error { return m.l.Lock() }
func (m gozkMutex) release(context.Context) error { return m.l.Unlock() }

// quietLogger drops go-zookeeper's connection messages, which would otherwise
// interleave with the benchmark's output.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
