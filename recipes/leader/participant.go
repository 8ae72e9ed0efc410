package leader

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Participant is one contender of an election, as Curator's Participant.
type Participant struct {
	// ID is the participant's id, the data of its node.
	ID string
	// Leader is true for the participant whose node leads.
	Leader bool
	// Node is the full path of the participant's node.
	Node string
}

// sortedNodes returns the names among children that carry lockName, in the
// order in which they lead: by the text after the last lockName, as
// Curator's StandardLockInternalsDriver sorts.
func sortedNodes(children []string, lockName string) []string {
	var out []string
	for _, ch := range children {
		if strings.Contains(ch, lockName) {
			out = append(out, ch)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return strings.Compare(locks.StandardFixForSorting(a, lockName), locks.StandardFixForSorting(b, lockName))
	})
	return out
}

// listNodes returns the full paths of the contenders' nodes under dir in the
// order in which they lead; none when dir does not exist.
func listNodes(ctx context.Context, c *framework.Client, dir, lockName string) ([]string, error) {
	children, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := sortedNodes(children, lockName)
	for i, n := range names {
		names[i] = path.Join(dir, n)
	}
	return names, nil
}

// readParticipants reads each node's id; nodes deleted meanwhile are left
// out, and the first remaining one leads, as in Curator.
func readParticipants(ctx context.Context, c *framework.Client, nodes []string) ([]Participant, error) {
	out := make([]Participant, 0, len(nodes))
	for _, n := range nodes {
		data, _, err := c.GetData(ctx, n)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("leader: read participant %s: %w", n, err)
		}
		out = append(out, Participant{ID: string(data), Leader: len(out) == 0, Node: n})
	}
	return out, nil
}

// firstParticipant returns the leading participant, or ErrNoLeader.
func firstParticipant(ps []Participant, dir string) (Participant, error) {
	if len(ps) == 0 {
		return Participant{}, fmt.Errorf("%w under %s", ErrNoLeader, dir)
	}
	return ps[0], nil
}

// validate checks what every latch and selector needs before any traffic;
// its errors match ErrInvalidArgument and name the value.
func validate(kind string, c *framework.Client, dir, id string) error {
	switch {
	case c == nil:
		return fmt.Errorf("%w: nil client for the %s at %q", ErrInvalidArgument, kind, dir)
	case id == "":
		return fmt.Errorf("%w: empty participant id for the %s at %q", ErrInvalidArgument, kind, dir)
	}
	if err := framework.ValidatePath(dir); err != nil {
		return fmt.Errorf("%w: %s path: %w", ErrInvalidArgument, kind, err)
	}
	if dir == "/" {
		return fmt.Errorf("%w: %s path %q: the election needs a path of its own", ErrInvalidArgument, kind, dir)
	}
	return nil
}
