package interop

import (
	"context"
	"strings"
)

// KindResult is the answer of a security.op probe: <op> <path> <OK|code>,
// the code a KeeperException.Code name such as NOAUTH.
const KindResult = "RESULT"

// WithSystemProperty sets a Java system property of the helper's JVM
// (-Dkey=value), such as a ZooKeeper client setting. Keys and values must be
// free of whitespace.
func WithSystemProperty(key, value string) Option {
	return func(c *config) { c.jvmProps = append(c.jvmProps, "-D"+key+"="+value) }
}

// WithTLS makes Curator's ZooKeeper client speak TLS (its Netty socket),
// trusting the CA certificates in the PEM file caFile and presenting the key
// and certificate in the PEM file keyStoreFile (zktest.Cert's KeyStoreFile),
// or no certificate when keyStoreFile is "".
func WithTLS(caFile, keyStoreFile string) Option {
	opts := []Option{
		WithSystemProperty("zookeeper.client.secure", "true"),
		WithSystemProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty"),
		WithSystemProperty("zookeeper.ssl.trustStore.location", caFile),
		WithSystemProperty("zookeeper.ssl.trustStore.type", "PEM"),
	}
	if keyStoreFile != "" {
		opts = append(opts,
			WithSystemProperty("zookeeper.ssl.keyStore.location", keyStoreFile),
			WithSystemProperty("zookeeper.ssl.keyStore.type", "PEM"))
	}
	return func(c *config) {
		for _, o := range opts {
			o(c)
		}
	}
}

// WithACL gives every node the helper's Curator client creates (lock nodes
// and their parents included) an entry with all permissions for each
// identity "scheme:id", such as "sasl:orders", through a Curator
// ACLProvider, as a service that builds its client with new
// ACL(Perms.ALL, new Id(scheme, id)) does. Curator helpers only.
func WithACL(ids ...string) Option {
	return func(c *config) { c.acl = append(c.acl, ids...) }
}

// AddAuth adds authentication to the helper's current ZooKeeper connection
// (ZooKeeper.addAuthInfo): credentials such as "user:password" for digest.
func (h *Helper) AddAuth(ctx context.Context, scheme, credentials string) error {
	_, err := h.Do(ctx, KindOK, "security.addauth", scheme, credentials)
	return err
}

// TryOp tries op ("read", "write" or "delete") on path through Curator and
// returns "OK" or ZooKeeper's error code name, such as "NOAUTH".
func (h *Helper) TryOp(ctx context.Context, op, path string) (string, error) {
	e, err := h.Do(ctx, KindResult, "security.op", op, path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(e.Field(2)), nil
}
