package zktest

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// takePort holds a loopback port for the test and returns it.
func takePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// handOutTakenPort makes the next port pick put taken at index i, as if
// another process had grabbed that port after it was picked.
func handOutTakenPort(t *testing.T, taken, i int) {
	t.Helper()
	calls := 0
	pickPorts = func(n int) ([]int, error) {
		calls++
		p, err := freePorts(n)
		if err == nil && calls == 1 {
			p[i] = taken
		}
		return p, err
	}
	t.Cleanup(func() { pickPorts = freePorts })
}

func TestServerRetriesOnTakenPort(t *testing.T) {
	taken := takePort(t)
	handOutTakenPort(t, taken, 0)
	s := StartServer(t)
	if strings.HasSuffix(s.Addr(), ":"+strconv.Itoa(taken)) {
		t.Fatalf("server claims the taken port %d", taken)
	}
	if !strings.Contains(s.LogTail(1000), "Address already in use") {
		t.Error("the first start did not hit the taken port")
	}
}

func TestClusterRetriesOnTakenElectionPort(t *testing.T) {
	taken := takePort(t)
	handOutTakenPort(t, taken, 2) // member 0's election port
	c := StartCluster(t, 3)
	if got := c.Server(0).inst.ports.election; got == taken {
		t.Fatalf("member 0 claims the taken election port %d", taken)
	}
	if !strings.Contains(c.Server(0).LogTail(1000), "Address already in use") {
		t.Error("the first start did not hit the taken port")
	}
	if _, err := c.Leader(); err != nil {
		t.Fatal(err)
	}
}
