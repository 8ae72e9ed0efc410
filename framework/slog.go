package framework

import (
	"context"
	"log/slog"
	"slices"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// WithSlogLogger makes the client log to l, a log/slog logger, instead of a
// zap logger: the client and every recipe built on it keep logging through
// Logger (a *zap.Logger), whose entries are handed to l's handler with their
// level (zap's debug, info, warn and error; DPanic and above as error), message
// and fields as attributes. A nil l, like the default, logs nothing. The last
// of WithLogger and WithSlogLogger wins.
func WithSlogLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.logger = nil
			return
		}
		c.logger = zap.New(&slogCore{h: l.Handler()})
	}
}

// slogCore is a zapcore.Core that writes to a slog.Handler.
type slogCore struct{ h slog.Handler }

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func (c *slogCore) Enabled(l zapcore.Level) bool {
	return c.h.Enabled(context.Background(), slogLevel(l))
}

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{h: c.h.WithAttrs(slogAttrs(fields))}
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	r := slog.NewRecord(e.Time, slogLevel(e.Level), e.Message, 0)
	if e.LoggerName != "" {
		r.AddAttrs(slog.String("logger", e.LoggerName))
	}
	r.AddAttrs(slogAttrs(fields)...)
	return c.h.Handle(context.Background(), r)
}

func (c *slogCore) Sync() error { return nil }

// slogAttrs turns zap fields into slog attributes, by zap's own encoding of
// each (an error field becomes its message).
func slogAttrs(fields []zapcore.Field) []slog.Attr {
	if len(fields) == 0 {
		return nil
	}
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	attrs := make([]slog.Attr, 0, len(enc.Fields))
	for _, f := range fields { // in the fields' order; a key added twice once
		if v, ok := enc.Fields[f.Key]; ok {
			attrs = append(attrs, slog.Any(f.Key, v))
			delete(enc.Fields, f.Key)
		}
	}
	extra := make([]string, 0, len(enc.Fields)) // keys a field added beside its own (errorVerbose)
	for k := range enc.Fields {
		extra = append(extra, k)
	}
	slices.Sort(extra)
	for _, k := range extra {
		attrs = append(attrs, slog.Any(k, enc.Fields[k]))
	}
	return attrs
}
