// Package ini reads the daemon's INI-style configuration.
package ini

import (
	"fmt"
	"strings"
)

// Config maps section -> key -> value. Keys before any section header live
// in the "" section.
type Config map[string]map[string]string

// Parse parses src. Lines starting with ';' or '#' are comments, and so is
// anything after " ;" or " #" on a value line.
func Parse(src string) (Config, error) {
	out := Config{}
	section := ""
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("line %d: unterminated section header", i+1)
			}
			section = strings.TrimSpace(line[1 : len(line)-1])
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: expected key = value", i+1)
		}
		if out[section] == nil {
			out[section] = map[string]string{}
		}
		out[section][strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return out, nil
}
