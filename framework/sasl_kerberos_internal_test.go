package framework

import (
	"context"
	"testing"
)

// TestSASLKerberosServerHost: the host of the server principal is the connect
// string's host name, lower case; an IP address is looked up, as the Java
// client's InetSocketAddress.getHostName does (127.0.0.1 is localhost by
// /etc/hosts).
func TestSASLKerberosServerHost(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:2181":       "localhost",
		"LocalHost:2181":       "localhost",
		"zk1.example.com:2181": "zk1.example.com",
		"zk2.example.com.:1":   "zk2.example.com",
	} {
		if got := serverHost(context.Background(), addr); got != want {
			t.Errorf("serverHost(%q) = %q; want %q", addr, got, want)
		}
	}
}
