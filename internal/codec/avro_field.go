package codec

import (
	"reflect"
	"strings"
)

// avroError splits a hamba/avro decoding error ("Instrument: BankAccount:
// RU: BIC: unexpected EOF", Go field names) into the Avro field path of v's
// type ("instrument.bank_account.ru.bic") and the rest of the message.
func avroError(v any, msg string) (field, reason string) {
	typ := reflect.TypeOf(v)
	parts := strings.Split(msg, ": ")
	var path []string
	i := 0
	for ; i < len(parts)-1; i++ {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct {
			break
		}
		f, ok := typ.FieldByName(parts[i])
		if !ok {
			break
		}
		name, _, _ := strings.Cut(f.Tag.Get("avro"), ",")
		if name == "" {
			break
		}
		path = append(path, name)
		typ = f.Type
	}
	return strings.Join(path, "."), strings.Join(parts[i:], ": ")
}
