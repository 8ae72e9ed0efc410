package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// watchLine is one line 'watch' prints: an event, or a reset of the watch
// on the watched path.
type watchLine struct {
	Type string `json:"type"`
	Path string `json:"path"`
	// Data is the node's data when it is UTF-8; DataBase64 otherwise. Both
	// are absent without --data, for an event that carries none, and when
	// the node was gone or could not be read.
	Data       *string `json:"data,omitempty"`
	DataBase64 []byte  `json:"dataBase64,omitempty"`
}

// setData puts data in the line: as a string when it is UTF-8.
func (l *watchLine) setData(data []byte) {
	if utf8.Valid(data) {
		s := string(data)
		l.Data = &s
		return
	}
	l.DataBase64 = data
}

// dataReader reads a node's data; a *framework.Client is one.
type dataReader interface {
	GetData(ctx context.Context, path string) ([]byte, *zk.Stat, error)
}

// watchPrinter prints the events of a watch on root as JSON lines.
type watchPrinter struct {
	out  io.Writer
	warn io.Writer // where a failed read of a node's data is reported
	root string
	read dataReader // nil: no data (no --data)
}

// print writes ev's line in one write. A failed read of the data is
// warned of and the line printed without it; ctx's end during the read
// ends print with ctx's error and no line.
func (p *watchPrinter) print(ctx context.Context, ev framework.WatchEvent) error {
	line := watchLine{Type: eventName(ev.Type), Path: ev.Path}
	if ev.Reset {
		line = watchLine{Type: "Reset", Path: p.root}
	}
	if p.read != nil && !ev.Reset && (ev.Type == zk.EventNodeCreated || ev.Type == zk.EventNodeDataChanged) {
		data, _, err := p.read.GetData(ctx, ev.Path)
		switch {
		case err == nil:
			line.setData(data)
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, zk.ErrNoNode): // gone by now: no data
		default:
			fmt.Fprintf(p.warn, "zkcurator: warning: watch: no data for the %s of %s: %s\n", line.Type, ev.Path, readFailure(err))
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line); err != nil {
		return err
	}
	_, err := p.out.Write(b.Bytes())
	return err
}

// readFailure says why a read failed, on one line.
func readFailure(err error) string {
	if refused(err) {
		return "ZooKeeper refused the read (not authenticated or not permitted by the node's ACL; " + aclHint + ")"
	}
	return oneLine(err.Error())
}

// eventName is the Java client's name of an event type, as 'watch' prints
// it: NodeCreated, NodeDeleted, NodeDataChanged, NodeChildrenChanged.
func eventName(t zk.EventType) string {
	switch t {
	case zk.EventNodeCreated:
		return "NodeCreated"
	case zk.EventNodeDeleted:
		return "NodeDeleted"
	case zk.EventNodeDataChanged:
		return "NodeDataChanged"
	case zk.EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	}
	return fmt.Sprintf("EventType(%d)", int32(t))
}
