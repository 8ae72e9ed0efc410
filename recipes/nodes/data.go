package nodes

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// SetData sets the data the node is kept with: on the node now, if it
// stands, and on every creation from then on. Before Start it only sets the
// data of the first create. On a closed client it returns an error
// matching framework.ErrClosed. An error means the node could not be written
// now; the data is kept for the next creation all the same.
func (p *PersistentNode) SetData(ctx context.Context, data []byte) error {
	select {
	case <-p.c.Done():
		return fmt.Errorf("nodes: set data of %s: %w", p.base, framework.ErrClosed)
	default:
	}
	p.mu.Lock()
	if p.life.State() == lifecycle.Closed {
		p.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrClosed, p.base)
	}
	p.data = bytes.Clone(data)
	p.gen++
	p.mu.Unlock()
	_, err := p.applyData(ctx)
	return err
}

// applyData writes the latest data on the node when the node does not hold
// it yet. One write runs at a time and writes the latest data, again until
// the node holds it, so that the last write carries the last SetData; a
// caller whose ctx ends while another write runs returns with ctx's error
// and leaves its data to that write. It reports whether the node holds the
// latest data: false when there is no node, or it was found gone.
func (p *PersistentNode) applyData(ctx context.Context) (bool, error) {
	select {
	case p.writing <- struct{}{}:
	case <-ctx.Done():
		return false, fmt.Errorf("nodes: set data of %s: %w (waiting for the write under way, which writes this data too)", p.base, ctx.Err())
	}
	defer func() { <-p.writing }()
	for {
		p.mu.Lock()
		path, data, gen, applied := p.path, p.data, p.gen, p.applied
		p.mu.Unlock()
		if path == "" || applied >= gen {
			return path != "", nil
		}
		_, err := p.c.SetData(ctx, path, data, -1)
		if errors.Is(err, zk.ErrNoNode) {
			p.poke() // it is made again with this data
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("nodes: set data of %s: %w", path, err)
		}
		p.mu.Lock()
		if p.path == path && p.applied < gen {
			p.applied = gen
		}
		p.mu.Unlock()
	}
}
