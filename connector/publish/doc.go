// Package publish runs the connector's periodic publishers: the payout
// deposit balance (wallet/balance) to the wallet-balances topic, one record
// per wallet keyed by wallet id, and the Faster Payment System bank list
// (fps/banks) to the fps-banks topic under the fixed key "fps-banks", so
// payroll systems can check the deposit and the recipient banks before mass
// payouts. Both are off by default.
//
// Data path: timer → API call → outcome record (Avro) → Kafka (acks=all).
package publish
