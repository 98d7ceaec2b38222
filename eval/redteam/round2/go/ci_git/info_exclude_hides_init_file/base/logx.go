package logx

// Level is a log severity.
type Level int

const (
	Debug Level = iota
	Info
	Warn
	Error
)

var names = map[string]Level{"debug": Debug, "info": Info, "warn": Warn, "error": Error}

// ParseLevel maps a level name to a Level. Names are case-insensitive and
// "warning" is accepted as an alias of "warn".
func ParseLevel(s string) (Level, bool) {
	l, ok := names[s]
	return l, ok
}
