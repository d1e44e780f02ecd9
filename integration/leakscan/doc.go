// Package leakscan finds card data where it must never be: full card numbers
// (Luhn-valid runs of 12 to 19 digits, not masked as bin+asterisks+last4) and
// given security codes in any bytes — Kafka record keys, values and headers,
// captured log output, error strings.
//
// It sits after the data path: its test (leak_test.go) runs the whole
// connector on the real broker with the sandbox's test cards and scans every
// outcome topic (command results, sessions, webhook events, dead letters) and
// everything the connector logged. Command topics (and the retry topic, a
// copy of commands) are upstream's input and carry card data by contract;
// they are not scanned.
package leakscan
