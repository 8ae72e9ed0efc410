package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// classProperty is the property Jackson's JsonTypeInfo(use = CLASS) writes
// the payload's Java class in.
const classProperty = "@class"

// MarshalJSON writes the instance as Curator's JsonInstanceSerializer does
// (json.Marshal would escape <, > and & in its result; use MarshalJSON):
// its fields in Curator's order, nulls where Curator writes nulls, no
// escaping of <, > and & (Jackson escapes none of them), and "enabled" only
// when Enabled is set.
func (i ServiceInstance[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	writeString(&b, i.Name)
	b.WriteString(`,"id":`)
	writeString(&b, i.ID)
	b.WriteString(`,"address":`)
	if i.Address == "" {
		b.WriteString("null")
	} else {
		writeString(&b, i.Address)
	}
	b.WriteString(`,"port":`)
	writeInt(&b, i.Port)
	b.WriteString(`,"sslPort":`)
	writeInt(&b, i.SSLPort)
	b.WriteString(`,"payload":`)
	payload, err := i.marshalPayload()
	if err != nil {
		return nil, err
	}
	b.Write(payload)
	fmt.Fprintf(&b, `,"registrationTimeUTC":%d,"serviceType":`, i.RegistrationTimeUTC)
	if i.ServiceType == "" {
		b.WriteString("null")
	} else {
		writeString(&b, string(i.ServiceType))
	}
	b.WriteString(`,"uriSpec":`)
	if u := i.uriSpec(); u == nil {
		b.WriteString("null")
	} else {
		b.WriteString(`{"parts":[`)
		for n, p := range u.Parts {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"value":`)
			writeString(&b, p.Value)
			fmt.Fprintf(&b, `,"variable":%t}`, p.Variable)
		}
		b.WriteString("]}")
	}
	if i.Enabled != nil {
		fmt.Fprintf(&b, `,"enabled":%t`, *i.Enabled)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalPayload writes the payload with its class as Jackson's CLASS type
// information: "@class" first in an object (unless the object has one), a
// [class, value] wrapper around anything else.
func (i ServiceInstance[T]) marshalPayload() ([]byte, error) {
	if i.Payload == nil {
		return []byte("null"), nil
	}
	v, err := marshal(*i.Payload)
	if err != nil {
		return nil, fmt.Errorf("discovery: payload of %s: %w", i.key(), err)
	}
	if i.PayloadClass == "" {
		return v, nil
	}
	var out bytes.Buffer
	if v[0] != '{' {
		out.WriteByte('[')
		writeString(&out, i.PayloadClass)
		out.WriteByte(',')
		out.Write(v)
		out.WriteByte(']')
		return out.Bytes(), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v, &fields); err != nil {
		return nil, fmt.Errorf("discovery: payload of %s: %w", i.key(), err)
	}
	if _, ok := fields[classProperty]; ok {
		return v, nil
	}
	out.WriteString(`{"@class":`)
	writeString(&out, i.PayloadClass)
	if len(fields) > 0 {
		out.WriteByte(',')
	}
	out.Write(v[1:])
	return out.Bytes(), nil
}

// wireInstance is the JSON as read: every field optional, unknown ones
// ignored (as Curator's reader does).
type wireInstance struct {
	Name                string          `json:"name"`
	ID                  string          `json:"id"`
	Address             *string         `json:"address"`
	Port                *int            `json:"port"`
	SSLPort             *int            `json:"sslPort"`
	Payload             json.RawMessage `json:"payload"`
	RegistrationTimeUTC int64           `json:"registrationTimeUTC"`
	ServiceType         *string         `json:"serviceType"`
	URISpec             *URISpec        `json:"uriSpec"`
	Enabled             *bool           `json:"enabled"`
}

// UnmarshalJSON reads an instance as Curator's reader does: unknown fields
// are ignored, a missing serviceType is Dynamic, a missing enabled is nil
// (enabled); the payload's "@class" (or Jackson's [class, value] wrapper)
// fills PayloadClass.
func (i *ServiceInstance[T]) UnmarshalJSON(data []byte) error {
	w := wireInstance{}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrBadInstance, err)
	}
	out := ServiceInstance[T]{
		Name: w.Name, ID: w.ID, Port: w.Port, SSLPort: w.SSLPort,
		RegistrationTimeUTC: w.RegistrationTimeUTC, URISpec: w.URISpec, Enabled: w.Enabled,
		ServiceType: Dynamic,
	}
	if w.Address != nil {
		out.Address = *w.Address
	}
	var present map[string]json.RawMessage
	_ = json.Unmarshal(data, &present) // it parsed above
	if _, ok := present["serviceType"]; ok {
		out.ServiceType = "" // present: null stays empty
		if w.ServiceType != nil {
			out.ServiceType = ServiceType(*w.ServiceType)
		}
	}
	if err := out.unmarshalPayload(w.Payload); err != nil {
		return err
	}
	*i = out
	return nil
}

func (i *ServiceInstance[T]) unmarshalPayload(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	switch raw[0] {
	case '{':
		var fields struct {
			Class string `json:"@class"`
		}
		if err := json.Unmarshal(raw, &fields); err == nil {
			i.PayloadClass = fields.Class
		}
	case '[':
		var wrapper []json.RawMessage
		if err := json.Unmarshal(raw, &wrapper); err == nil && len(wrapper) == 2 {
			var cls string
			if json.Unmarshal(wrapper[0], &cls) == nil && cls != "" {
				i.PayloadClass, raw = cls, wrapper[1]
			}
		}
	}
	p := new(T)
	if err := json.Unmarshal(raw, p); err != nil {
		return fmt.Errorf("%w: payload of %s/%s: %w", ErrBadInstance, i.Name, i.ID, err)
	}
	i.Payload = p
	return nil
}

// marshal is json.Marshal without HTML escaping, as Jackson writes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func writeString(b *bytes.Buffer, s string) {
	v, _ := marshal(s) // a string always marshals
	b.Write(v)
}

func writeInt(b *bytes.Buffer, p *int) {
	if p == nil {
		b.WriteString("null")
		return
	}
	fmt.Fprintf(b, "%d", *p)
}
