package nodes

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// PersistentNode keeps one node on the server while it runs, as Curator's
// PersistentNode: it creates the node in the background, and makes it again
// whenever it is deleted or its session is lost, with the latest data given
// to SetData. Close deletes it. A PersistentNode is safe for concurrent use.
type PersistentNode struct {
	c    *framework.Client
	base string
	mode framework.CreateMode
	cfg  nodeConfig
	id   string // the protected id, "" without WithProtection
	// closeOpts are added to Close's delete (a TTL node's container deletes
	// its touched child with it).
	closeOpts []framework.DeleteOption

	created  chan struct{} // closed by the first create
	stopped  chan struct{} // closed when the keeper has ended
	kick     chan struct{} // asks the keeper to look at the node again
	cancel   context.CancelFunc
	unlisten func()

	writing chan struct{} // a token held by the one data write under way

	mu      sync.Mutex
	life    lifecycle.Lifecycle // moved under mu, so that Close finds what Start set up
	data    []byte
	gen     uint64            // the data's generation: 1 for the first, one more per SetData
	applied uint64            // the generation the node holds, 0 when not known
	path    string            // the node's path once created
	owner   framework.Session // the session that created an ephemeral node, of id 0 if not ours
	// foreign marks a persistent node taken over in an ephemeral mode: it
	// stands for this client whatever the session, and Close deletes it.
	foreign bool
	// unverified marks an ephemeral node our create made whose owner could
	// not be read: one of this client's sessions owns it, and it does not
	// count until a look finds that session current.
	unverified bool
	warnedAt   string // the path last warned of as not of the kept mode
	fatal      error  // why the keeper stopped for good
	last       error  // the keeper's last failure, for a wait that times out
}

// NewPersistentNode returns a node kept at path in mode, holding data. In a
// sequential mode path is the prefix the server appends the sequence to; with
// WithProtection the node's name gets Curator's "_c_<uuid>-" prefix. It makes
// no network call: a nil client, a bad path or mode, or a bad or nil option is an
// error matching ErrInvalidArgument.
func NewPersistentNode(c *framework.Client, path string, mode framework.CreateMode, data []byte, opts ...PersistentNodeOption) (*PersistentNode, error) {
	if err := validateTarget(c, path); err != nil {
		return nil, err
	}
	var cfg nodeConfig
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the node at %q", path)); err != nil {
		return nil, err
	}
	if err := cfg.validate(path, mode); err != nil {
		return nil, err
	}
	p := &PersistentNode{
		c: c, base: path, mode: mode, cfg: cfg,
		life:    lifecycle.New(&lifeErrors),
		created: make(chan struct{}),
		stopped: make(chan struct{}),
		kick:    make(chan struct{}, 1),
		writing: make(chan struct{}, 1),
		data:    bytes.Clone(data),
		gen:     1,
	}
	if cfg.protected {
		p.id = protection.NewID()
	}
	return p, nil
}

// Start begins creating the node in the background and returns at once;
// WaitForInitialCreate waits for the first create. A second Start returns
// ErrAlreadyStarted; on a closed client it returns an error matching
// framework.ErrClosed.
func (p *PersistentNode) Start() error {
	select {
	case <-p.c.Done():
		return fmt.Errorf("nodes: start %s: %w", p.base, framework.ErrClosed)
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.life.Start(p.base); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.unlisten = p.c.Listen(func(framework.ConnectionState) { p.poke() })
	go p.keep(ctx)
	return nil
}

// WaitForInitialCreate waits until the node has been created once. It
// returns ctx's error (naming the last failure, if any) when ctx ends first,
// the reason the node can never be made (such as framework.ErrTTLNotEnabled),
// ErrNotStarted before Start and ErrClosed after Close.
func (p *PersistentNode) WaitForInitialCreate(ctx context.Context) error {
	if err := p.life.Check(p.base); err != nil {
		return err
	}
	select {
	case <-p.created:
		return nil
	case <-p.stopped:
		select {
		case <-p.created:
			return nil
		default:
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.fatal != nil {
			return p.fatal
		}
		return fmt.Errorf("%w: %s", ErrClosed, p.base)
	case <-ctx.Done():
		p.mu.Lock()
		last := p.last
		p.mu.Unlock()
		if last != nil {
			return fmt.Errorf("nodes: waiting for the initial create of %s: %w (last attempt: %v)", p.base, ctx.Err(), last)
		}
		return fmt.Errorf("nodes: waiting for the initial create of %s: %w", p.base, ctx.Err())
	}
}

// Path returns the path of the node while it stands for this client: once
// created, and for an ephemeral node only while the session that created it
// is the client's current one (a persistent node taken over in an ephemeral
// mode stands in every session). It returns "" otherwise.
func (p *PersistentNode) Path() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode.IsEphemeral() && !p.foreign && !p.owner.IsCurrent() {
		return ""
	}
	return p.path
}

// Data returns a copy of the data the node is kept with.
func (p *PersistentNode) Data() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.data)
}

// Close stops keeping the node and deletes it (guaranteed: a delete that
// fails with a connection loss goes on in the background). It waits for the
// background work to end. A second Close returns nil.
func (p *PersistentNode) Close(ctx context.Context) error {
	p.mu.Lock()
	_, was := p.life.Close()
	p.mu.Unlock()
	if was != lifecycle.Started {
		return nil // a second Close, or the node was never started
	}
	p.unlisten()
	p.cancel()
	<-p.stopped
	return p.deleteNode(ctx)
}

// poke asks the keeper to look at the node again, without blocking.
func (p *PersistentNode) poke() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}
