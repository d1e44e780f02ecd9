package config

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
)

type lookuper = envconfig.Lookuper

// Load reads the configuration from l (envconfig.OsLookuper() when nil) and
// validates it. The error joins one message per bad variable, each starting
// with the variable's name, so every problem is reported at once.
//
// envconfig stops at the first field it cannot decode, so Load decodes each
// tagged field on its own (same tags, same decoding) and collects the errors.
// An empty variable counts as unset, so its default applies.
func Load(ctx context.Context, l envconfig.Lookuper) (*Config, error) {
	if l == nil {
		l = envconfig.OsLookuper()
	}
	l = nonEmpty{l}
	c := &Config{set: map[string]bool{}}
	var errs []error
	failed := map[string]bool{}
	walk(reflect.ValueOf(c).Elem(), Prefix, func(name string, sf reflect.StructField, fv reflect.Value) {
		if err := decodeField(ctx, name, sf, fv, l); err != nil {
			errs = append(errs, err)
			failed[name] = true
		}
		for _, n := range []string{name, name + "_FILE"} {
			if _, ok := l.Lookup(n); ok {
				c.set[n] = true
			}
		}
	})
	// Semantic checks skip the variables that did not decode.
	errs = append(errs, c.validate(failed)...)
	if err := errors.Join(dedupe(errs)...); err != nil {
		return nil, err
	}
	return c, nil
}

// nonEmpty treats a variable set to "" as unset (Helm and ConfigMaps often
// render empty strings for optional values).
type nonEmpty struct{ l lookuper }

func (n nonEmpty) Lookup(key string) (string, bool) {
	v, ok := n.l.Lookup(key)
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}

var secretType = reflect.TypeFor[Secret]()

// walk calls fn for every leaf field of the struct v that names an
// environment variable, with the variable's full name.
func walk(v reflect.Value, prefix string, fn func(name string, sf reflect.StructField, fv reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("env")
		if !ok || !sf.IsExported() {
			continue
		}
		if sf.Type == commandTopicsType {
			walkCommandTopics(v.Field(i), prefix, fn)
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		if sf.Type.Kind() == reflect.Struct && sf.Type != secretType {
			p := strings.TrimPrefix(strings.TrimSpace(opts), "prefix=")
			walk(v.Field(i), prefix+p, fn)
			continue
		}
		fn(prefix+strings.TrimSpace(key), sf, v.Field(i))
	}
}

// tagDefault returns the default= option of an env tag.
func tagDefault(sf reflect.StructField) string {
	_, opts, _ := strings.Cut(sf.Tag.Get("env"), ",")
	_, def, ok := strings.Cut(opts, "default=")
	if !ok {
		return ""
	}
	return def
}

// decodeField decodes the single field fv from variable name with envconfig,
// through a one-field struct carrying the field's own tag options.
func decodeField(ctx context.Context, name string, sf reflect.StructField, fv reflect.Value, l lookuper) error {
	if sf.Type == secretType {
		s, err := loadSecret(name, l)
		if err == nil {
			fv.Set(reflect.ValueOf(s))
		}
		return err
	}
	_, opts, _ := strings.Cut(sf.Tag.Get("env"), ",")
	tag := name
	if opts != "" {
		tag += "," + opts
	}
	one := reflect.StructOf([]reflect.StructField{{
		Name: "V", Type: sf.Type, Tag: reflect.StructTag("env:" + strconv.Quote(tag)),
	}})
	target := reflect.New(one)
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: target.Interface(), Lookuper: l}); err != nil {
		raw, _ := l.Lookup(name)
		return fmt.Errorf("%s: %s", name, decodeProblem(sf.Type, raw, err))
	}
	fv.Set(target.Elem().Field(0))
	return nil
}

// decodeProblem words a decoding failure for an operator.
func decodeProblem(t reflect.Type, raw string, err error) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return fmt.Sprintf("must be a duration such as 500ms, 30s or 5m, got %q", raw)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return fmt.Sprintf("must be an integer, got %q", raw)
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return fmt.Sprintf("must be a number, got %q", raw)
	case t.Kind() == reflect.Bool:
		return fmt.Sprintf("must be true or false, got %q", raw)
	}
	return err.Error()
}

// dedupe drops repeated messages (a variable is reported once per problem).
func dedupe(errs []error) []error {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}
