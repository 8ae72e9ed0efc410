package locks_test

import (
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// exampleClient starts a real ZooKeeper on 127.0.0.1 and a started client of
// it, for the examples (ExampleInterProcessMutex shows these steps in full);
// stop closes both.
func exampleClient() (client *framework.Client, stop func(), err error) {
	srv, err := zktest.NewServer()
	if err != nil {
		return nil, nil, err
	}
	client, err = framework.NewClient(srv.ConnectString(), retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxRetries: 3})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		srv.Close()
		return nil, nil, err
	}
	return client, func() { client.Close(); srv.Close() }, nil
}
