package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
)

// maxIncrements bounds the loop in count; the nemesis stops it within
// milliseconds of the first increment.
const maxIncrements = 10000

// increment increments the DistributedAtomicLong at cfg.long one increment
// after another, from the first INC to the increment in flight when the
// process is continued after a stop (SIGCONT): that one began before the
// freeze, with what it had read then, and ends after it.
func increment(o *out, c *framework.Client, cfg config) error {
	continued := make(chan os.Signal, 1)
	signal.Notify(continued, syscall.SIGCONT)
	defer signal.Stop(continued)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.acquire+4*cfg.session)
	defer cancel()
	go func() { // standard input closed: the campaign is gone
		for sc := bufio.NewScanner(os.Stdin); sc.Scan(); {
		}
		cancel()
	}()
	long, err := atomic.NewDistributedAtomicLong(c, cfg.long)
	if err != nil {
		return err
	}
	for seq := 0; seq < maxIncrements && ctx.Err() == nil && len(continued) == 0; seq++ {
		o.say("INC %d", seq)
		opCtx, opCancel := context.WithTimeout(ctx, 4*cfg.session)
		v, err := long.Increment(opCtx)
		opCancel()
		switch {
		case err == nil && v.Succeeded:
			o.say("INCED %d accepted %d %d", seq, v.PreValue, v.PostValue)
		case err == nil:
			o.say("INCED %d rejected-conflict 0 0", seq)
		case errors.Is(err, atomic.ErrOutcomeUnknown):
			o.say("INCED %d unknown 0 0 %s", seq, oneLine(err))
		default:
			o.say("INCED %d no-write 0 0 %s", seq, oneLine(err))
		}
	}
	o.say("DONE")
	return nil
}
