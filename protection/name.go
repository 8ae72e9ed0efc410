package protection

import (
	"strings"

	"github.com/google/uuid"
)

// Prefix starts every protected node name.
const Prefix = "_c_"

const (
	// idLen is the length of a UUID's canonical text.
	idLen = 36
	// separator ends the id.
	separator = '-'
	// protectedLen is the length of Prefix, id and separator together:
	// Curator's PROTECTED_PREFIX_WITH_UUID_LENGTH.
	protectedLen = len(Prefix) + idLen + 1
)

// NewID returns a fresh random id for a protected create: a version 4 UUID in
// its canonical lowercase form of 36 characters, as Curator's
// UUID.randomUUID().toString() produces.
func NewID() string {
	return uuid.New().String()
}

// Name returns the protected form of name: Prefix + id + "-" + name.
// It does not check id; use one from NewID.
func Name(id, name string) string {
	return Prefix + id + string(separator) + name
}

// IsProtected reports whether name is a protected name by Curator's rule
// (ProtectedUtils.isProtectedZNode): longer than 40 bytes, starting with
// Prefix, with '-' at index 39 and a UUID at indexes 3 to 38. The UUID must be
// in the canonical 8-4-4-4-12 form of hexadecimal digits in either case, which
// Java's UUID.fromString accepts; Curator itself writes lowercase. Some Java
// versions also accept spellings that no UUID generator writes (a '+' sign,
// other group lengths, non-ASCII digits); those are not protected here.
//
// Names from go-zookeeper's CreateProtectedEphemeralSequential ("_c_", 32 hex
// digits without dashes, "-", name) are not protected by this rule: Curator
// does not recognize them either.
func IsProtected(name string) bool {
	return len(name) > protectedLen &&
		strings.HasPrefix(name, Prefix) &&
		name[protectedLen-1] == separator &&
		isCanonicalUUID(name[len(Prefix):protectedLen-1])
}

// isCanonicalUUID reports whether s, which has idLen bytes, is a UUID's
// canonical text: hexadecimal digits of either case with dashes at indexes 8,
// 13, 18 and 23.
func isCanonicalUUID(s string) bool {
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ID returns the id inside a protected name, exactly as written, and true;
// it returns "" and false when name is not protected.
func ID(name string) (string, bool) {
	if !IsProtected(name) {
		return "", false
	}
	return name[len(Prefix) : protectedLen-1], true
}

// Strip returns name without its protection (the text after Prefix, id and
// '-'), or name unchanged when it is not protected.
func Strip(name string) string {
	if !IsProtected(name) {
		return name
	}
	return name[protectedLen:]
}

// Find returns the first of children that starts with Prefix + id + "-", the
// node a protected create with that id made, and true; or "" and false. Like
// Curator it compares bytes exactly, so the id's case matters.
func Find(children []string, id string) (string, bool) {
	prefix := Prefix + id + string(separator)
	for _, child := range children {
		if strings.HasPrefix(child, prefix) {
			return child, true
		}
	}
	return "", false
}
