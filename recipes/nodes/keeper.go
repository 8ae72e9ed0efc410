package nodes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// The keeper waits between failed attempts from minRetry, doubling up to
// maxRetry; a connection change ends a wait at once.
const (
	minRetry = 50 * time.Millisecond
	maxRetry = 2 * time.Second
)

// keep makes sure the node stands until ctx ends or the client closes.
func (p *PersistentNode) keep(ctx context.Context) {
	defer close(p.stopped)
	delay := minRetry
	var w armed
	for {
		err := p.step(ctx, &w)
		var again <-chan time.Time
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, framework.ErrClosed), isPermanent(err):
			p.stop(fmt.Errorf("nodes: keep %s: %w", p.base, err))
			return
		case err != nil:
			p.failed(err)
			again = time.After(delay)
			delay = min(2*delay, maxRetry)
		default:
			delay = minRetry
		}
		if w.ch == nil && again == nil {
			continue // just made or removed a node: look again
		}
		select {
		case <-ctx.Done():
			return
		case <-p.c.Done():
		case <-w.ch:
			w.ch = nil
		case <-again:
		case <-p.kick:
		}
	}
}

// armed is the watch the keeper waits on. go-zookeeper keeps a watch across
// the reconnects of one session, so a look after a reconnect reuses it
// rather than register one more channel per reconnect.
type armed struct {
	ch      <-chan zk.Event
	path    string
	session framework.Session
}

func (a *armed) holds(path string, session framework.Session) bool {
	return a.ch != nil && a.path == path && a.session.ID() == session.ID()
}

// isPermanent reports a failure no retry can mend.
func isPermanent(err error) bool {
	return errors.Is(err, framework.ErrTTLNotEnabled) || errors.Is(err, framework.ErrInvalidPath) ||
		errors.Is(err, framework.ErrInvalidArgument)
}

func (p *PersistentNode) stop(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fatal = err
}

func (p *PersistentNode) failed(err error) {
	log, report := p.c.Logger().Warn, p.c.ReportError
	if transient(err) {
		log, report = p.c.Logger().Debug, func(error) {}
	}
	log("nodes: keeping a node failed; trying again", zap.String("path", p.base), zap.Error(err))
	report(fmt.Errorf("nodes: keeping %q failed: %w", p.base, err))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = err
}

// step looks at the node once and makes it when it is missing, arming w
// to fire when the node changes.
func (p *PersistentNode) step(ctx context.Context, w *armed) error {
	p.mu.Lock()
	path, owner, unverified := p.path, p.owner, p.unverified
	p.mu.Unlock()
	if path == "" {
		return p.create(ctx)
	}
	var stat *zk.Stat
	var err error
	if session := p.c.Session(); w.holds(path, session) {
		stat, err = p.c.Exists(ctx, path)
	} else {
		var ch <-chan zk.Event
		if stat, ch, err = p.c.ExistsW(ctx, path); err == nil {
			*w = armed{ch: ch, path: path, session: session}
		}
	}
	switch {
	case err != nil:
		return err
	case stat == nil:
		return p.create(ctx)
	case !p.mode.IsEphemeral() || stat.EphemeralOwner == 0 || p.c.SessionOf(stat.EphemeralOwner).IsCurrent():
		p.takeOver(path, stat)
		held, err := p.applyData(ctx)
		if held {
			closeOnce(p.created) // a node taken over counts once it has our data
		}
		return err
	case madeHere(stat.EphemeralOwner, owner, unverified):
		// Ours, from a session the client gave up: it must not count.
		err := p.c.Delete(ctx, path, framework.WithVersion(stat.Version), framework.Quietly())
		if errors.Is(err, zk.ErrBadVersion) {
			err = nil // changed meanwhile: look again
		}
		return err
	}
	// Another session's node holds the path: wait (on w) for it to go, and
	// tell a wait that times out why.
	p.mu.Lock()
	p.last = fmt.Errorf("%s is an ephemeral node of another session (0x%x); waiting for it to go", path, stat.EphemeralOwner)
	p.mu.Unlock()
	return nil
}

// madeHere reports whether the ephemeral node of session eo is the one this
// keeper's create made: owner is the session that create reported (of id 0
// when none), and a node whose owner could not be read (unverified) is ours
// in whatever session.
func madeHere(eo int64, owner framework.Session, unverified bool) bool {
	return unverified || (owner.ID() != 0 && eo == owner.ID())
}

