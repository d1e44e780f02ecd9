// Package leakscan finds card data where it must never be: full card numbers
// (Luhn-valid runs of 12 to 19 digits, not masked as bin+asterisks+last4) and
// security codes in any bytes — Kafka record keys, values and headers,
// captured log output, error strings.
//
// It scans raw bytes as they sit on a topic or in a log, so it reads every
// form the data may take there: digit groups joined by any single separator
// ("4111.1111.1111.1111", "4111/1111/1111/1111", "4111_1111_1111_1111", a
// no-break space, an Avro length byte), JSON escapes at any level of
// escaping (`\u0034111…`, `\\u0034…`, `4111\/1111…`), given security codes
// standing alone as tokens, and any 3 or 4 digits after the name of a
// security code in any spelling ("cvv 737", `"Security_Code":"737"`).
//
// It is an oracle, and deliberately shares no code with the matcher that
// masks (internal/sensitive, used by the codec and the logging package): a
// bug in that matcher must not blind the check of its output. It is also
// wider than the masking — any group sizes, mixed separators, every
// overlapping span — so its findings include digit runs that are not card
// data (a Luhn-valid 12-digit reference number, a date with a time); tests
// therefore count only the values they sent (Finding.Is).
//
// It sits after the data path: its test (leak_test.go) runs the whole
// connector on the real broker with the sandbox's test cards and scans every
// outcome topic (command results, sessions, webhook events, dead letters) and
// everything the connector logged. The connector calls the sandbox through
// a proxy that refuses some calls echoing the request in its error, in
// every form (echo_test.go), as an API or a WAF in front of it may; some
// commands carry card data in their customer reference and metadata; a
// webhook signed with the service key carries it in its free text
// (webhook_test.go); one command is keyed by a card number, and the keys of
// its outcome records are checked to be no function of it (outcomes_test.go).
// A card payment the API refuses (503, echoing the request) past the batch
// deadline is parked: the retry topic is scanned too, as is the
// session-updates topic. Command topics are upstream's input and carry card
// data by contract; they are not scanned.
package leakscan
