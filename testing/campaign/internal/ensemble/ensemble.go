// Package ensemble holds what the campaign and its contender process both
// do on the ensemble: read the fence and counter nodes, write through the
// fence, and lead through a LeaderSelector whose term the caller holds.
package ensemble

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
)

// ReadInt reads a node holding a decimal number, and its Stat.
func ReadInt(ctx context.Context, c *framework.Client, p string) (int64, *zk.Stat, error) {
	data, stat, err := c.GetData(ctx, p)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", p, err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: data %q: %w", p, data, err)
	}
	return v, stat, nil
}

// FencedWrite is the campaign's fenced increment: in one transaction,
// conditional on the versions read, it sets the fence to token and the
// counter to count+1 and creates the acknowledgement node ack holding
// "token count+1". zk.ErrBadVersion says the fence or the counter changed
// since they were read.
func FencedWrite(ctx context.Context, c *framework.Client, fence, counter, ack string, token int64, fenceStat *zk.Stat, count int64, counterStat *zk.Stat) error {
	_, err := c.Transaction(ctx,
		&zk.SetDataRequest{Path: fence, Data: []byte(strconv.FormatInt(token, 10)), Version: fenceStat.Version},
		&zk.SetDataRequest{Path: counter, Data: []byte(strconv.FormatInt(count+1, 10)), Version: counterStat.Version},
		&zk.CreateRequest{Path: ack, Data: []byte(fmt.Sprintf("%d %d", token, count+1))},
	)
	return err
}

// Selector is a started LeaderSelector whose function hands each term to
// Terms and keeps it until StepDown or the term ends.
type Selector struct {
	// Terms receives the term once the selector leads.
	Terms <-chan leader.Term

	s        *leader.LeaderSelector
	stepDown chan struct{}
	once     sync.Once
}

// StartSelector starts a selector at path with participant id id.
func StartSelector(c *framework.Client, path, id string) (*Selector, error) {
	terms := make(chan leader.Term, 1)
	sel := &Selector{Terms: terms, stepDown: make(chan struct{})}
	s, err := leader.NewLeaderSelector(c, path, id, func(ctx context.Context, t leader.Term) error {
		terms <- t
		select {
		case <-sel.stepDown:
		case <-ctx.Done():
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	sel.s = s
	return sel, nil
}

// StepDown ends the term, if one is held, and closes the selector.
func (s *Selector) StepDown(ctx context.Context) error {
	s.once.Do(func() { close(s.stepDown) })
	return s.s.Close(ctx)
}
