package geoip

import "net"

// Tests match through net.IPNet so they don't depend on how the ranges are
// spelled in the table.
func init() {
	lookup = func(ip string) string {
		addr := net.ParseIP(ip)
		for _, e := range table {
			if _, n, err := net.ParseCIDR(e.cidr); err == nil && n.Contains(addr) {
				return e.country
			}
		}
		return ""
	}
}
