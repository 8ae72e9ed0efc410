package gozk

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestDbg(t *testing.T) {
	srv := sharedServer(t)
	var notes []Notification
	ch := make(chan Notification, 100)
	conn, g := gozkConn(t, srv.Addr(), Hooks{Notify: func(n Notification) { ch <- n }})
	other, _ := gozkConn(t, srv.Addr(), Hooks{})
	l := link(t, g)
	ctx := zktest.Context(t, testWait)
	other.Create("/dbg", nil, 0, zk.WorldACL(zk.PermAll))
	_, err := l.Do(ctx, OpAddWatch, PathRequest("/dbg", AddWatchPersistent))
	t.Logf("addWatch: %v", err)
	_, _, w, err := conn.GetW("/dbg")
	t.Logf("getW: %v", err)
	for i := range 3 {
		other.Set("/dbg", []byte{byte(i)}, -1)
	}
	ev := <-w
	t.Logf("one-shot: %v", ev)
	_, err = l.Do(ctx, OpRemoveWatches, PathRequest("/dbg", WatcherData))
	t.Logf("remove data: %v", err)
	other.Set("/dbg", []byte{9}, -1)
	other.Exists("/dbg")
	conn.Exists("/dbg")
	close(ch)
	for n := range ch {
		notes = append(notes, n)
	}
	t.Logf("notes %v", notes)
	other.Delete("/dbg", -1)
}
