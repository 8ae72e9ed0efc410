package sasl

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// krb5OID is the DER of the Kerberos V5 mechanism's OID, 1.2.840.113554.1.2.2.
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

func testKey(t *testing.T) types.EncryptionKey {
	t.Helper()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return types.EncryptionKey{KeyType: etypeID.AES256_CTS_HMAC_SHA1_96, KeyValue: k}
}

func testGSSAPI(t *testing.T, key types.EncryptionKey) *GSSAPI {
	t.Helper()
	tkt := messages.Ticket{TktVNO: 5, Realm: "R.TEST",
		SName:   types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "zookeeper/localhost"),
		EncPart: types.EncryptedData{EType: etypeID.AES256_CTS_HMAC_SHA1_96, KVNO: 1, Cipher: []byte("opaque to the client")}}
	return NewGSSAPI(tkt, key, types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, "alice"), "R.TEST")
}

// offer is an acceptor's wrap token offering layers, checksummed with key.
func offer(t *testing.T, key types.EncryptionKey, layers byte) []byte {
	t.Helper()
	wt := gssapi.WrapToken{Flags: 0x01, EC: 12, SndSeqNum: 99, Payload: []byte{layers, 0x01, 0x00, 0x00}}
	if err := wt.SetCheckSum(key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGSSAPIExchange: the initial token is an RFC 2743 framed AP-REQ whose
// authenticator, under the session key, carries the GSSAPI checksum; the
// answer to the layer offer chooses "no security layer" with a zero buffer
// and the principal as authorization identity, checksummed as the
// initiator with the authenticator's sequence number; the server's empty
// reply completes the exchange.
func TestGSSAPIExchange(t *testing.T) {
	key := testKey(t)
	g := testGSSAPI(t, key)
	init, err := g.Start()
	if err != nil {
		t.Fatal(err)
	}
	if init[0] != 0x60 {
		t.Fatalf("initial token starts %#x; want 0x60 (the framing of RFC 2743 3.1)", init[0])
	}
	i := bytes.Index(init, append(append([]byte{}, krb5OID...), 0x01, 0x00))
	if i < 0 {
		t.Fatalf("initial token holds no Kerberos OID followed by the AP-REQ token id: %x", init)
	}
	var req messages.APReq
	if err := req.Unmarshal(init[i+len(krb5OID)+2:]); err != nil {
		t.Fatal(err)
	}
	plain, err := crypto.DecryptEncPart(req.EncryptedAuthenticator, key, keyusage.AP_REQ_AUTHENTICATOR)
	if err != nil {
		t.Fatal(err)
	}
	var auth types.Authenticator
	if err := auth.Unmarshal(plain); err != nil {
		t.Fatal(err)
	}
	if auth.Cksum.CksumType != chksumtype.GSSAPI || len(auth.Cksum.Checksum) != 24 ||
		binary.LittleEndian.Uint32(auth.Cksum.Checksum[20:])&uint32(gssapi.ContextFlagInteg) == 0 {
		t.Errorf("authenticator checksum = %+v; want the GSSAPI checksum with the integrity flag", auth.Cksum)
	}
	if auth.CName.PrincipalNameString() != "alice" || auth.CRealm != "R.TEST" {
		t.Errorf("authenticator names %s@%s; want alice@R.TEST", auth.CName.PrincipalNameString(), auth.CRealm)
	}

	if tok, err := g.Step(nil); err != nil || len(tok) != 0 || g.Done() {
		t.Fatalf("Step(empty) before the offer = %x, %v, done %v; want an empty answer, not done", tok, err, g.Done())
	}
	answer, err := g.Step(offer(t, key, layerNone|layerIntegrity|layerPrivacy))
	if err != nil {
		t.Fatal(err)
	}
	if g.Done() {
		t.Fatal("Done before the server accepted the answer")
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(answer, false); err != nil {
		t.Fatal(err)
	}
	if ok, err := wt.Verify(key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		t.Fatalf("answer's checksum: %v", err)
	}
	if want := append([]byte{layerNone, 0, 0, 0}, "alice@R.TEST"...); !bytes.Equal(wt.Payload, want) {
		t.Errorf("answer = %q; want %q", wt.Payload, want)
	}
	if wt.SndSeqNum != uint64(auth.SeqNumber) {
		t.Errorf("answer's sequence number %d; want the authenticator's %d", wt.SndSeqNum, auth.SeqNumber)
	}
	if tok, err := g.Step(nil); err != nil || len(tok) != 0 || !g.Done() {
		t.Fatalf("Step(empty) after the answer = %x, %v, done %v; want done", tok, err, g.Done())
	}
	if _, err := g.Step(nil); !errors.Is(err, ErrSequence) {
		t.Errorf("Step after done = %v; want ErrSequence", err)
	}
}

// TestGSSAPIRefusesBadOffers: an offer under another key is not the
// server's (ErrServerProof); one without "no security layer", or not a
// wrap token, is ErrChallenge; a rotated offer (RFC 4121 4.2.5) is read.
func TestGSSAPIRefusesBadOffers(t *testing.T) {
	key := testKey(t)
	for _, c := range []struct {
		name string
		tok  []byte
		want error
	}{
		{"OtherKey", offer(t, testKey(t), layerNone), ErrServerProof},
		{"NoLayerNone", offer(t, key, layerIntegrity|layerPrivacy), ErrChallenge},
		{"NotAWrapToken", []byte("not a token at all"), ErrChallenge},
	} {
		g := testGSSAPI(t, key)
		if _, err := g.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Step(c.tok); !errors.Is(err, c.want) {
			t.Errorf("%s: Step = %v; want %v", c.name, err, c.want)
		}
	}

	tok := offer(t, key, layerNone)
	data := tok[gssapi.HdrLen:]
	const rrc = 5
	rotated := append(append(append([]byte{}, tok[:gssapi.HdrLen]...), data[len(data)-rrc:]...), data[:len(data)-rrc]...)
	binary.BigEndian.PutUint16(rotated[6:8], rrc)
	g := testGSSAPI(t, key)
	if _, err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Step(rotated); err != nil {
		t.Errorf("Step(a rotated offer) = %v", err)
	}
}
