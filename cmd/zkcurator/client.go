package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// retryPolicy retries failed ZooKeeper operations for about half a minute, as
// Curator's usual exponential backoff.
var retryPolicy = retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxSleep: 2 * time.Second, MaxRetries: 10}

// newLogger returns a logger to stderr for --verbose, or one that logs
// nothing. Besides zkcurator's and the client's messages it shows
// go-zookeeper's own ("zk: failed to connect to ..."), which say why a
// connection fails.
func newLogger(verbose bool) *zap.Logger {
	if !verbose {
		return zap.NewNop()
	}
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(zapcore.DebugLevel)
	cfg.DisableStacktrace = true
	cfg.DisableCaller = true
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	l, err := cfg.Build(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return goZKDebug{c} }))
	if err != nil {
		return zap.NewNop()
	}
	return l.Named("zkcurator")
}

// goZKDebug passes entries at Info and above, and go-zookeeper's own
// messages, which the client logs at Debug with a "zk: " prefix.
type goZKDebug struct{ zapcore.Core }

func (c goZKDebug) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Level < zapcore.InfoLevel && !strings.HasPrefix(e.Message, "zk: ") {
		return ce
	}
	return c.Core.Check(e, ce)
}

func (c goZKDebug) With(fields []zapcore.Field) zapcore.Core { return goZKDebug{c.Core.With(fields)} }

// dial starts a client on the checked flags and waits for its first
// session, at most --connect-timeout; failing that it returns an
// exitUnavailable error that says why (or ctx's error). The caller closes
// the client with closeClient.
func (c *connFlags) dial(ctx context.Context, log *zap.Logger) (*framework.Client, error) {
	return c.dialWithin(ctx, log, c.connectTimeout, "")
}

// dialWithin is dial waiting at most timeout for the first session; the
// error names the limit as flag ("--wait 2s"), or as --connect-timeout's
// value when flag is "".
func (c *connFlags) dialWithin(ctx context.Context, log *zap.Logger, timeout time.Duration, flag string) (*framework.Client, error) {
	report := new(dialReport)
	opts := []framework.Option{
		framework.WithDialer(report.dialer(c.security.tls)),
		framework.WithACLProvider(c.security.aclProvider),
		framework.WithSessionTimeout(c.sessionTimeout),
		framework.WithConnectionTimeout(c.connectTimeout),
		framework.WithLogger(log),
	}
	if c.namespace != "" {
		opts = append(opts, framework.WithNamespace(c.namespace))
	}
	for _, a := range c.auths {
		opts = append(opts, framework.WithAuth(a.scheme, []byte(a.credentials)))
	}
	if c.sasl.sasl != nil {
		opts = append(opts, framework.WithSASL(*c.sasl.sasl))
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
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := client.BlockUntilConnected(wctx); err != nil {
		// Nothing was created: do not wait for go-zookeeper's close.
		closeClient(client, 100*time.Millisecond, log)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, framework.ErrSASLAuthFailed) {
			// The error names the mechanism and user, never the password.
			return nil, fail(exitNoPermission, "ZooKeeper at %s refused the SASL authentication: %v", c.connect, err)
		}
		msg := fmt.Sprintf("cannot reach ZooKeeper at %s", c.connect)
		switch {
		case errors.Is(err, context.DeadlineExceeded) && flag != "":
			msg += " within " + flag
		case errors.Is(err, context.DeadlineExceeded):
			msg += fmt.Sprintf(" within %v", timeout)
		default:
			msg += fmt.Sprintf(": %v", err)
		}
		if why := report.String(); why != "" {
			msg += "; last attempt: " + why
		}
		return nil, fail(exitUnavailable, "%s", msg)
	}
	return client, nil
}
