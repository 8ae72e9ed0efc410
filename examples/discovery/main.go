// Command discovery shows Curator's service discovery in Go: two instances
// of a service register (in the JSON a Java service using Curator or Spring
// Cloud Zookeeper reads), a client picks an instance per request
// round-robin through a ServiceProvider, and when one instance's process
// dies its node goes with its session and the provider stops offering it.
// It exits with status 1 if the client was offered an instance that was
// gone, or did not take turns.
//
//	go run ./examples/discovery
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: each service registers with its own client
// (as a separate process would); the client starts a provider and picks.
package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(run)
}

// Build is the payload each instance carries; a Java reader builds a
// com.example.Build from it ("@class").
type Build struct {
	Version string `json:"version"`
}

// goneWithin bounds how long after a process dies the provider still offers
// it: the session close, the watch notification and one read.
const goneWithin = 5 * time.Second

// run registers two instances of "orders", picks among them round-robin,
// kills one and checks it is never picked again.
func run(ctx context.Context, connect string, out io.Writer) error {
	st := newStage(connect, out, "discovery")
	defer st.Close()
	p := st.Printer
	p.Title("discovery: two instances of the service \"orders\" register; a client picks one per request")

	spec, err := discovery.ParseURISpec("{scheme}://{address}:{port}")
	if err != nil {
		return err
	}
	services := make([]*framework.Client, 2)
	for i := range services {
		c, err := newClient(ctx, connect, st.Namespace())
		if err != nil {
			return err
		}
		defer c.Close()
		services[i] = c
		d, err := discovery.NewServiceDiscovery[Build](c, "/services")
		if err != nil {
			return err
		}
		if err := d.Start(); err != nil {
			return err
		}
		defer d.Close(context.WithoutCancel(ctx))
		inst := discovery.NewServiceInstance[Build]("orders", "127.0.0.1", 8081+i)
		inst.ID = fmt.Sprintf("orders-%d", i+1)
		inst.Payload, inst.PayloadClass = &Build{Version: "1.4." + fmt.Sprint(i)}, "com.example.Build"
		inst.URISpec = spec
		if err := d.RegisterService(ctx, inst); err != nil {
			return err
		}
		p.Say("%s registers at %s", inst.ID, inst.BuildURI(nil))
	}

	client, err := newClient(ctx, connect, st.Namespace())
	if err != nil {
		return err
	}
	defer client.Close()
	d, err := discovery.NewServiceDiscovery[Build](client, "/services")
	if err != nil {
		return err
	}
	provider, err := d.NewServiceProvider("orders") // RoundRobin by default
	if err != nil {
		return err
	}
	defer provider.Close()
	if err := provider.Start(ctx); err != nil {
		return err
	}

	v := &verdict{}
	var picked []string
	for range 4 {
		inst, ok := provider.Instance()
		v.Expect(ok, "no instance offered while two are registered")
		picked = append(picked, inst.ID)
		p.Say("request goes to %s (%s, build %s)", inst.ID, inst.BuildURI(nil), inst.Payload.Version)
	}
	v.Expect(picked[0] != picked[1] && picked[0] == picked[2] && picked[1] == picked[3],
		"round-robin picked %v, want the two instances in turn", picked)

	p.Say("orders-2's process dies: its client closes, its session and ephemeral node go with it")
	services[1].Close()
	err = waitUntil(ctx, goneWithin, "the provider to drop orders-2", func(context.Context) (bool, error) {
		return len(provider.AllInstances()) == 1, nil
	})
	v.Expect(err == nil, "the provider still offers orders-2 after %v: %v", goneWithin, err)
	for range 3 {
		inst, ok := provider.Instance()
		v.Expect(ok && inst.ID == "orders-1", "request went to %q (offered: %v) after orders-2 died", inst.ID, ok)
		p.Say("request goes to %s", inst.ID)
	}
	return v.Conclude(p, "requests took turns between the live instances, and none went to the dead one")
}

// newClient connects one client, as one process would.
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
