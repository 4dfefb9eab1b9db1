package servercost_test

import (
	"errors"
	"fmt"

	"github.com/loopbench/loopbench/internal/harness/servercost"
)

// The fixed rates of the server-side rows, from a closed-loop ceiling of
// 70,123 req/s; a ceiling too low to choose from is a LowCeilingError.
func ExampleRates() {
	rates, err := servercost.Rates(70123)
	fmt.Println(rates, err)
	_, err = servercost.Rates(5)
	var low *servercost.LowCeilingError
	fmt.Println(errors.As(err, &low), low.Ceiling)
	// Output:
	// [17000 35000] <nil>
	// true 5
}
