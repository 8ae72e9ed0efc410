// Command contender is one campaign contender in an OS process of its own,
// so that the campaign's nemesis can freeze it (SIGSTOP) mid-section and
// wake it (SIGCONT) after its session has expired: a stale holder, leader
// or incrementer that really wakes up and carries on with what it read
// before it froze.
//
// With -mode mutex, ttl (the mutex under the persistent TTL driver, with a
// lease of -ttl and a protected id of its own), rwlock (the write lock of a
// read/write lock), latch (a LeaderLatch term) or selector (a LeaderSelector
// term) it takes the lock or wins the term at -lock, reads the fence and the
// counter, and reports on standard output, one line each:
//
//	HELD <token> <session ms>        the lock taken or the term won, at once; the session timeout the server granted
//	HOLD <token> <fence> <counter>   holding; the values read
//	LOST                             the hold's Lost (the term's Done) closed
//	WROTE <outcome> [error]          after a WRITE line on standard input
//	DONE                             released
//
// On WRITE it sets the fence to its token and the counter to counter+1 and
// creates its acknowledgement node, in one transaction conditional on the
// versions it read before it was frozen; the fence is what must refuse it
// when another holder wrote meanwhile.
//
// With -mode long it increments the DistributedAtomicLong at -long, one
// increment after another, until it has been continued after a stop (or
// standard input closes):
//
//	INC <seq>                                     an increment begins
//	INCED <seq> <outcome> <pre> <post> [error]   it ended: accepted, rejected-conflict, no-write or unknown
//	DONE                                          no more increments
//
// Every line begins with the moment it was written, in nanoseconds of the
// wall clock since 1970 (the one clock the campaign's process and this one
// share), which the campaign bounds by when it started the process and
// when it read the line. It exits after DONE, or at once when standard
// input closes.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// config is what the flags say.
type config struct {
	mode, connect, lock, fence, counter, ack, long string
	session, acquire, ttl                          time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "mutex", "mutex, ttl, rwlock, latch, selector or long")
	flag.StringVar(&c.connect, "connect", "", "the ensemble's connect string")
	flag.StringVar(&c.lock, "lock", "", "the lock's or the election's path")
	flag.StringVar(&c.fence, "fence", "", "the fence node")
	flag.StringVar(&c.counter, "counter", "", "the counter node")
	flag.StringVar(&c.ack, "ack", "", "the acknowledgement node to create with the write")
	flag.StringVar(&c.long, "long", "", "the DistributedAtomicLong to increment (mode long)")
	flag.DurationVar(&c.session, "session", 1500*time.Millisecond, "the session timeout")
	flag.DurationVar(&c.ttl, "ttl", time.Second, "the lease of the lock's nodes (mode ttl)")
	flag.DurationVar(&c.acquire, "acquire", 20*time.Second, "how long to contend for the lock or the term")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "contender:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	required := map[string]string{"connect": c.connect, "lock": c.lock, "fence": c.fence, "counter": c.counter, "ack": c.ack}
	switch c.mode {
	case "long":
		required = map[string]string{"connect": c.connect, "long": c.long}
	case "mutex", "ttl", "rwlock", "latch", "selector":
	default:
		return fmt.Errorf("-mode %q: want mutex, ttl, rwlock, latch, selector or long", c.mode)
	}
	for name, v := range required {
		if v == "" {
			return fmt.Errorf("-%s is required with -mode %s", name, c.mode)
		}
	}
	client, err := framework.NewClient(c.connect, zkclient.TestRetryPolicy,
		framework.WithSessionTimeout(c.session), framework.WithConnectionTimeout(2*c.session))
	if err != nil {
		return err
	}
	defer client.Close()
	if err := client.Start(); err != nil {
		return err
	}
	var o out
	if c.mode == "long" {
		return increment(&o, client, c)
	}
	return holdAndWrite(&o, client, c)
}

// out serializes the report lines, each stamped with when it was written.
type out struct{ mu sync.Mutex }

func (o *out) say(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Printf("%d "+format+"\n", append([]any{time.Now().UnixNano()}, args...)...)
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
