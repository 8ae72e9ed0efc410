package main

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// retryPolicy retries failed ZooKeeper operations for about half a minute, as
// Curator's usual exponential backoff.
var retryPolicy = retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxSleep: 2 * time.Second, MaxRetries: 10}

// newLogger returns a logger to stderr for --verbose, or one that logs nothing.
func newLogger(verbose bool) *zap.Logger {
	if !verbose {
		return zap.NewNop()
	}
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(zapcore.InfoLevel)
	cfg.DisableStacktrace = true
	cfg.DisableCaller = true
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	l, err := cfg.Build()
	if err != nil {
		return zap.NewNop()
	}
	return l.Named("zkcurator")
}

// dial checks the connection flags (a usage error), starts a client and waits for its first session, at most
// --connect-timeout; failing that it returns an exitUnavailable error (or
// ctx's error). The caller closes the client with closeClient.
func (c *connFlags) dial(ctx context.Context, log *zap.Logger) (*framework.Client, error) {
	if err := c.check(); err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	opts := []framework.Option{
		framework.WithSessionTimeout(c.sessionTimeout),
		framework.WithConnectionTimeout(c.connectTimeout),
		framework.WithLogger(log),
	}
	if c.namespace != "" {
		opts = append(opts, framework.WithNamespace(c.namespace))
	}
	for _, a := range c.auth {
		opts = append(opts, framework.WithAuth(a.scheme, []byte(a.credentials)))
	}
	client, err := framework.NewClient(c.connect, retryPolicy, opts...)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	if c.verbose {
		client.Listen(func(s framework.ConnectionState) {
			log.Info("connection state", zap.Stringer("state", s), zap.String("session", sessionHex(client.SessionID())))
		})
	}
	if err := client.Start(); err != nil {
		closeClient(client, time.Second, log)
		return nil, fail(exitUnavailable, "start the ZooKeeper client: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, c.connectTimeout)
	defer cancel()
	if err := client.BlockUntilConnected(wctx); err != nil {
		closeClient(client, time.Second, log)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fail(exitUnavailable, "cannot reach ZooKeeper at %s within %v", c.connect, c.connectTimeout)
		}
		return nil, fail(exitUnavailable, "cannot reach ZooKeeper at %s: %v", c.connect, err)
	}
	return client, nil
}
