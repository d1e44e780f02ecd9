// Package helm holds the connector's Helm chart (paysession-connector/) and
// its tests: helm lint and helm template with default and full values, every
// rendered manifest decoded strictly into the Kubernetes API types, and the
// chart's PAYSESSION_* variables checked against internal/config. The chart is
// the last step of the data path's deployment, not of the data path itself.
//
//go:generate go test -run TestChartCommandTopicsAreTheKinds -update .
package helm
