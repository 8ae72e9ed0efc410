package leader

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// What the selector's loop waits for, as Close's error says.
const (
	stageIdle      = "the selector's loop to stop"
	stageAcquiring = "the lock's acquisition to stop"
	stageLeading   = "the leader function to return"
	stageReleasing = "the lock node's deletion"
)

// run takes turns until ctx (the selector's life) ends or the client is
// closed: each turn acquires the mutex, runs the function in a term and
// releases the mutex.
func (s *LeaderSelector) run(ctx context.Context) {
	defer close(s.done)
	ctx, stop := untilClientCloses(ctx, s.client, nil)
	defer stop()
	pause := minPause
	for ctx.Err() == nil {
		select {
		case <-s.kick:
		case <-ctx.Done():
			return
		}
		if !s.takeTurn() {
			continue
		}
		s.setStage(stageAcquiring)
		if err := s.mutex.Acquire(ctx); err != nil {
			if ctx.Err() != nil {
				return // the mutex deleted its node
			}
			// A failed acquisition is not a turn: try again after a pause.
			s.client.Logger().Warn("leader selector could not acquire", zap.String("path", s.path), zap.String("id", s.id), zap.Error(err))
			s.client.ReportError(fmt.Errorf("leader: selector on %q could not acquire: %w", s.path, err))
			t := time.NewTimer(pause)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			pause = min(2*pause, maxPause)
			s.mu.Lock()
			s.requeueLocked()
			s.mu.Unlock()
			continue
		}
		pause = minPause
		s.setStage(stageLeading)
		ran := s.lead(ctx)
		s.setStage(stageReleasing)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.client.SessionTimeout())
		if err := s.mutex.Release(rctx); err != nil {
			s.client.Logger().Warn("leader selector release failed; the node is deleted in the background", zap.String("path", s.path), zap.Error(err))
			s.client.ReportError(fmt.Errorf("leader: selector on %q could not release: %w", s.path, err))
		}
		cancel()
		s.setStage(stageIdle)
		if s.autoRequeue || !ran {
			// A hold that could not begin a term is not a turn either.
			s.mu.Lock()
			s.requeueLocked()
			s.mu.Unlock()
		}
	}
}

// takeTurn consumes a pending request for a turn.
func (s *LeaderSelector) takeTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.queued || s.life.State() != lifecycle.Started {
		return false
	}
	s.queued = false
	return true
}

// lead runs the function in a term while the mutex is held, through a lock
// node of the client's current session. The term ends when the mutex's hold
// is no longer certain, the lock node is found deleted, the selector or the
// client closes or the function returns. It reports whether a term began.
func (s *LeaderSelector) lead(ctx context.Context) bool {
	token := s.mutex.FencingToken() // 0 when the node is found gone
	node := s.mutex.LockPath()
	if token == 0 || node == "" {
		return false
	}
	owner, w, ok := s.armNodeWatch(ctx, node)
	if !ok {
		return false
	}
	t := newTerm(node, owner, token, s.met)
	var watchers sync.WaitGroup
	watchers.Add(2)
	go func() {
		defer watchers.Done()
		s.watchHold(ctx, t)
	}()
	go func() {
		defer watchers.Done()
		s.watchNode(t, w)
	}()
	select {
	case <-s.mutex.Lost():
		t.end(s.lostCause("the lock is no longer certain"))
	default:
	}
	ran := t.live()
	if ran {
		s.mu.Lock()
		s.term = t
		s.mu.Unlock()
		s.client.Logger().Info("leader selector leads", zap.String("path", s.path), zap.String("id", s.id), zap.String("node", node), zap.Int64("token", token))
		if err := s.fn(t.ctx, t.Term); err != nil {
			s.client.Logger().Warn("leader function failed", zap.String("path", s.path), zap.String("id", s.id), zap.Error(err))
			s.client.ReportError(fmt.Errorf("leader: leader function of %q failed: %w", s.path, err))
		}
	}
	t.end(ErrTermEnded)
	watchers.Wait()
	s.mu.Lock()
	s.term = nil
	s.mu.Unlock()
	return ran
}
