package sasl

import (
	"fmt"
	"strings"
)

// parseDirectives reads a DIGEST-MD5 challenge (RFC 2831 section 7.1's
// #rule list of name=value, values optionally quoted); a directive given
// twice keeps every value, in order.
func parseDirectives(s string) (map[string][]string, error) {
	out := make(map[string][]string)
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ',' || s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
		if i == len(s) {
			break
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w: directive without a value at byte %d", ErrChallenge, i)
		}
		name := strings.ToLower(strings.TrimSpace(s[i : i+eq]))
		i += eq + 1
		var val strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				i++
				if c == '\\' && i < len(s) {
					val.WriteByte(s[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("%w: unterminated quoted value of %q", ErrChallenge, name)
			}
		} else {
			end := strings.IndexByte(s[i:], ',')
			if end < 0 {
				end = len(s) - i
			}
			val.WriteString(strings.TrimSpace(s[i : i+end]))
			i += end
		}
		out[name] = append(out[name], val.String())
	}
	return out, nil
}

// quote renders v as a quoted-string.
func quote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(v) + `"`
}
