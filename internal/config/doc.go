// Package config reads the connector's whole configuration from PAYSESSION_*
// environment variables. It sits at the very start of the data path: cmd/connector
// calls Load once, then hands the typed sections to the wiring that builds the
// clients (the Kafka options in internal/kafka; the registry client, the keys
// and the logger in package connector), the pipeline, the webhook ingress, the
// reconciler and the publishers. config describes and validates; it builds no
// client and loads no key. A missing or invalid value is reported together with
// every other one, each naming its environment variable, so an operator fixes
// them in one go.
//
// Secrets (SASL and registry passwords) come from VAR or VAR_FILE, never both,
// and are held in a Secret that never prints its value. A file holding a
// private key, a password or a token that other users may open is refused,
// as is Kafka without TLS to a broker that is not loopback, unless an
// INSECURE variable accepts the risk; errors show URLs without userinfo.
//
//go:generate go test -run VariablesDoc|READMEConfigurationTable -update .
package config
