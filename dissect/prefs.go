package dissect

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Pref is a protocol preference a dissector reads from Options.Config
// (tshark's -o NAME:VALUE). Registered at init, so -o can refuse a name
// nobody reads or a value the dissector would not understand.
type Pref struct {
	Name   string   // "mpa.crc"
	Desc   string   // one line for `rdx read -o help`
	Values []string // the accepted values
}

var prefs struct {
	sync.Mutex
	list []Pref
}

// RegisterPref makes a preference known (call from init).
func RegisterPref(p Pref) {
	prefs.Lock()
	defer prefs.Unlock()
	prefs.list = append(prefs.list, p)
}

// Prefs lists the known preferences by name.
func Prefs() []Pref {
	prefs.Lock()
	defer prefs.Unlock()
	l := slices.Clone(prefs.list)
	slices.SortFunc(l, func(a, b Pref) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// CheckPref says what is wrong with a preference name and value: a name no dissector reads
// or a value it does not take.
func CheckPref(name, value string) error {
	for _, p := range Prefs() {
		if p.Name == name {
			if slices.Contains(p.Values, value) {
				return nil
			}
			return fmt.Errorf("%s takes %s, not %q", name, strings.Join(p.Values, ", "), value)
		}
	}
	var names []string
	for _, p := range Prefs() {
		names = append(names, p.Name)
	}
	return fmt.Errorf("unknown preference %q (known: %s; rdx read -o help describes them)", name, strings.Join(names, ", "))
}
