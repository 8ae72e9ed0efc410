package queue_test

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// envelope is Curator's ItemSerializer output, written out by hand.
func envelope(items ...string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, int32(0x00010001))
	for _, it := range items {
		b.WriteByte(0x01)
		_ = binary.Write(&b, binary.BigEndian, int32(len(it)))
		b.WriteString(it)
	}
	b.WriteByte(0x02)
	return b.Bytes()
}

func TestFormatsMatchCurator(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	check := func(path, namePattern string, want []byte) {
		t.Helper()
		if !strings.HasPrefix(path, "/") {
			t.Fatalf("path %q", path)
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if !regexp.MustCompile("^" + namePattern + "$").MatchString(name) {
			t.Errorf("node %q does not match %q", name, namePattern)
		}
		data, stat, err := c.GetData(ctx, path)
		zktest.Must(t, err)
		if stat.EphemeralOwner != 0 {
			t.Errorf("%s is ephemeral, want PERSISTENT_SEQUENTIAL", path)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s data = %x, want %x", path, data, want)
		}
	}

	dq, err := queue.NewDistributedQueue(c, "/fmt/fifo", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, dq.Start(ctx))
	defer dq.Close()
	p, err := dq.Put(ctx, []byte("one"))
	zktest.Must(t, err)
	check(p, `queue-\d{10}`, envelope("one"))
	p, err = dq.PutMulti(ctx, [][]byte{[]byte("a"), {}, []byte("ccc")})
	zktest.Must(t, err)
	check(p, `queue-\d{10}`, envelope("a", "", "ccc"))

	iq, err := queue.NewDistributedIDQueue(c, "/fmt/id", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, iq.Start(ctx))
	defer iq.Close()
	p, err = iq.Put(ctx, "x", "job/7|b")
	zktest.Must(t, err)
	check(p, `queue-\|job_7_b\|\d{10}`, envelope(`"x"`))

	pq, err := queue.NewDistributedPriorityQueue(c, "/fmt/prio", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, pq.Start(ctx))
	defer pq.Close()
	for prio, pat := range map[int32]string{5: `queue-100000005\d{10}`, -1: `queue-0FFFFFFFF\d{10}`, 0: `queue-100000000\d{10}`} {
		p, err = pq.Put(ctx, []byte("p"), prio)
		zktest.Must(t, err)
		check(p, pat, envelope("p"))
	}

	yq, err := queue.NewDistributedDelayQueue(c, "/fmt/delay", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, yq.Start(ctx))
	defer yq.Close()
	until := time.UnixMilli(0x18C2A4B1F00)
	p, err = yq.Put(ctx, []byte("d"), until)
	zktest.Must(t, err)
	check(p, `queue-\|18C2A4B1F00\|\d{10}`, envelope("d"))

	sq, err := queue.NewSimpleDistributedQueue(c, "/fmt/simple")
	zktest.Must(t, err)
	p, err = sq.Offer(ctx, []byte("raw"))
	zktest.Must(t, err)
	check(p, `qn-\d{10}`, []byte("raw"))
}
