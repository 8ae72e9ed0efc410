// Command queue shows Curator's DistributedQueue with a lock path: a
// producer puts orders, two consumers take them, and consumer 1 dies in the
// middle of its first order. Its order is not lost: once its session is
// gone, consumer 2 takes that order and processes it, and every order is
// processed exactly once. It exits with status 1 if an order was lost or
// processed twice, or a lock node was left behind.
//
//	go run ./examples/queue [-orders 6]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Consumer 1 reaches ZooKeeper through a local TCP proxy, so that the
// program can cut it off as a crash would: its session stays on the server
// until it expires, as a killed process's does.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func main() {
	orders := flag.Int("orders", 6, "number of orders to put (2..50)")
	flag.Parse()
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, *orders)
	})
}

// The queue and the lock path every consumer of it must share.
const (
	queuePath = "/queues/orders"
	lockPath  = "/queues/orders-locks"
)

// sessionTimeout is each client's; consumer 1's order goes to consumer 2
// once the server has expired consumer 1's session.
const sessionTimeout = 4 * time.Second

// run puts orders, lets two consumers take them, cuts consumer 1 off in
// the middle of its first order, and checks that every order was processed
// exactly once and that no item or lock node is left.
func run(ctx context.Context, connect string, out io.Writer, orders int) error {
	if orders < 2 || orders > 50 {
		return fmt.Errorf("demo: orders %d is outside 2..50", orders)
	}
	st := newStage(connect, out, "queue")
	defer st.Close()
	p := st.Printer
	p.Title("queue: %d orders, two consumers with one lock path, and consumer 1 dies mid-order", orders)

	producer, err := newClient(ctx, connect, st.Namespace())
	if err != nil {
		return err
	}
	defer producer.Close()
	q, err := queue.NewDistributedQueue(producer, queuePath, queue.JSON[string]())
	if err != nil {
		return err
	}
	if err := q.Start(ctx); err != nil {
		return err
	}
	defer q.Close()
	for i := 1; i <= orders; i++ {
		if _, err := q.Put(ctx, fmt.Sprintf("order-%d", i)); err != nil {
			return err
		}
	}
	p.Say("producer put order-1 .. order-%d", orders)

	book := newLedger()
	// Consumer 1 goes through a proxy that the program will cut.
	proxy, err := zktest.NewProxy(strings.Split(connect, ",")[0])
	if err != nil {
		return err
	}
	inFirst := make(chan string, 1)
	stop1, err := startConsumer(ctx, proxy.Addr(), st.Namespace(), "consumer 1", p, book, inFirst)
	if err != nil {
		proxy.Close()
		return err
	}
	defer stop1()
	defer proxy.Close() // first: consumer 1's client then closes without waiting on the cut
	var first string
	select {
	case first = <-inFirst:
	case <-ctx.Done():
		return fmt.Errorf("waiting for consumer 1 to take an order: %w", ctx.Err())
	}
	stop2, err := startConsumer(ctx, connect, st.Namespace(), "consumer 2", p, book, nil)
	if err != nil {
		return err
	}
	defer stop2()

	p.Say("consumer 1 dies in the middle of %s (its connection is cut; its session lives on until it expires, %v)", first, sessionTimeout)
	proxy.Pause()
	observer := producer
	var v verdict
	err = waitUntil(ctx, 4*sessionTimeout+30*time.Second, "every order is processed", func(context.Context) (bool, error) {
		return book.count() >= orders, nil
	})
	v.Expect(err == nil, "%v", err)
	err = waitUntil(ctx, 15*time.Second, "the queue and its lock path are empty", func(ctx context.Context) (bool, error) {
		items, _, err := observer.Children(ctx, queuePath)
		if err != nil {
			return false, err
		}
		locks, _, err := observer.Children(ctx, lockPath)
		return err == nil && len(items) == 0 && len(locks) == 0, err
	})
	v.Expect(err == nil, "%v", err)
	for i := 1; i <= orders; i++ {
		name := fmt.Sprintf("order-%d", i)
		by := book.by(name)
		v.Expect(len(by) == 1, "%s processed %d times (%v), want once", name, len(by), by)
	}
	v.Expect(strings.Join(book.by(first), "") == "consumer 2", "%s, which consumer 1 died holding, was processed by %v, want consumer 2", first, book.by(first))
	p.Say("%s was processed by %v; consumer 1 processed %d orders, consumer 2 %d", first, book.by(first), book.countBy("consumer 1"), book.countBy("consumer 2"))
	return v.Conclude(p, "every order processed exactly once, the dead consumer's order by the other, and no lock node left")
}

// startConsumer connects a client to connect and starts a consumer of the
// queue with the shared lock path. When first is not nil, the consumer
// announces its first order there and then works on it until its ctx ends,
// which is what a process that dies mid-order looks like from outside.
func startConsumer(ctx context.Context, connect, ns, name string, p *printer, book *ledger, first chan<- string) (stop func(), err error) {
	c, err := newClient(ctx, connect, ns)
	if err != nil {
		return nil, err
	}
	consume := func(ctx context.Context, order string) error {
		p.Say("%s took %s", name, order)
		if first != nil {
			first <- order
			first = nil
			<-ctx.Done() // the work never finishes: this consumer dies first
			p.Say("%s: %s interrupted (%v); the order stays in the queue", name, order, context.Cause(ctx))
			return context.Cause(ctx)
		}
		if err := ctx.Err(); err != nil {
			return err // the order's lock is no longer certain: leave it
		}
		book.done(order, name)
		p.Say("%s processed %s", name, order)
		return nil
	}
	q, err := queue.NewDistributedQueue(c, queuePath, queue.JSON[string](),
		queue.WithLockPath(lockPath), queue.WithConsumer(consume))
	if err == nil {
		err = q.Start(ctx)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return func() { q.Close(); c.Close() }, nil
}

// newClient connects one client, as one process would.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(sessionTimeout),
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
