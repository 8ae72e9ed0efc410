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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// contenderPackage is the helper binary a PauseClientProcess fault runs.
const contenderPackage = "github.com/zkcurator/zkcurator/testing/campaign/internal/contender"

// contenders runs mutex contenders as OS processes of their own, one per
// PauseClientProcess fault, connected straight to the ensemble.
type contenders struct {
	bin     string // the built helper
	dir     string // holds bin; removed by close
	connect string
	paths   paths
	session time.Duration
	firstID int // the client id of fault #1's contender; ids below are workers
	history *recorder
	clock   clock
}

// buildContenders compiles the helper with the go command that built this
// program.
func buildContenders(ctx context.Context, connect string, p paths, session time.Duration, firstID int, h *recorder, clk clock) (*contenders, error) {
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
	return &contenders{bin: bin, dir: dir, connect: connect, paths: p, session: session, firstID: firstID, history: h, clock: clk}, nil
}

func (cs *contenders) close() {
	if cs != nil {
		os.RemoveAll(cs.dir)
	}
}

// line is one report line of a contender and when it was read.
type line struct {
	at    time.Duration
	words []string
}

// freeze runs fault f: a contender process (client firstID+f.N-1) takes the
// mutex and reads the fence and the counter; the process is stopped for
// f.Hold, continued, told to write with what it read, and released. Its
// hold is recorded with the freeze.
func (cs *contenders) freeze(ctx context.Context, f *Fault) error {
	id := cs.firstID + f.N - 1
	f.Client = id
	acquire := 10 * cs.session
	cmd := exec.Command(cs.bin,
		"-connect", cs.connect, "-lock", cs.paths.lock, "-fence", cs.paths.fence, "-counter", cs.paths.counter,
		"-ack", cs.paths.acks+"/"+ackName(id, 0), "-session", cs.session.String(), "-acquire", acquire.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	lines := make(chan line, 8)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if words := strings.Fields(sc.Text()); len(words) > 0 {
				lines <- line{at: cs.clock.now(), words: words}
			}
		}
	}()
	defer func() {
		stdin.Close()
		_ = cmd.Process.Signal(syscall.SIGCONT) // a contender left stopped could not exit
		done := make(chan struct{})
		go func() {
			for range lines { // drain until the process closes its output
			}
			_ = cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(4 * cs.session):
			_ = cmd.Process.Kill()
			<-done
		}
	}()

	rec := Hold{Client: id, Mode: Exclusive, Write: never, LostAt: never, Frozen: true, FrozenAt: never, ThawedAt: never}
	next := func(within time.Duration) (line, bool) {
		select {
		case l, ok := <-lines:
			return l, ok
		case <-time.After(within):
			return line{}, false
		case <-ctx.Done():
			return line{}, false
		}
	}
	for held := false; !held; {
		l, ok := next(acquire + 4*cs.session)
		if !ok {
			f.Note = "the contender held no lock: " + strings.TrimSpace(lastLine(stderr.String()))
			return nil
		}
		switch l.words[0] {
		case "LOST":
			rec.LostAt = l.at
		case "HOLD":
			if len(l.words) != 4 {
				return fmt.Errorf("contender %d: bad report %q", id, strings.Join(l.words, " "))
			}
			held, rec.Enter = true, l.at
			rec.Token, _ = strconv.ParseInt(l.words[1], 10, 64)
			rec.Fence, _ = strconv.ParseInt(l.words[2], 10, 64)
			rec.Counter, _ = strconv.ParseInt(l.words[3], 10, 64)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("contender %d: stop: %w", id, err)
	}
	rec.FrozenAt = cs.clock.now()
	sleepCtx(ctx, f.Hold)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("contender %d: continue: %w", id, err)
	}
	rec.ThawedAt = cs.clock.now()
	if _, err := io.WriteString(stdin, "WRITE\n"); err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	for reported := false; !reported; {
		l, ok := next(8 * cs.session)
		if !ok {
			rec.Exit, rec.Err = cs.clock.now(), "no report of the write: "+lastLine(stderr.String())
			break
		}
		switch l.words[0] {
		case "LOST":
			rec.LostAt = l.at
		case "WROTE":
			reported, rec.Write, rec.Exit = true, l.at, l.at
			rec.Outcome = outcomeNamed(strings.Join(l.words[1:2], ""))
			rec.Err = strings.Join(l.words[min(2, len(l.words)):], " ")
		}
	}
	rec.LostAtWrite = rec.LostAt != never && rec.Write != never && rec.LostAt <= rec.Write
	rec.LostAtExit = rec.LostAt != never
	cs.history.add(rec)
	f.Note = fmt.Sprintf("token %#x frozen; its write %s", rec.Token, rec.Outcome)
	return nil
}

// outcomeNamed is the Outcome whose String is name (Unknown for any other).
func outcomeNamed(name string) Outcome {
	for _, o := range []Outcome{Accepted, Stale, Conflict} {
		if o.String() == name {
			return o
		}
	}
	return Unknown
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

var errNoContenders = errors.New("campaign: paused client processes need the mutex campaign")
