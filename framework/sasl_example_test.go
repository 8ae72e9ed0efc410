package framework_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// A client that authenticates by SASL DIGEST-MD5 as alice and creates a
// node only she may use.
func ExampleWithSASL() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := framework.NewClient("127.0.0.1:2181", retry.NTimes{N: 3, Sleep: time.Second},
		framework.WithSASL(framework.SASLDigest("alice", os.Getenv("ZK_SASL_PASSWORD"))))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		fmt.Println(err)
		return
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		if errors.Is(err, framework.ErrSASLAuthFailed) {
			fmt.Println("the server refused alice")
		}
		return
	}
	_, err = c.Create(ctx, "/orders", nil,
		framework.WithACL(zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"}))
	fmt.Println(err)
}

// A client that authenticates by SASL Kerberos (GSSAPI) as orders, from
// its keytab, and creates a node only that principal may use.
func ExampleSASLKerberos() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := framework.NewClient("zk1.example.com:2181", retry.NTimes{N: 3, Sleep: time.Second},
		framework.WithSASL(framework.SASLKerberos("orders@EXAMPLE.COM",
			framework.SASLKeytab("/etc/orders/orders.keytab"),
			framework.SASLKrb5Config("/etc/krb5.conf"))))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		fmt.Println(err)
		return
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		switch {
		case errors.Is(err, framework.ErrKerberosKeytab):
			fmt.Println("the keytab holds no key of orders")
		case errors.Is(err, framework.ErrSASLAuthFailed):
			fmt.Println("orders was not authenticated:", err)
		}
		return
	}
	_, err = c.Create(ctx, "/orders", nil,
		framework.WithACL(zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: "orders@EXAMPLE.COM"}))
	fmt.Println(err)
}
