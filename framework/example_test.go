package framework_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

func ExampleNewClient() {
	c, err := framework.NewClient("127.0.0.1:2181",
		retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxSleep: 5 * time.Second, MaxRetries: 10},
		framework.WithNamespace("myapp"),
		framework.WithSessionTimeout(30*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		log.Fatal(err)
	}
	// Creates /myapp/config/db on the server, and /myapp/config as a container.
	p, err := c.Create(ctx, "/config/db", []byte("postgres://..."), framework.CreatingParentContainersIfNeeded())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p) // "/config/db": returned paths have the namespace stripped
}

func ExampleClient_Listen() {
	var c *framework.Client // a started client
	stop := c.Listen(func(s framework.ConnectionState) {
		if c.ErrorPolicy().IsErrorState(s) {
			log.Printf("connection %v: stop trusting what we hold", s)
		}
	})
	defer stop()
}

func ExampleWithProtection() {
	var c *framework.Client // a started client
	ctx := context.Background()
	// Even if the reply to the create is lost and the create retried, exactly one node
	// exists, and it is ours: /locks/_c_<uuid>-lock-0000000007.
	p, err := c.Create(ctx, "/locks/lock-", nil,
		framework.WithMode(framework.EphemeralSequential),
		framework.WithProtection(),
		framework.CreatingParentContainersIfNeeded())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p)
}

func ExampleGuaranteed() {
	var c *framework.Client // a started client
	// If the delete fails with a connection problem, the client keeps trying in the
	// background until the node is gone.
	if err := c.Delete(context.Background(), "/locks/mine", framework.Guaranteed()); err != nil {
		log.Printf("delete will be retried in the background: %v", err)
	}
}
