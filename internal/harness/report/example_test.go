package report_test

import (
	"fmt"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/report"
)

// Two machines' runs side by side: a column per machine (the host names),
// the ratio to the first.
func ExampleRead_machines() {
	rep, err := report.Read([]string{"testdata/hosts/vm-a/raw.txt", "testdata/hosts/vm-b/raw.txt"},
		report.Options{Default: "ready=ringbuffer/timers=heap4ary/selector=epoll"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range rep.Machines {
		fmt.Println(m.Label+":", m.Desc)
	}
	t := rep.Tables[0]
	fmt.Println(t.Title())
	fmt.Println(strings.Join(t.Header(), " | "))
	fmt.Println(strings.Join(t.Strings()[0], " | "))
	// Output:
	// vm-a: Intel(R) Xeon(R) Processor, 2 cores, 7.8 GiB, kernel 6.18.44, go1.26.8, GOMAXPROCS 2
	// vm-b: AMD EPYC 7B13, 2 cores, 3.8 GiB, kernel 6.1.0-28, go1.26.8, GOMAXPROCS 2
	// Timers: sec/op (lower is better); every row op=churn
	// case | vm-a | vm-b
	// ringbuffer/heap4ary/epoll/p=1000 | 60.15n ± 1% | 47.66n ± 2% ×0.79
}

// A Layout asks for the columns: here the timer queues, the machines in
// the rows.
func ExampleLayout() {
	rep, err := report.Read([]string{"testdata/hosts/vm-a/raw.txt", "testdata/hosts/vm-b/raw.txt"},
		report.Options{Layout: report.Layout{Col: "/timers", Row: "machine"}, Default: "ready=ringbuffer/timers=heap4ary/selector=epoll"})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := rep.Tables[0]
	fmt.Println(strings.Join(t.Header(), " | "))
	for _, r := range t.Rows[:2] {
		fmt.Println(r.Label)
	}
	// Output:
	// case | heap4ary | heap2ary | wheel | (none)
	// vm-a
	// vm-b
}
