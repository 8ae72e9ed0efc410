// Package security holds tests that try to get into what recipes protect:
// nodes created with creator-only ACLs (digest and x509 identities) are
// attacked by another identity, which must be refused with zk.ErrNoAuth
// while the holder keeps holding. It has no API.
package security
