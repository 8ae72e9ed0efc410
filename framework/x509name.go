package framework

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"unicode/utf16"
)

// X509Subject returns cert's subject as ZooKeeper's x509 scheme names a
// client: the string Java's X500Principal.getName() (RFC 2253) makes of the
// certificate's raw subject, such as "CN=orders,OU=payments,DC=example,DC=com",
// for X509ACLProvider. A subject that does not parse is rendered by Go's
// pkix.Name.String.
func X509Subject(cert *x509.Certificate) string {
	name, err := rfc2253(cert.RawSubject)
	if err != nil {
		return cert.Subject.String()
	}
	return name
}

// rfc2253Keywords are the attribute types Java writes by keyword in RFC 2253
// form; every other type is written as its dotted OID with the value's DER in
// hex.
var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// rfc2253 renders a DER Name as Java's X500Principal.getName() does: the
// RDNs in reverse order joined by ",", the values of a multi-valued RDN in
// their encoded order joined by "+".
func rfc2253(der []byte) (string, error) {
	var rdns []asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &rdns); err != nil {
		return "", err
	} else if len(rest) > 0 {
		return "", errors.New("trailing data after the name")
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		var atvs []attributeTypeAndValue
		if _, err := asn1.UnmarshalWithParams(rdns[i].FullBytes, &atvs, "set"); err != nil {
			return "", err
		}
		avas := make([]string, len(atvs))
		for j, atv := range atvs {
			avas[j] = renderAVA(atv)
		}
		parts = append(parts, strings.Join(avas, "+"))
	}
	return strings.Join(parts, ","), nil
}

// renderAVA writes one attribute as Java's AVA.toRFC2253String does.
func renderAVA(atv attributeTypeAndValue) string {
	oid := atv.Type.String()
	keyword, known := rfc2253Keywords[oid]
	if !known {
		keyword = oid
	}
	value, isString := derString(atv.Value)
	if !known || !isString {
		return keyword + "=#" + hex.EncodeToString(atv.Value.FullBytes)
	}
	return keyword + "=" + escapeRFC2253(value)
}

// derString returns the value of the string types Java renders as text,
// decoded by the type's own encoding, as recent JDKs do (JDK 17 and older
// read every one of them as UTF-8, which differs only for BMPString and
// UniversalString values and non-ASCII T61String ones).
func derString(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String:
		var b strings.Builder
		for _, r := range string(v.Bytes) { // an invalid byte is U+FFFD
			b.WriteRune(r)
		}
		return b.String(), true
	case asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, tagGeneralString:
		r := make([]rune, len(v.Bytes))
		for i, c := range v.Bytes {
			r[i] = rune(c)
		}
		return string(r), true
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false
		}
		u := make([]uint16, len(v.Bytes)/2)
		for i := range u {
			u[i] = binary.BigEndian.Uint16(v.Bytes[2*i:])
		}
		return string(utf16.Decode(u)), true
	case tagUniversalString:
		if len(v.Bytes)%4 != 0 {
			return "", false
		}
		var b strings.Builder
		for i := 0; i < len(v.Bytes); i += 4 {
			b.WriteRune(rune(binary.BigEndian.Uint32(v.Bytes[i:])))
		}
		return b.String(), true
	}
	return "", false
}

// ASN.1 string tags encoding/asn1 does not name.
const (
	tagGeneralString   = 27
	tagUniversalString = 28
)

// rfc2253Escapees are the characters Java escapes with a backslash wherever
// they are in a value.
const rfc2253Escapees = ",=+<>#;\"\\"

// escapeRFC2253 escapes a value as Java's AVA.toRFC2253String does: the
// escapees anywhere, NUL as \00, and spaces (and carriage returns) that lead
// or trail the value.
func escapeRFC2253(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case strings.ContainsRune(rfc2253Escapees, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == 0:
			b.WriteString(`\00`)
		default:
			b.WriteRune(r)
		}
	}
	out := []rune(b.String())
	lead := 0
	for lead < len(out) && (out[lead] == ' ' || out[lead] == '\r') {
		lead++
	}
	trail := len(out) - 1
	for trail >= 0 && (out[trail] == ' ' || out[trail] == '\r') {
		trail--
	}
	var res strings.Builder
	for i, r := range out {
		if i < lead || i > trail {
			res.WriteByte('\\')
		}
		res.WriteRune(r)
	}
	return res.String()
}
