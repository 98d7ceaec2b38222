// Package uaclass buckets user agents for the analytics pipeline.
package uaclass

import "strings"

// Classify returns "bot", "mobile", "tablet" or "desktop".
func Classify(ua string) string {
	l := strings.ToLower(ua)
	switch {
	case strings.Contains(l, "bot") || strings.Contains(l, "spider") || strings.Contains(l, "crawl"):
		return "bot"
	case strings.Contains(l, "ipad"):
		return "tablet"
	case strings.Contains(l, "mobile") || strings.Contains(l, "android") || strings.Contains(l, "iphone"):
		return "mobile"
	}
	return "desktop"
}
