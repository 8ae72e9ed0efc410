// Command lockmetrics shows what a dashboard of zkcurator's metrics would
// show: a few clients contend for one InterProcessMutex while the process
// serves its Prometheus metrics on /metrics, and at the end it prints the
// zkcurator series it served.
//
//	cd metrics/prometheus && go run ./cmd/lockmetrics [-clients 4] [-duration 10s] [-addr 127.0.0.1:9464]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. While it runs, `curl -s 127.0.0.1:9464/metrics | grep zkcurator_`
// shows the same series.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zkcurator/zkcurator/framework"
	zkprom "github.com/zkcurator/zkcurator/metrics/prometheus"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lockmetrics:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("lockmetrics", flag.ContinueOnError)
	clients := fs.Int("clients", 4, "contending clients, each with its own session (1..32)")
	duration := fs.Duration("duration", 10*time.Second, "how long they contend")
	addr := fs.String("addr", "127.0.0.1:9464", "where to serve /metrics")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *clients < 1 || *clients > 32 || *duration <= 0 {
		return fmt.Errorf("-clients %d -duration %v: want 1..32 clients and a positive duration", *clients, *duration)
	}
	connect := os.Getenv("ZK_CONNECT")
	if connect == "" {
		srv, err := zktest.NewServer()
		if err != nil {
			return fmt.Errorf("start an embedded ZooKeeper: %w", err)
		}
		defer srv.Close()
		connect = srv.ConnectString()
	}

	// Metrics: one registry, the adapter, and an HTTP handler for it.
	reg := prom.NewRegistry()
	metrics, err := zkprom.New(reg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
	go server.Serve(ln)
	defer server.Close()
	url := "http://" + ln.Addr().String() + "/metrics"
	fmt.Fprintf(out, "serving %s while %d clients contend for %v\n", url, *clients, *duration)

	// The clients, each reporting through the adapter.
	var cycles atomic.Int64
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, *clients)
	for range *clients {
		client, err := framework.NewClient(connect, retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
			framework.WithMetrics(metrics), framework.WithNamespace("lockmetrics"))
		if err != nil {
			return err
		}
		if err := client.Start(); err != nil {
			return err
		}
		defer client.Close()
		mutex, err := locks.NewInterProcessMutex(client, "/job")
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := mutex.Acquire(ctx); err != nil {
					if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
						errs <- err
					}
					return
				}
				time.Sleep(time.Millisecond) // the work the lock protects
				if err := mutex.Release(context.WithoutCancel(ctx)); err != nil {
					errs <- err
					return
				}
				cycles.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	fmt.Fprintf(out, "%d lock cycles; what %s served at the end:\n", cycles.Load(), url)
	return printSeries(url, out)
}

// printSeries prints the zkcurator series of the page at url that have a
// value other than zero, leaving out histogram buckets.
func printSeries(url string, out io.Writer) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "zkcurator_") && !strings.Contains(line, "_bucket{") && !strings.HasSuffix(line, " 0") {
			fmt.Fprintln(out, "  "+line)
		}
	}
	return sc.Err()
}
