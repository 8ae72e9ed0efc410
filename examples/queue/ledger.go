package main

import "sync"

// ledger records which consumer processed which order; it is safe for
// concurrent use.
type ledger struct {
	mu    sync.Mutex
	byOrd map[string][]string
	total int
}

func newLedger() *ledger { return &ledger{byOrd: map[string][]string{}} }

func (l *ledger) done(order, consumer string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byOrd[order] = append(l.byOrd[order], consumer)
	l.total++
}

func (l *ledger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

func (l *ledger) by(order string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.byOrd[order]...)
}

func (l *ledger) countBy(consumer string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, who := range l.byOrd {
		for _, w := range who {
			if w == consumer {
				n++
			}
		}
	}
	return n
}
