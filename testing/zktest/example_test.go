package zktest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

func ExampleNewServer() {
	s, err := zktest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	reply, err := s.FourLetter(context.Background(), "ruok")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply)
	// Output: imok
}

// A test of code that must cope with a create whose outcome it never learns.
func ExampleProxy_LoseNextReply() {
	s, err := zktest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := zktest.NewProxy(s.Addr())
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	conn, _, err := zk.Connect([]string{p.Addr()}, 4*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	p.LoseNextReply(zktest.OpCreate)
	_, err = conn.Create("/job", nil, 0, zk.WorldACL(zk.PermAll))
	fmt.Println(err == zk.ErrConnectionClosed, p.LostReplies())
	// The server created /job all the same.
}
