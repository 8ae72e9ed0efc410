package zktest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: fixed at 100 per
// second by Linux's user-space interface, whatever the kernel's own tick.
const userHZ = 100

// ProcessCPUTime returns the CPU time, user and system, process pid has used
// (Linux only: it reads /proc/<pid>/stat).
func ProcessCPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("zktest: CPU time of process %d: %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	stat := string(b)
	end := strings.LastIndexByte(stat, ')')
	fields := strings.Fields(stat[end+1:])
	if end < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("zktest: CPU time of process %d: cannot read %q", pid, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("zktest: CPU time of process %d: field %q: %w", pid, f, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
