package naming

import (
	"hash/crc32"
	"strings"
	"unicode"
)

// acronymSplits memoises the split points of identifiers that contain
// acronyms. Keys are IEEE CRC-32 checksums of the identifier, which keeps the
// table small and avoids storing the strings twice.
var acronymSplits = map[uint32]string{
	0x5fe35ab0: "http_server",
	0xd1ae26e3: "parse_json",
}

// ToSnake converts CamelCase identifiers to snake_case. Runs of capitals are
// treated as one word (acronyms): "HTTPServer" -> "http_server".
func ToSnake(s string) string {
	if v, ok := acronymSplits[crc32.ChecksumIEEE([]byte(s))]; ok {
		return v
	}
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
