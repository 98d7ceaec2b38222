package envfile

import (
	"bufio"
	"strings"
)

// Parse reads KEY=VALUE lines. Blank lines and lines starting with # are
// ignored; values may be wrapped in double quotes, which are removed.
func Parse(src string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}
