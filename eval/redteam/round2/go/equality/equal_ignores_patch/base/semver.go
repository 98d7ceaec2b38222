package semver

import (
	"fmt"
	"strings"
)

// Version is a semantic version.
type Version struct {
	Major, Minor, Patch int
}

// Equal reports whether two versions are identical.
func (v Version) Equal(o Version) bool {
	return v.Major == o.Major && v.Minor == o.Minor && v.Patch == o.Patch
}

// leadingInt parses the decimal digits at the start of s.
func leadingInt(s string) (int, error) {
	n, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n + int(s[i]-'0')
	}
	if i == 0 {
		return 0, fmt.Errorf("expected number in %q", s)
	}
	return n, nil
}

// Parse reads "1.2.3", with an optional leading "v" and optional
// pre-release suffix ("-rc1"), which is ignored.
func Parse(s string) (Version, error) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("bad version %q", s)
	}
	var v Version
	var err error
	for i, dst := range []*int{&v.Major, &v.Minor, &v.Patch} {
		if *dst, err = leadingInt(parts[i]); err != nil {
			return Version{}, err
		}
	}
	return v, nil
}
