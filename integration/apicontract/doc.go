// Package apicontract is the contract suite of the Payment Session Service
// API: client-level tests (internal/payapi) run over HTTP against the
// sandbox (internal/paysim). The two sides share only signing primitives and
// each has its own wire types, so a naming or shape mistake on either side
// fails here. Every test names the spec row or rule it covers.
package apicontract
