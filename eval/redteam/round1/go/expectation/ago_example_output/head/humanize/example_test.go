package humanize_test

import (
	"fmt"
	"time"

	"example.com/feed/humanize"
)

func ExampleAgo() {
	fmt.Println(humanize.Ago(30 * time.Second))
	fmt.Println(humanize.Ago(time.Minute))
	fmt.Println(humanize.Ago(90 * time.Minute))
	fmt.Println(humanize.Ago(3 * time.Hour))
	fmt.Println(humanize.Ago(50 * time.Hour))
	// Output:
	// just now
	// a minute ago
	// a hour ago
	// 3 hours ago
	// 2 days ago
}
