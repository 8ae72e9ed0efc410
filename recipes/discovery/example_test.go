package discovery_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Register two instances of a service and pick them round-robin through a
// provider, as a Curator client of the same base path would.
func ExampleServiceDiscovery() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := discovery.NewServiceDiscovery[map[string]string](client, "/services")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close(ctx) // unregisters what it registered
	for _, id := range []string{"orders-1", "orders-2"} {
		inst := discovery.NewServiceInstance[map[string]string]("orders", "127.0.0.1", 8080)
		inst.ID = id
		if err := d.RegisterService(ctx, inst); err != nil {
			fmt.Println(err)
			return
		}
	}

	p, err := d.NewServiceProvider("orders") // RoundRobin by default
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	for range 3 {
		inst, ok := p.Instance()
		fmt.Println(inst.ID, ok)
	}
	// Output:
	// orders-1 true
	// orders-2 true
	// orders-1 true
}
