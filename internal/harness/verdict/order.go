package verdict

import (
	"cmp"
	"slices"
	"strings"
)

// SortPairs orders the pairs as compare and gate print them, whatever
// order the files hold them in (run and gate shuffle every round): by
// configuration group as the files first give them, then by unit as they
// first appear (sec/op before the metrics, as go test writes them), then
// by name in natural order (NameCompare).
func SortPairs(m *Matched) {
	var units []string
	for _, p := range m.Pairs {
		if !slices.Contains(units, p.Unit) {
			units = append(units, p.Unit)
		}
	}
	slices.SortStableFunc(m.Pairs, func(a, b Pair) int {
		return cmp.Or(
			cmp.Compare(slices.Index(m.Groups, a.Group), slices.Index(m.Groups, b.Group)),
			cmp.Compare(slices.Index(units, a.Unit), slices.Index(units, b.Unit)),
			NameCompare(a.Name, b.Name))
	})
	slices.SortStableFunc(m.BaseOnly, NameCompare)
	slices.SortStableFunc(m.HeadOnly, NameCompare)
}

// NameCompare orders benchmark names naturally: segment by segment (the
// name's "/" parts), and within a segment, such as "n=1000" or "batch=9",
// runs of digits by their value, so batch=9 comes before batch=10 and
// p=1000 before p=100000; other characters compare as bytes. A name that
// is a prefix of another, segment-wise, comes first.
func NameCompare(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(as), len(bs)) {
		if c := naturalCompare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// naturalCompare compares a and b with runs of digits read as numbers (a
// shorter run of equal value, "07" against "7", first).
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb), cmp.Compare(da, db)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of s's leading run of ASCII digits.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
