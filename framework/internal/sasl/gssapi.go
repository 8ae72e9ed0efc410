package sasl

import (
	"encoding/binary"
	"fmt"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSSAPIName is the SASL name of GSSAPI (Kerberos V5).
const GSSAPIName = "GSSAPI"

// The security layers of RFC 4752 section 3.1; ZooKeeper authenticates
// only, so the client always chooses layerNone.
const (
	layerNone      = 1
	layerIntegrity = 2
	layerPrivacy   = 4
)

// tokIDAPReq is the token id of an AP-REQ inside the initial context
// token (RFC 1964 section 1.1).
var tokIDAPReq = []byte{0x01, 0x00}

// GSSAPI is the client side of GSSAPI (RFC 4752) over Kerberos V5: the
// initial context token carries an AP-REQ with a service ticket, and the
// security layer negotiation is answered with "no security layer". The
// server's negotiation token is checked with the ticket's session key, so
// Done means the server could read the ticket: it holds the service key.
type GSSAPI struct {
	ticket  messages.Ticket
	key     types.EncryptionKey // the ticket's session key
	cname   types.PrincipalName
	crealm  string
	authzid string // the client's principal, name@REALM

	seq   uint64 // the initiator's sequence number, from the authenticator
	state int    // 0 before Start, 1 awaiting the layer offer, 2 awaiting the outcome, 3 done
}

// NewGSSAPI returns a GSSAPI client presenting ticket, whose session key
// is key, as the principal cname@crealm.
func NewGSSAPI(ticket messages.Ticket, key types.EncryptionKey, cname types.PrincipalName, crealm string) *GSSAPI {
	return &GSSAPI{ticket: ticket, key: key, cname: cname, crealm: crealm,
		authzid: cname.PrincipalNameString() + "@" + crealm}
}

// Name returns "GSSAPI".
func (g *GSSAPI) Name() string { return GSSAPIName }

// Done reports whether the server's security layer offer was verified and
// the server accepted the answer.
func (g *GSSAPI) Done() bool { return g.state == 3 }

// Start returns the initial context token: the AP-REQ of the service
// ticket, with an authenticator whose checksum asks for no delegation and
// no mutual authentication (the server proves itself by its wrap token).
func (g *GSSAPI) Start() ([]byte, error) {
	if g.state != 0 {
		return nil, ErrSequence
	}
	auth, err := types.NewAuthenticator(g.crealm, g.cname)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI authenticator: %w", err)
	}
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(gssapi.ContextFlagInteg)}
	g.seq = uint64(auth.SeqNumber)
	req, err := messages.NewAPReq(g.ticket, g.key, auth)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI AP-REQ: %w", err)
	}
	body, err := req.Marshal()
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI AP-REQ: %w", err)
	}
	oid, err := asn1.Marshal(gssapi.OIDKRB5.OID())
	if err != nil {
		return nil, err
	}
	tok := append(append(oid, tokIDAPReq...), body...)
	g.state = 1
	return asn1tools.AddASNAppTag(tok, 0), nil
}

// Step reads the server's wrap token offering security layers (RFC 4752
// section 3.1), checks it with the session key, and returns a wrap token
// choosing no security layer, a maximum buffer of 0 and the client's
// principal as the authorization identity. An empty challenge before the
// offer (a server that sent nothing) is answered empty; the server's empty
// reply to the answer completes the exchange.
func (g *GSSAPI) Step(challenge []byte) ([]byte, error) {
	switch g.state {
	case 1:
	case 2:
		if len(challenge) != 0 {
			return nil, fmt.Errorf("%w: %d bytes after the security layer was chosen, want none", ErrChallenge, len(challenge))
		}
		g.state = 3
		return []byte{}, nil
	default:
		return nil, ErrSequence
	}
	if len(challenge) == 0 {
		return []byte{}, nil
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(unrotate(challenge), true); err != nil {
		return nil, fmt.Errorf("%w: GSSAPI wrap token: %v", ErrChallenge, err)
	}
	if wt.Flags&0x02 != 0 {
		return nil, fmt.Errorf("%w: a sealed GSSAPI wrap token; ZooKeeper's is integrity only", ErrChallenge)
	}
	if ok, _ := wt.Verify(g.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok { // its error shows checksums
		return nil, fmt.Errorf("%w: the GSSAPI wrap token's checksum does not match the session key", ErrServerProof)
	}
	if len(wt.Payload) != 4 {
		return nil, fmt.Errorf("%w: a security layer offer of %d bytes, want 4", ErrChallenge, len(wt.Payload))
	}
	if wt.Payload[0]&layerNone == 0 {
		return nil, fmt.Errorf("%w: the server offers security layers %#x, not %d (none)",
			ErrChallenge, wt.Payload[0]&(layerNone|layerIntegrity|layerPrivacy), layerNone)
	}
	payload := append([]byte{layerNone, 0, 0, 0}, g.authzid...)
	et, err := crypto.GetEtype(g.key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI session key: %w", err)
	}
	reply := gssapi.WrapToken{EC: uint16(et.GetHMACBitLength() / 8), SndSeqNum: g.seq, Payload: payload}
	if err := reply.SetCheckSum(g.key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI wrap token: %w", err)
	}
	out, err := reply.Marshal()
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI wrap token: %w", err)
	}
	g.state = 2
	return out, nil
}

// gssChecksum is the authenticator checksum of RFC 4121 section 4.1.1: no
// channel bindings, and the context flags.
func gssChecksum(flags uint32) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[:4], 16) // the length of the bindings hash
	binary.LittleEndian.PutUint32(b[20:24], flags)
	return b
}

// unrotate undoes the right rotation count of a wrap token (RFC 4121
// section 4.2.5), which gokrb5 does not read.
func unrotate(b []byte) []byte {
	if len(b) < gssapi.HdrLen {
		return b
	}
	rrc := int(binary.BigEndian.Uint16(b[6:8]))
	data := b[gssapi.HdrLen:]
	if rrc == 0 || len(data) == 0 {
		return b
	}
	rrc %= len(data)
	out := make([]byte, 0, len(b))
	out = append(out, b[:gssapi.HdrLen]...)
	binary.BigEndian.PutUint16(out[6:8], 0)
	out = append(out, data[rrc:]...)
	return append(out, data[:rrc]...)
}
