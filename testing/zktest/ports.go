package zktest

import (
	"fmt"
	"net"
)

// pickPorts chooses the ports of a new server or cluster; tests replace it
// to hand out a taken port.
var pickPorts = freePorts

// freePorts returns n distinct loopback ports that were free a moment ago.
// Another process may take one before ZooKeeper binds it; starts are retried
// on new ports when that happens.
func freePorts(n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, ln := range listeners {
			ln.Close()
		}
	}()
	out := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("zktest: find a free port: %w", err)
		}
		listeners = append(listeners, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}
