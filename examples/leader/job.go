package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// scheduler is one process running the report job while it leads.
type scheduler struct {
	name   string
	proxy  *zktest.Proxy
	client *framework.Client
	latch  *leader.LeaderLatch
	kill   context.CancelFunc // ends the job loop at once, as the process dying would
	done   chan struct{}
}

// runJob runs the report job whenever s leads, until ctx ends.
func runJob(ctx context.Context, p *printer, s *scheduler, store *fencedStore, every time.Duration, v *verdict, record func(tenure)) {
	for {
		term, err := s.latch.Await(ctx)
		if err != nil {
			return
		}
		start := time.Now()
		p.Say("%s leads (fencing token %d) and starts the report job", s.name, term.Token)
		reports := 0
		tick := time.NewTicker(every)
	job:
		for {
			select {
			case <-tick.C:
				reports++
				err := store.Write(term.Token, fmt.Sprintf("report #%d by %s", reports, s.name))
				v.Expect(err == nil, "%s's report was refused: %v", s.name, err)
			case <-term.Done():
				p.Say("%s: leadership ended (%v) after %d reports; the job stops", s.name, context.Cause(term.Context()), reports)
				break job
			case <-ctx.Done():
				break job
			}
		}
		tick.Stop()
		record(tenure{Who: s.name, Token: term.Token, Start: start, End: time.Now()})
		if ctx.Err() != nil {
			return
		}
	}
}
