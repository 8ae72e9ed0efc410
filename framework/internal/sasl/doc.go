// Package sasl holds the client side of the SASL mechanisms ZooKeeper
// accepts, each a Mechanism that turns the server's challenges into the
// client's responses: DIGEST-MD5 (RFC 2831) now, GSSAPI (Kerberos) behind
// the same interface later. It knows nothing of ZooKeeper's wire: the
// framework carries the tokens in ZooKeeper's sasl requests.
package sasl
