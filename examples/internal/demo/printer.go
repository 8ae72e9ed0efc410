package demo

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// printer writes numbered-by-time lines from many goroutines without
// interleaving them: "  0.42s  worker 3 acquired".
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

func newPrinter(w io.Writer) *printer {
	if w == nil {
		w = io.Discard
	}
	return &printer{w: w, start: time.Now()}
}

// say prints one line stamped with the time since the demo began.
func (p *printer) say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%7.2fs  %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// title prints an unstamped heading.
func (p *printer) title(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\n%s\n\n", fmt.Sprintf(format, args...))
}
