package framework

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidatePath checks path as ZooKeeper's PathUtils.validatePath does for a
// non-sequential node: absolute, no empty, "." or ".." element, no trailing slash
// (except the root "/"), no NUL and none of the characters ZooKeeper rejects.
// The error matches ErrInvalidPath and names the path.
func ValidatePath(path string) error {
	return validatePath(path, false)
}

// validatePath is ValidatePath for a create of the given kind: a sequential create may
// end in "/" because the server appends the sequence number.
func validatePath(path string, sequential bool) error {
	if sequential {
		path += "1"
	}
	if reason := invalidPathReason(path); reason != "" {
		if sequential {
			path = path[:len(path)-1]
		}
		return fmt.Errorf("%w %q: %s", ErrInvalidPath, path, reason)
	}
	return nil
}

func invalidPathReason(path string) string {
	switch {
	case path == "":
		return "path must not be empty"
	case path[0] != '/':
		return "path must start with /"
	case len(path) == 1:
		return ""
	case path[len(path)-1] == '/':
		return "path must not end with /"
	case !utf8.ValidString(path):
		return "path is not valid UTF-8"
	}
	for i, elem := range strings.Split(path[1:], "/") {
		switch elem {
		case "":
			return fmt.Sprintf("empty node name (element %d)", i+1)
		case ".", "..":
			return fmt.Sprintf("relative paths not allowed (element %d is %q)", i+1, elem)
		}
		for _, r := range elem {
			if invalidPathRune(r) {
				return fmt.Sprintf("invalid character %U in element %d", r, i+1)
			}
		}
	}
	return ""
}

// invalidPathRune reports the characters ZooKeeper rejects. Java checks UTF-16 code
// units, so every character outside the Basic Multilingual Plane (a surrogate pair
// there) is rejected too.
func invalidPathRune(r rune) bool {
	switch {
	case r == 0:
		return true
	case r >= 0x01 && r <= 0x1F, r >= 0x7F && r <= 0x9F:
		return true
	case r >= 0xD800 && r <= 0xF8FF, r >= 0xFFF0:
		return true
	}
	return false
}

// JoinPath joins a parent path and a child name: "/a" + "b" is "/a/b" and "/" + "b" is "/b".
func JoinPath(parent, child string) string {
	child = strings.TrimPrefix(child, "/")
	if strings.HasSuffix(parent, "/") {
		return parent + child
	}
	return parent + "/" + child
}

// splitPath returns the parent path and the last element of a valid path.
func splitPath(path string) (parent, name string) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/", path[i+1:]
	}
	return path[:i], path[i+1:]
}

// validateNamespace checks a namespace as Curator does: empty (none), or a path
// without its leading slash, such as "app" or "app/prod".
func validateNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if strings.HasPrefix(ns, "/") {
		return invalidArg("namespace %q: a namespace has no leading slash (use %q)", ns, strings.TrimLeft(ns, "/"))
	}
	if reason := invalidPathReason("/" + ns); reason != "" {
		return invalidArg("namespace %q: %s", ns, reason)
	}
	return nil
}
