package codec

import (
	"errors"
	"strings"

	"github.com/twmb/avro"
)

// avroError splits an Avro decoding error into the dotted path of the
// record field where it happened ("instrument.bank_account.ru.bic", the
// Avro field names) and the rest of the message.
func avroError(err error) (field, reason string) {
	var se *avro.SemanticError
	if errors.As(err, &se) && se.Field != "" {
		reason = se.Error()
		if se.Err != nil {
			reason = se.Err.Error()
		}
		return se.Field, strings.TrimPrefix(reason, "avro: ")
	}
	return "", strings.TrimPrefix(err.Error(), "avro: ")
}
