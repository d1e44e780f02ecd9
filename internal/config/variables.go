package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Variable describes one environment variable of the connector.
type Variable struct {
	Name        string // full name, e.g. PAYSESSION_API_VERSION
	Default     string // "" when none
	Description string
	Secret      bool // its value is never printed (VAR and VAR_FILE both listed)
}

// Variables returns every environment variable Load reads, in declaration
// order; a secret appears twice, as VAR and VAR_FILE.
func Variables() []Variable {
	var out []Variable
	walk(reflect.ValueOf(&Config{}).Elem(), Prefix, func(name string, sf reflect.StructField, _ reflect.Value) {
		desc := sf.Tag.Get("desc")
		if sf.Type == secretType {
			out = append(out,
				Variable{Name: name, Description: desc, Secret: true},
				Variable{Name: name + "_FILE", Description: "path of a file holding " + name, Secret: true})
			return
		}
		out = append(out, Variable{Name: name, Default: tagDefault(sf), Description: desc})
	})
	return out
}

// Setting is one variable's effective value, as `connector config` prints it.
type Setting struct {
	Name   string
	Value  string // secrets: "[redacted]" when set
	Source string // "env", "default", or "file" for a secret read from VAR_FILE
}

// Settings returns the effective value of every variable; secret values are
// redacted, file paths are shown.
func (c *Config) Settings() []Setting {
	var out []Setting
	walk(reflect.ValueOf(c).Elem(), Prefix, func(name string, sf reflect.StructField, fv reflect.Value) {
		if sf.Type == secretType {
			s := fv.Interface().(Secret)
			src := c.source(name)
			if s.File() != "" {
				src = "file"
			}
			out = append(out,
				Setting{Name: name, Value: s.String(), Source: src},
				Setting{Name: name + "_FILE", Value: s.File(), Source: c.source(name + "_FILE")})
			return
		}
		out = append(out, Setting{Name: name, Value: format(fv), Source: c.source(name)})
	})
	return out
}

func (c *Config) source(name string) string {
	if c.set[name] {
		return "env"
	}
	return "default"
}

func format(v reflect.Value) string {
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	if v.Kind() == reflect.Slice {
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v.Interface())
}

// Redacted returns the effective configuration as NAME=value lines, secrets
// redacted, each line marked with where its value came from.
func (c *Config) Redacted() string {
	var b strings.Builder
	for _, s := range c.Settings() {
		fmt.Fprintf(&b, "%s=%s\t# %s\n", s.Name, s.Value, s.Source)
	}
	return b.String()
}

// VariablesTable is every variable as a Markdown table of name, default and
// meaning: this package's README.md and `connector config
// -describe`, so the documentation travels with the binary.
func VariablesTable() string {
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, v := range Variables() {
		def := v.Default
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, def, v.Description)
	}
	return b.String()
}
