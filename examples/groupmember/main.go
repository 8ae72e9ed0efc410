// Command groupmember shows GroupMember: three members, each with a client
// of its own as three processes would have, join one group with their data
// and see each other; then one member's process dies (its client closes
// without leaving the group) and the two others see it gone. It exits with
// status 1 if a live member's view ever settles on anything but the live
// members.
//
//	go run ./examples/groupmember
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset.
package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/retry"
)

func main() { runProgram(run) }

// groupPath is the group every member joins.
const groupPath = "/groups/workers"

// members is how many members join.
const members = 3

// run lets three members join, shows what each sees, kills the last one's
// process and checks that the others see exactly the live members.
func run(ctx context.Context, connect string, out io.Writer) error {
	st := newStage(connect, out, "groupmember")
	defer st.Close()
	p := st.Printer
	p.Title("groupmember: %d members join %s; one dies, the others see it", members, groupPath)

	clients, err := connectAll(ctx, members, func(ctx context.Context) (*framework.Client, error) {
		return newClient(ctx, connect, st.Namespace())
	})
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()

	group := make([]*nodes.GroupMember, members)
	for i, c := range clients {
		id := fmt.Sprintf("member-%d", i+1)
		m, err := nodes.NewGroupMember(c, groupPath, id, []byte("host-"+fmt.Sprint(i+1)+":8080"))
		if err != nil {
			return err
		}
		if err := m.Start(ctx); err != nil {
			return fmt.Errorf("%s: join: %w", id, err)
		}
		defer m.Close(context.WithoutCancel(ctx))
		group[i] = m
		p.Say("%s joined with data %q", id, m.CurrentMembers()[id])
	}

	var v verdict
	all := ids(group)
	if err := awaitViews(ctx, group, all); err != nil {
		return err
	}
	for _, m := range group {
		p.Say("%s sees %s", m.ID(), show(m.CurrentMembers()))
	}

	dead := group[members-1]
	p.Say("%s's process dies: its client closes without leaving, and its session ends", dead.ID())
	clients[members-1].Close()
	live := group[:members-1]
	if err := awaitViews(ctx, live, ids(live)); err != nil {
		v.Expect(false, "the live members never saw %s go: %v", dead.ID(), err)
	}
	for _, m := range live {
		view := m.CurrentMembers()
		p.Say("%s sees %s", m.ID(), show(view))
		v.Expect(slices.Equal(sortedKeys(view), ids(live)), "%s sees %v, want %v", m.ID(), sortedKeys(view), ids(live))
	}
	return v.Conclude(p, "every live member sees exactly the live members, with their data")
}

// awaitViews waits until every member in ms sees exactly want.
func awaitViews(ctx context.Context, ms []*nodes.GroupMember, want []string) error {
	return waitUntil(ctx, 20*time.Second, "every member sees "+strings.Join(want, ", "), func(context.Context) (bool, error) {
		for _, m := range ms {
			if !slices.Equal(sortedKeys(m.CurrentMembers()), want) {
				return false, nil
			}
		}
		return true, nil
	})
}

func ids(ms []*nodes.GroupMember) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID()
	}
	slices.Sort(out)
	return out
}

func sortedKeys(view map[string][]byte) []string {
	keys := make([]string, 0, len(view))
	for id := range view {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	return keys
}

// show prints a view as id=data pairs.
func show(view map[string][]byte) string {
	var parts []string
	for _, id := range sortedKeys(view) {
		parts = append(parts, fmt.Sprintf("%s=%s", id, view[id]))
	}
	return strings.Join(parts, " ")
}

// newClient connects one client, as one process would, under the demo's
// namespace. Its short session timeout lets a dead member's node go soon.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}
