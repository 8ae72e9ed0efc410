package queue

import "encoding/json"

// Serializer turns a queue's items into bytes and back, as Curator's
// QueueSerializer. A Java process on the same queue must use a serializer
// that reads and writes the same bytes.
type Serializer[T any] interface {
	Serialize(item T) ([]byte, error)
	Deserialize(data []byte) (T, error)
}

// Bytes returns the serializer of raw byte items: an item is its own bytes.
func Bytes() Serializer[[]byte] { return bytesSerializer{} }

type bytesSerializer struct{}

func (bytesSerializer) Serialize(item []byte) ([]byte, error) { return item, nil }

func (bytesSerializer) Deserialize(data []byte) ([]byte, error) {
	return append([]byte(nil), data...), nil
}

// JSON returns the serializer of items as encoding/json text.
func JSON[T any]() Serializer[T] { return jsonSerializer[T]{} }

type jsonSerializer[T any] struct{}

func (jsonSerializer[T]) Serialize(item T) ([]byte, error) { return json.Marshal(item) }

func (jsonSerializer[T]) Deserialize(data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}