// takeOver records the node at path as the one kept: this session's
// ephemeral node, or any node in a persistent mode, or a persistent node in
// an ephemeral mode, as Curator's PersistentNode takes over what stands at
// its path (and warns, as Curator does, when the node's kind is not the
// mode's).
func (p *PersistentNode) takeOver(path string, stat *zk.Stat) {
	ephemeral := stat.EphemeralOwner != 0
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.path != path {
		return // replaced meanwhile
	}
	foreign := p.mode.IsEphemeral() && !ephemeral
	if ephemeral != p.mode.IsEphemeral() && p.warnedAt != path {
		p.warnedAt = path
		p.c.Logger().Warn("nodes: the node standing at the path is not of the kept mode; keeping it as it is",
			zap.String("path", path), zap.Stringer("mode", p.mode), zap.Bool("ephemeral", ephemeral))
	}
	p.foreign, p.unverified = foreign, false
	if p.mode.IsEphemeral() {
		p.owner = p.c.SessionOf(stat.EphemeralOwner)
	}
}

// create makes the node, or again where it stood.
func (p *PersistentNode) create(ctx context.Context) error {
	p.mu.Lock()
	data, gen, prev := p.data, p.gen, p.path
	p.mu.Unlock()
	target, mode := p.target(prev)
	opts := []framework.CreateOption{framework.WithMode(mode), framework.CreatingParentContainersIfNeeded()}
	if p.id != "" {
		opts = append(opts, framework.WithProtectedID(p.id))
	}
	if mode.IsTTL() {
		opts = append(opts, framework.WithTTL(p.cfg.ttl))
	}
	create := func(ctx context.Context) (string, error) { return p.c.Create(ctx, target, data, opts...) }
	var made string
	var owner framework.Session
	var err error
	if mode.IsEphemeral() {
		made, owner, err = owned.Create(ctx, p.c, create)
		if err != nil && made != "" {
			// Made, but the session changed and reading its owner failed
			// (Close may have cut the read short): keep its path, so that
			// the next look or Close settles it, rather than lose it.
			p.record(made, framework.Session{}, gen, true)
			return err
		}
	} else {
		made, err = create(ctx)
	}
	if errors.Is(err, zk.ErrNodeExists) && p.id == "" && !mode.IsSequential() {
		return p.adopt(ctx, target)
	}
	if err != nil {
		return err
	}
	p.record(made, owner, gen, false)
	closeOnce(p.created)
	return nil
}

// adopt records a node that stood at the path already, for the next step to
// take over as Curator does (see takeOver) or, in an ephemeral mode, to wait
// out when another session's ephemeral node holds the path.
func (p *PersistentNode) adopt(ctx context.Context, path string) error {
	stat, err := p.c.Exists(ctx, path)
	if err != nil || stat == nil {
		return err
	}
	var owner framework.Session
	if s := p.c.SessionOf(stat.EphemeralOwner); p.mode.IsEphemeral() && s.IsCurrent() {
		owner = s
	}
	p.record(path, owner, 0, false) // its data is not known to be ours
	return nil
}

// record makes the node at path the one kept, as a create or adopt found
// it (not taken over yet): owner and unverified as described on the
// fields, applied the data generation it holds (0 when not known).
func (p *PersistentNode) record(path string, owner framework.Session, applied uint64, unverified bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.path, p.owner, p.applied, p.foreign, p.unverified = path, owner, applied, false, unverified
}

// target is where and in which mode to create the node. Once it has stood
// somewhere it is made again at the same name (a sequential one with its
// sequence, in the matching plain mode), as Curator's PersistentNode does;
// a protected node keeps its id, so that a create whose reply was lost is
// found again.
func (p *PersistentNode) target(prev string) (string, framework.CreateMode) {
	switch {
	case prev == "":
		return p.base, p.mode
	case p.id == "":
		return prev, plain(p.mode)
	case p.mode.IsSequential() && len(prev) >= 10:
		return p.base + prev[len(prev)-10:], plain(p.mode)
	}
	return p.base, p.mode
}

// plain is the non-sequential mode of the same kind.
func plain(m framework.CreateMode) framework.CreateMode {
	switch m {
	case framework.EphemeralSequential:
		return framework.Ephemeral
	case framework.PersistentSequential:
		return framework.Persistent
	case framework.PersistentSequentialWithTTL:
		return framework.PersistentWithTTL
	}
	return m
}

// closeOnce closes ch unless it is closed already; only one goroutine may
// close it.
func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
