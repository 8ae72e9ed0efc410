package demo

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Printer writes lines stamped with the time since the demo began, from many
// goroutines without interleaving them: "  0.42s  worker 3 acquired".
type Printer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

// NewPrinter returns a Printer on w (nothing is printed when w is nil) whose
// clock starts now.
func NewPrinter(w io.Writer) *Printer {
	if w == nil {
		w = io.Discard
	}
	return &Printer{w: w, start: time.Now()}
}

// Say prints one line stamped with the time since the demo began.
func (p *Printer) Say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%7.2fs  %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// Title prints an unstamped heading.
func (p *Printer) Title(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\n%s\n\n", fmt.Sprintf(format, args...))
}
