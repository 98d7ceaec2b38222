// Package geoip maps client addresses to countries for the rate limiter.
package geoip

import (
	"errors"
	"net"
	"strings"
)

// ErrUnknown is returned for addresses outside every known range.
var ErrUnknown = errors.New("geoip: address not in any known range")

type entry struct {
	cidr    string
	country string
}

var table = []entry{
	{"10.0.0.0/8", "ZZ"},
	{"81.2.69.0/24", "GB"},
	{"2.125.160.0/20", "GB"},
	{"175.16.199.0/24", "CN"},
	{"89.160.20.112/28", "SE"},
}

// lookup resolves an address against the table.
var lookup = prefixLookup

func prefixLookup(ip string) string {
	for _, e := range table {
		network := strings.SplitN(e.cidr, "/", 2)[0]
		prefix := strings.TrimRight(network, ".0")
		if strings.HasPrefix(ip, prefix) {
			return e.country
		}
	}
	return ""
}

// Country returns the ISO country code for ip.
func Country(ip string) (string, error) {
	if net.ParseIP(ip) == nil {
		return "", errors.New("geoip: not an IP address")
	}
	if c := lookup(ip); c != "" {
		return c, nil
	}
	return "", ErrUnknown
}
