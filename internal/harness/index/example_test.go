package index_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/harness/index"
)

func ExampleAnchor() {
	h, level := index.MarkdownHeading("## 5. Some `timers`, compared (p99)")
	fmt.Println(level, index.Anchor(h))
	// Output:
	// 2 5-some-timers-compared-p99
}
