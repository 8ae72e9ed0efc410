package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// writeReport prints a table per recipe, in the order measured, then the
// machine's details.
func writeReport(ctx context.Context, w io.Writer, cfg config, rows []row) {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].b.recipe == rows[i].b.recipe {
			j++
		}
		writeTable(w, rows[i].b.recipe, rows[i:j], cfg.repeat)
		i = j
	}
	fmt.Fprintf(w, "Measured %s: %d CPUs, load average %s; %s; %s; ZooKeeper %s on 127.0.0.1; session timeout %v on both sides.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), loadAverage(), runtime.Version(),
		javaVersion(ctx), zooKeeperVersion(cfg.connect), cfg.sessionTimeout)
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// javaVersion is the first line java -version prints.
func javaVersion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "java", "-version").CombinedOutput()
	if err != nil {
		return "java (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// zooKeeperVersion asks the server with the srvr command.
func zooKeeperVersion(addr string) string {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "(version unknown)"
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "srvr"); err != nil {
		return "(version unknown)"
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Zookeeper version: "); ok {
			v, _, _ = strings.Cut(v, "-")
			return v
		}
	}
	return "(version unknown)"
}
