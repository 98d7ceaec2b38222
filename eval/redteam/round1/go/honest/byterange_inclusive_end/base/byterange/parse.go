// Package byterange parses HTTP Range headers for the file server.
package byterange

import (
	"errors"
	"strconv"
	"strings"
)

// ErrUnsatisfiable means the range doesn't overlap the resource.
var ErrUnsatisfiable = errors.New("byterange: range not satisfiable")

// Parse parses a single "bytes=" range against a resource of size bytes and
// returns the offset and length to serve. Supported forms: "bytes=0-499",
// "bytes=500-" and "bytes=-500" (the last 500 bytes).
func Parse(header string, size int64) (start, length int64, err error) {
	spec := strings.TrimPrefix(header, "bytes=")
	if spec == header || strings.Contains(spec, ",") {
		return 0, 0, errors.New("byterange: unsupported range")
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return 0, 0, errors.New("byterange: malformed range")
	}
	if first == "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, errors.New("byterange: malformed suffix")
		}
		if n > size {
			n = size
		}
		return size - n, n, nil
	}
	start, err = strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, errors.New("byterange: malformed start")
	}
	if start >= size {
		return 0, 0, ErrUnsatisfiable
	}
	end := size - 1
	if last != "" {
		end, err = strconv.ParseInt(last, 10, 64)
		if err != nil || end < start {
			return 0, 0, errors.New("byterange: malformed end")
		}
		if end >= size {
			end = size - 1
		}
	}
	return start, end - start, nil
}
