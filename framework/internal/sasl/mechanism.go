package sasl

import "errors"

// Mechanism is the client side of one SASL authentication exchange. The
// caller sends Start's initial response, then passes each server token to
// Step and sends what Step returns, until Done reports true.
type Mechanism interface {
	// Name is the mechanism's SASL name, such as "DIGEST-MD5".
	Name() string
	// Start returns the initial response; an empty one for a mechanism
	// whose server speaks first.
	Start() ([]byte, error)
	// Step returns the response to the server's token challenge.
	Step(challenge []byte) ([]byte, error)
	// Done reports whether the exchange is complete and the server proved
	// itself (where the mechanism lets it).
	Done() bool
}

var (
	// ErrChallenge reports a server token the mechanism cannot read or
	// accept.
	ErrChallenge = errors.New("sasl: malformed or unacceptable server challenge")
	// ErrServerProof reports a server whose proof of the shared secret is
	// wrong: it is not the server the credentials are shared with.
	ErrServerProof = errors.New("sasl: the server's proof of the credentials is wrong")
	// ErrSequence reports a step after the exchange completed.
	ErrSequence = errors.New("sasl: step after the exchange completed")
)
