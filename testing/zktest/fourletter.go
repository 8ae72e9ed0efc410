package zktest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// defaultFourLetterTimeout bounds a four-letter command whose context has no
// deadline.
const defaultFourLetterTimeout = 5 * time.Second

// fourLetter sends a four-letter command to addr and returns the whole reply.
func fourLetter(ctx context.Context, addr, cmd string) (string, error) {
	if len(cmd) != 4 || strings.Trim(cmd, "abcdefghijklmnopqrstuvwxyz") != "" {
		return "", fmt.Errorf("zktest: four-letter command %q: want four lowercase letters, such as \"srvr\"", cmd)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultFourLetterTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("zktest: %s %s: %w", cmd, addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fmt.Errorf("zktest: %s %s: %w", cmd, addr, err)
	}
	reply, err := io.ReadAll(conn)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("zktest: %s %s: %w", cmd, addr, err)
	}
	return string(reply), nil
}

// serverMode asks addr for its mode: "standalone", "leader", "follower" or
// "observer"; "" when the server answers but does not serve requests.
func serverMode(ctx context.Context, addr string) (string, error) {
	reply, err := fourLetter(ctx, addr, "srvr")
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(strings.NewReader(reply))
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return strings.TrimSpace(mode), nil
		}
	}
	return "", nil
}
