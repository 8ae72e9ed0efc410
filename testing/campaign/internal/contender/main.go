// Command contender is one campaign contender in an OS process of its own,
// so that the campaign's nemesis can freeze it (SIGSTOP) while it holds the
// mutex and wake it (SIGCONT) after its session has expired: a stale holder
// that really wakes up and writes with its old fencing token.
//
// It acquires the InterProcessMutex at -lock, reads the fence and the
// counter, and reports on standard output, one line each:
//
//	HOLD <token> <fence> <counter>   holding; the values read
//	LOST                             the hold's Lost channel closed
//	WROTE <outcome> [error]          after a WRITE line on standard input
//	DONE                             released
//
// On WRITE it sets the fence to its token and the counter to counter+1 and
// creates its acknowledgement node, in one transaction conditional on the
// versions it read before it was frozen; the fence is what must refuse it
// when another holder wrote meanwhile. It exits after DONE, or at once when
// standard input closes.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
)

func main() {
	connect := flag.String("connect", "", "the ensemble's connect string")
	lock := flag.String("lock", "", "the mutex's path")
	fence := flag.String("fence", "", "the fence node")
	counter := flag.String("counter", "", "the counter node")
	ack := flag.String("ack", "", "the acknowledgement node to create with the write")
	session := flag.Duration("session", 1500*time.Millisecond, "the session timeout")
	acquire := flag.Duration("acquire", 20*time.Second, "how long to contend for the mutex")
	flag.Parse()
	if err := run(*connect, *lock, *fence, *counter, *ack, *session, *acquire); err != nil {
		fmt.Fprintln(os.Stderr, "contender:", err)
		os.Exit(1)
	}
}

// out serializes the report lines.
type out struct{ mu sync.Mutex }

func (o *out) say(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Printf(format+"\n", args...)
}

func run(connect, lockPath, fencePath, counterPath, ackPath string, session, acquire time.Duration) error {
	for name, v := range map[string]string{"connect": connect, "lock": lockPath, "fence": fencePath, "counter": counterPath, "ack": ackPath} {
		if v == "" {
			return fmt.Errorf("-%s is required", name)
		}
	}
	c, err := framework.NewClient(connect, locktest.TestRetryPolicy,
		framework.WithSessionTimeout(session), framework.WithConnectionTimeout(2*session))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), acquire+4*session)
	defer cancel()
	m, err := locks.NewInterProcessMutex(c, lockPath)
	if err != nil {
		return err
	}
	ok, err := m.TryAcquire(ctx, acquire)
	if err != nil {
		return fmt.Errorf("acquire %s: %w", lockPath, err)
	}
	if !ok {
		return fmt.Errorf("acquire %s: not within %v", lockPath, acquire)
	}
	var o out
	go func() {
		<-m.Lost()
		o.say("LOST")
	}()
	token := m.FencingToken()
	fence, fenceStat, err := readInt(ctx, c, fencePath)
	if err == nil {
		var count int64
		var countStat *zk.Stat
		count, countStat, err = readInt(ctx, c, counterPath)
		if err == nil {
			o.say("HOLD %d %d %d", token, fence, count)
			err = awaitWrite(ctx, &o, c, token, fence, fenceStat, count, countStat, fencePath, counterPath, ackPath)
		}
	}
	relCtx, relCancel := context.WithTimeout(context.Background(), 2*session)
	defer relCancel()
	if rerr := m.Release(relCtx); rerr != nil && err == nil {
		err = fmt.Errorf("release: %w", rerr)
	}
	o.say("DONE")
	return err
}

// awaitWrite waits for WRITE on standard input and then writes, conditional
// on the versions read before.
func awaitWrite(ctx context.Context, o *out, c *framework.Client, token, fence int64, fenceStat *zk.Stat, count int64, countStat *zk.Stat, fencePath, counterPath, ackPath string) error {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() || strings.TrimSpace(in.Text()) != "WRITE" {
		return errors.New("standard input ended before WRITE")
	}
	if token <= fence {
		o.say("WROTE rejected-stale")
		return nil
	}
	_, err := c.Transaction(ctx,
		&zk.SetDataRequest{Path: fencePath, Data: []byte(strconv.FormatInt(token, 10)), Version: fenceStat.Version},
		&zk.SetDataRequest{Path: counterPath, Data: []byte(strconv.FormatInt(count+1, 10)), Version: countStat.Version},
		&zk.CreateRequest{Path: ackPath, Data: []byte(fmt.Sprintf("%d %d", token, count+1))},
	)
	switch {
	case err == nil:
		o.say("WROTE accepted")
	case errors.Is(err, zk.ErrBadVersion):
		o.say("WROTE rejected-conflict %s", oneLine(err))
	default:
		o.say("WROTE unknown %s", oneLine(err))
	}
	return nil
}

func readInt(ctx context.Context, c *framework.Client, p string) (int64, *zk.Stat, error) {
	data, stat, err := c.GetData(ctx, p)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", p, err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: data %q: %w", p, data, err)
	}
	return v, stat, nil
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
