// Package ensemble holds what the campaign and its contender process both
// do on the ensemble: read the fence and counter nodes, and lead through a
// LeaderSelector whose term the caller holds.
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
