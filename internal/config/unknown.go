package config

import (
	"fmt"
	"slices"
	"strings"
)

// Unknown returns one error per name of names (environment variable names)
// that starts with Prefix but is not a variable Load reads: a misspelt
// variable is otherwise silently ignored and its default applies. Each
// error names the nearest variable when one is close ("did you mean").
func Unknown(names []string) []error {
	known := map[string]bool{}
	var all []string
	for _, v := range Variables() {
		known[v.Name] = true
		all = append(all, v.Name)
	}
	var errs []error
	for _, n := range names {
		if !strings.HasPrefix(n, Prefix) || known[n] {
			continue
		}
		if near := nearest(n, all); near != "" {
			errs = append(errs, fmt.Errorf("%s: not a variable of the connector (did you mean %s?)", n, near))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: not a variable of the connector", n))
	}
	return errs
}

// UnknownIn is Unknown of the names of environ, NAME=VALUE pairs as
// os.Environ returns them.
func UnknownIn(environ []string) []error {
	names := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	return Unknown(names)
}

// nearest is the name of names closest to n by edit distance, when it is
// within a third of n's length past the prefix; "" when none is.
func nearest(n string, names []string) string {
	best, bestD := "", len(strings.TrimPrefix(n, Prefix))/3+1
	for _, c := range slices.Sorted(slices.Values(names)) {
		if d := editDistance(n, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
