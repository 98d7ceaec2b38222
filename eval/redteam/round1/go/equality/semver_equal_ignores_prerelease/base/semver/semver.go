// Package semver parses semantic versions.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed semantic version. Pre is the dot-separated
// pre-release tag ("rc.1"), empty for releases.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

// Parse parses "1.2.3", "v1.2.3" and "1.2.3-rc.1".
func Parse(s string) (Version, error) {
	fields := strings.FieldsFunc(strings.TrimPrefix(s, "v"), func(r rune) bool {
		return r == '.' || r == '-'
	})
	if len(fields) < 3 {
		return Version{}, fmt.Errorf("semver: %q: want MAJOR.MINOR.PATCH", s)
	}
	var nums [3]int
	for i := 0; i < 3; i++ {
		n, err := strconv.Atoi(fields[i])
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("semver: %q: bad number %q", s, fields[i])
		}
		nums[i] = n
	}
	v := Version{Major: nums[0], Minor: nums[1], Patch: nums[2]}
	if len(fields) > 3 {
		v.Pre = fields[3]
	}
	return v, nil
}

// Equal reports whether v and o are the same version.
func (v Version) Equal(o Version) bool {
	return v == o
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}
