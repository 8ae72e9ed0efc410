package discovery_test

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type meta struct {
	Zone string `json:"zone"`
}

// serve starts a server with two clients on it: c, for the recipe under
// test, and admin, to look at the server.
func serve(t *testing.T) (srv *zktest.Server, c, admin *framework.Client) {
	t.Helper()
	srv = zktest.StartServer(t)
	return srv, zkclient.New(t, srv.ConnectString()), zkclient.New(t, srv.ConnectString())
}

// proxied starts a server with an admin client on it, and c, built with
// opts, on a proxy in front of it.
func proxied(t *testing.T, opts ...framework.Option) (admin *framework.Client, p *zktest.Proxy, c *framework.Client) {
	t.Helper()
	srv := zktest.StartServer(t)
	p = zktest.StartProxy(t, srv.ConnectString())
	return zkclient.New(t, srv.ConnectString()), p, zkclient.New(t, p.Addr(), opts...)
}

// started returns a started ServiceDiscovery closed with the test.
func started(t *testing.T, c *framework.Client, opts ...discovery.Option) *discovery.ServiceDiscovery[meta] {
	t.Helper()
	d, err := discovery.NewServiceDiscovery[meta](c, "/services", opts...)
	zktest.Must(t, err)
	zktest.Must(t, d.Start())
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

func instance(name, id string, port int) discovery.ServiceInstance[meta] {
	i := discovery.NewServiceInstance[meta](name, "127.0.0.1", port)
	i.ID = id
	i.Payload = &meta{Zone: "a"}
	return i
}

// fourLetter is the server's answer to a four-letter word.
func fourLetter(t *testing.T, addr, word string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	zktest.Must(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Write([]byte(word))
	zktest.Must(t, err)
	out, err := io.ReadAll(conn)
	zktest.Must(t, err)
	return string(out)
}

// watchedPaths are the paths under prefix the server holds watches on
// (four-letter word wchp).
func watchedPaths(t *testing.T, addr, prefix string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(fourLetter(t, addr, "wchp"), "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out
}
