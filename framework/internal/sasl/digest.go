package sasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// DigestMD5Name is the SASL name of DIGEST-MD5.
const DigestMD5Name = "DIGEST-MD5"

// Digest is the client side of DIGEST-MD5 (RFC 2831) with quality of
// protection "auth": authentication only, no integrity or privacy layer.
// It checks the server's rspauth, so Done means the server knows the
// password too.
type Digest struct {
	user, password string
	service, host  string // the digest-uri is service "/" host
	realm          string // used when the challenge names none
	cnonce         func() (string, error)

	state   int    // 0 before Start, 1 awaiting the challenge, 2 awaiting rspauth, 3 done
	rspauth string // the rspauth the server must send
}

// NewDigest returns a DIGEST-MD5 client for user and password, whose
// digest-uri is service/host (ZooKeeper's is "zookeeper/zk-sasl-md5") and
// whose realm, when the server's challenge names none, is realm.
func NewDigest(user, password, service, host, realm string) *Digest {
	return &Digest{user: user, password: password, service: service, host: host, realm: realm, cnonce: newCnonce}
}

// Name returns "DIGEST-MD5".
func (d *Digest) Name() string { return DigestMD5Name }

// Start returns an empty initial response: in DIGEST-MD5 the server speaks
// first.
func (d *Digest) Start() ([]byte, error) {
	if d.state != 0 {
		return nil, ErrSequence
	}
	d.state = 1
	return []byte{}, nil
}

// Done reports whether the server's rspauth was checked.
func (d *Digest) Done() bool { return d.state == 3 }

// Step answers the server's digest-challenge with a digest-response, then
// checks the server's rspauth and returns an empty response.
func (d *Digest) Step(challenge []byte) ([]byte, error) {
	switch d.state {
	case 0, 1:
		d.state = 2
		return d.respond(challenge)
	case 2:
		dir, err := parseDirectives(string(challenge))
		if err != nil {
			return nil, err
		}
		got := first(dir, "rspauth")
		if subtle.ConstantTimeCompare([]byte(got), []byte(d.rspauth)) != 1 {
			return nil, ErrServerProof
		}
		d.state = 3
		return []byte{}, nil
	}
	return nil, ErrSequence
}

// respond computes the digest-response to a digest-challenge.
func (d *Digest) respond(challenge []byte) ([]byte, error) {
	dir, err := parseDirectives(string(challenge))
	if err != nil {
		return nil, err
	}
	nonce := first(dir, "nonce")
	if nonce == "" || len(dir["nonce"]) > 1 {
		return nil, fmt.Errorf("%w: want one nonce", ErrChallenge)
	}
	if alg := first(dir, "algorithm"); !strings.EqualFold(alg, "md5-sess") {
		return nil, fmt.Errorf("%w: algorithm %q, want md5-sess", ErrChallenge, alg)
	}
	if qops := dir["qop"]; len(qops) > 0 && !slices.ContainsFunc(strings.Split(strings.Join(qops, ","), ","),
		func(q string) bool { return strings.TrimSpace(q) == "auth" }) {
		return nil, fmt.Errorf("%w: the server offers no qop auth", ErrChallenge)
	}
	realm := first(dir, "realm")
	if realm == "" {
		realm = d.realm
	}
	utf8 := strings.EqualFold(first(dir, "charset"), "utf-8")
	cnonce, err := d.cnonce()
	if err != nil {
		return nil, err
	}
	uri := d.service + "/" + d.host
	const nc, qop = "00000001", "auth"

	// RFC 2831 section 2.1.2.1; with charset utf-8 the strings are sent
	// and hashed as UTF-8, which Go's strings already are.
	secret := md5.Sum([]byte(d.user + ":" + realm + ":" + d.password))
	a1 := string(secret[:]) + ":" + nonce + ":" + cnonce
	ha1 := hexMD5(a1)
	kd := func(a2 string) string {
		return hexMD5(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":" + qop + ":" + hexMD5(a2))
	}
	response := kd("AUTHENTICATE:" + uri)
	d.rspauth = kd(":" + uri)

	var b strings.Builder
	if utf8 {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,realm=%s,nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,response=%s,qop=%s",
		quote(d.user), quote(realm), quote(nonce), nc, quote(cnonce), quote(uri), response, qop)
	return []byte(b.String()), nil
}

func first(dir map[string][]string, name string) string {
	if v := dir[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func hexMD5(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// newCnonce returns 96 random bits, base64-encoded (RFC 2831 asks for at
// least 64).
func newCnonce() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(b[:]), nil
}
