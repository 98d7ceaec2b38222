package money

import "fmt"

func ExampleFormat() {
	fmt.Println(Format(100000000))
	fmt.Println(Format(-5))
	// Output:
	// $1,000,000.00
	// -$0.05
}
