package zktest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"
)

// electionHello is the first message of a ZooKeeper election connection:
// protocol version, server id, then the caller's election addresses.
func electionHello(version, sid int64, addr string) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(version))
	b = binary.BigEndian.AppendUint64(b, uint64(sid))
	b = binary.BigEndian.AppendUint32(b, uint32(len(addr)))
	return append(b, addr...)
}

func TestElectionHelloNamesTheProxyBack(t *testing.T) {
	const v1, v2 = -65536, -65535
	for _, version := range []int64{v1, v2} {
		in := append(electionHello(version, 3, "127.0.0.1:4001|127.0.0.1:4002"), "rest"...)
		r := bufio.NewReader(bytes.NewReader(in))
		got, err := rewriteElectionHello(r, "127.0.0.1:5000")
		if err != nil {
			t.Fatal(err)
		}
		if want := electionHello(version, 3, "127.0.0.1:5000"); !bytes.Equal(got, want) {
			t.Errorf("version %d: rewritten hello %q, want %q", version, got, want)
		}
		if rest, _ := r.ReadString(0); rest != "rest" {
			t.Errorf("version %d: after the hello the stream reads %q, want %q", version, rest, "rest")
		}
	}

	// The old protocol's hello is the server id alone: passed as is.
	old := binary.BigEndian.AppendUint64(nil, 2)
	got, err := rewriteElectionHello(bufio.NewReader(bytes.NewReader(old)), "127.0.0.1:5000")
	if err != nil || !bytes.Equal(got, old) {
		t.Errorf("old-protocol hello rewritten to %q, %v; want it unchanged", got, err)
	}

	// An implausible address length is refused.
	bad := electionHello(v1, 1, "")
	binary.BigEndian.PutUint32(bad[16:], electionHelloMax+1)
	if _, err := rewriteElectionHello(bufio.NewReader(bytes.NewReader(bad)), "x"); err == nil {
		t.Error("a hello announcing a huge address was accepted")
	}
}
