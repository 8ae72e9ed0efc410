package campaign

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// contenderPackage is the helper binary a PauseClientProcess fault runs.
const contenderPackage = "github.com/zkcurator/zkcurator/testing/campaign/internal/contender"

// contenders runs contenders (of a mutex, a TTL mutex, a write lock, an
// election or a counter) as OS processes of their own, one per PauseClientProcess fault,
// connected straight to the ensemble.
type contenders struct {
	bin     string // the built helper
	dir     string // holds bin; removed by close
	connect string
	paths   paths
	session time.Duration
	firstID int // the client id of fault #1's contender; ids below are workers
	history *recorder
	clock   clock
	kind    LockKind // what the helper contends for (contenders.mode)
}

// buildContenders compiles the helper with the go command that built this
// program.
func buildContenders(ctx context.Context, kind LockKind, connect string, p paths, session time.Duration, firstID int, h *recorder, clk clock) (*contenders, error) {
	dir, err := os.MkdirTemp("", "campaign-contender-")
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	bin := filepath.Join(dir, "contender")
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", bin, contenderPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("campaign: build %s: %w\n%s", contenderPackage, err, out)
	}
	return &contenders{bin: bin, dir: dir, connect: connect, paths: p, session: session, firstID: firstID, history: h, clock: clk, kind: kind}, nil
}

func (cs *contenders) close() {
	if cs != nil {
		os.RemoveAll(cs.dir)
	}
}

// proc is a running contender: its report lines, its standard input and
// standard error.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan line
	stderr lockedBuffer
	clock  clock
	ended  sync.Once
}

// lockedBuffer is a bytes.Buffer that the process's standard error is copied
// into while the campaign reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// contenderModes is the helper's -mode for each campaign that runs
// PauseClientProcess (LockKind.freezable).
var contenderModes = map[LockKind]string{
	MutexLock:        "mutex",
	TTLMutexLock:     "ttl",
	ReadWriteLock:    "rwlock",
	ElectionLatch:    "latch",
	ElectionSelector: "selector",
	Counter:          "long",
}

// acquireWait bounds how long the helper tries to take the lock or win a
// term.
func (cs *contenders) acquireWait() time.Duration { return 10 * cs.session }

// start runs the helper as client id.
func (cs *contenders) start(id int) (*proc, error) {
	p := &proc{lines: make(chan line, 64), clock: cs.clock}
	p.cmd = exec.Command(cs.bin, "-mode", contenderModes[cs.kind],
		"-connect", cs.connect, "-lock", cs.paths.lock, "-fence", cs.paths.fence, "-counter", cs.paths.counter,
		"-ack", cs.paths.acks+"/"+ackName(id, 0), "-long", cs.paths.long, "-ttl", lockTTL.String(),
		"-session", cs.session.String(), "-acquire", cs.acquireWait().String())
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = dieWithCampaign()
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("contender %d: %w", id, err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("contender %d: %w", id, err)
	}
	launched := cs.clock.now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("contender %d: %w", id, err)
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l := reportLine(sc.Text(), launched, cs.clock.now(), cs.clock); len(l.words) > 0 {
				p.lines <- l
			}
		}
	}()
	return p, nil
}

// end closes the contender's standard input, continues it if it is stopped
// and waits for it to exit, killing it after within. It ends the process
// once; later calls return at once.
func (p *proc) end(within time.Duration) { p.ended.Do(func() { p.stop(within) }) }

func (p *proc) stop(within time.Duration) {
	p.stdin.Close()
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a contender left stopped could not exit
	done := make(chan struct{})
	go func() {
		for range p.lines { // drain until the process closes its output
		}
		_ = p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(within):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// next returns the next report line, or false when none came within the
// bound, the output ended or ctx ended.
func (p *proc) next(ctx context.Context, within time.Duration) (line, bool) {
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(within):
		return line{}, false
	case <-ctx.Done():
		return line{}, false
	}
}

// pause stops the contender for hold and continues it, reporting when.
func (p *proc) pause(ctx context.Context, hold time.Duration) (frozenAt, thawedAt time.Duration, err error) {
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return never, never, fmt.Errorf("stop: %w", err)
	}
	frozenAt = p.clock.now()
	sleepCtx(ctx, hold)
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		return frozenAt, never, fmt.Errorf("continue: %w", err)
	}
	return frozenAt, p.clock.now(), nil
}

// freeze runs fault f with a contender process as client firstID+f.N-1:
// in the counter campaign it freezes an increment in flight
// (freezeIncrement), in the others a holder or leader (freezeHolder).
func (cs *contenders) freeze(ctx context.Context, f *Fault) error {
	id := cs.firstID + f.N - 1
	f.Client = id
	p, err := cs.start(id)
	if err != nil {
		return err
	}
	defer p.end(4 * cs.session)
	if cs.kind == Counter {
		return cs.freezeIncrement(ctx, f, p)
	}
	return cs.freezeHolder(ctx, f, p)
}

// freezeHolder: the contender takes the lock (or wins a term) and reads the
// fence and the counter; the process is stopped for f.Hold, continued, told
// to write with what it read, and released. Its hold is recorded with the
// freeze; a hold it took but reported no reads of is recorded unfrozen,
// without a write.
func (cs *contenders) freezeHolder(ctx context.Context, f *Fault, p *proc) error {
	id := f.Client
	rec := Hold{Client: id, Mode: Exclusive, Enter: never, Write: never, LostAt: never, FrozenAt: never, ThawedAt: never}
	ready, session, err := awaitHold(ctx, p, &rec, cs.acquireWait()+4*cs.session)
	if err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	switch {
	case !ready && rec.Enter == never:
		f.Note = "the contender held no lock: " + lastLine(p.stderr.String())
		return nil
	case !ready: // it holds until its process is gone
		p.end(4 * cs.session)
		rec.Exit, rec.Err = cs.clock.now(), "no report of its reads: "+lastLine(p.stderr.String())
		rec.LostAtExit = rec.LostAt != never
		cs.history.add(rec)
		f.Note = fmt.Sprintf("token %#x held, not frozen: %s", rec.Token, rec.Err)
		return nil
	}

	if rec.FrozenAt, rec.ThawedAt, err = p.pause(ctx, f.Hold); err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	if cs.kind == TTLMutexLock {
		session = min(session, lockTTL) // its lease runs out sooner
	}
	frozenPast(&rec, session)
	if _, err := io.WriteString(p.stdin, "WRITE\n"); err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	awaitWrote(ctx, p, &rec, 8*cs.session)
	if rec.Exit == never { // no report: it holds until its process is gone
		p.end(4 * cs.session)
		rec.Exit = cs.clock.now()
	}
	rec.LostAtWrite = rec.LostAt != never && rec.Write != never && rec.LostAt <= rec.Write
	rec.LostAtExit = rec.LostAt != never
	cs.history.add(rec)
	f.Note = fmt.Sprintf("token %#x frozen; its write %s", rec.Token, rec.Outcome)
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

var errNoContenders = errors.New("campaign: paused client processes need the mutex, TTL mutex, read/write, election or counter campaign")
