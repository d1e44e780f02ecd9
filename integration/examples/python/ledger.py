#!/usr/bin/env python3
"""Example Python producer and consumer of the paysession connector's topics.

Uses confluent-kafka (librdkafka) and fastavro only, with the .avsc files of schemas/.

  produce: writes init_payout commands in Avro single-object encoding (0xC3 0x01, the 8-byte
           CRC-64-AVRO fingerprint of the schema's canonical form, little-endian, the Avro body),
           keyed by their idempotency keys.
  consume: reads the command results and session states with isolation.level=read_committed
           (the connector writes them in transactions), decoding each value by its first byte:
           0x00 = Confluent wire format (writer schema fetched from the registry by id and
           resolved against the reader .avsc), 0xC3 0x01 = single-object (the fingerprint names
           the current .avsc or a released version under history/). Keeps the newest state
           per session (updated_at, then status rank), waits until every expected key has its
           result and a final session state, prints one JSON line per key and checks it: status
           accepted, amount, card last 4 digits, no full card number. Exit 0 when all passed.

usage: ledger.py produce --brokers B --schemas DIR --topic T --key K --amount N [--key K --amount N]
       ledger.py consume --brokers B --schemas DIR --results T --sessions T --expect K=AMOUNT ...
                         [--registry URL] [--timeout SECONDS]
"""
import argparse
import io
import json
import os
import struct
import sys
import time
import urllib.request
import uuid

import fastavro
from confluent_kafka import Consumer, KafkaError, Producer
from fastavro.schema import fingerprint, to_parsing_canonical_form

FINAL = {"accepted", "canceled", "cancelled", "succeeded", "failed", "declined", "rejected", "expired"}


def load_schema(schema_dir, name):
    with open(os.path.join(schema_dir, name + ".avsc")) as f:
        raw = json.load(f)
    return raw, fastavro.parse_schema(raw, named_schemas={})


def soe_header(raw):
    # fastavro's hex digest is in the byte order of the single-object header (little-endian).
    return b"\xc3\x01" + bytes.fromhex(fingerprint(to_parsing_canonical_form(raw), "CRC-64-AVRO"))


def produce(args):
    raw, schema = load_schema(args.schemas, "init_payout")
    header = soe_header(raw)
    producer = Producer({"bootstrap.servers": args.brokers, "enable.idempotence": True, "acks": "all"})
    for key, amount in zip(args.key, args.amount):
        command = {
            "instrument": {"type": "card", "card": {"type": "bank_card", "bank_card": {
                "number": "4111111111111111", "expiration_month": "12", "expiration_year": "29",
                "security_code": None}, "tokenized_card": None, "encrypted_card": None}, "bank_account": None},
            "amount": amount, "currency": "rub",
        }
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, schema, command)
        producer.produce(args.topic, key=key.encode(), value=header + buf.getvalue())
    if producer.flush(30) != 0:
        print("produce: not every command was acknowledged", file=sys.stderr)
        return 1
    print(json.dumps({"produced": args.key}))
    return 0


class Registry:
    def __init__(self, url):
        self.url = url.rstrip("/")
        self.cache = {}

    def writer(self, schema_id):
        if schema_id not in self.cache:
            with urllib.request.urlopen(f"{self.url}/schemas/ids/{schema_id}", timeout=10) as resp:
                raw = json.loads(json.load(resp)["schema"])
            self.cache[schema_id] = fastavro.parse_schema(raw, named_schemas={})
        return self.cache[schema_id]


def writers(schema_dir, name, reader_raw, reader):
    """Single-object headers of the current schema and of every released version (history/)."""
    out = {soe_header(reader_raw): reader}
    history = os.path.join(schema_dir, "history", name)
    for fn in sorted(os.listdir(history)) if os.path.isdir(history) else []:
        if fn.endswith(".avsc"):
            with open(os.path.join(history, fn)) as f:
                raw = json.load(f)
            out.setdefault(soe_header(raw), fastavro.parse_schema(raw, named_schemas={}))
    return out


def decoder(schema_dir, name, registry):
    """Decodes values of schema name written in either form, with any released writer schema."""
    reader_raw, reader = load_schema(schema_dir, name)
    by_header = writers(schema_dir, name, reader_raw, reader)

    def decode(value):
        if value[:1] == b"\x00":
            (schema_id,) = struct.unpack(">I", value[1:5])
            return fastavro.schemaless_reader(io.BytesIO(value[5:]), registry.writer(schema_id), reader)
        writer = by_header.get(value[:10])
        if writer is None:
            raise ValueError("not a single-object value of %s, first bytes %r" % (name, value[:10]))
        return fastavro.schemaless_reader(io.BytesIO(value[10:]), writer, reader)
    return decode


def rank(status):
    s = status.lower()
    return 1 if s == "created" else 3 if s == "pending" else 4 if s in FINAL else 2


def newer(a, b):
    ua, ub = a["session"]["updated_at"], b["session"]["updated_at"]
    if ua != ub:
        return (ua is not None and ub is None) or (ua is not None and ub is not None and ua > ub)
    return rank(a["session"]["status"]) > rank(b["session"]["status"])


def consume(args):
    registry = Registry(args.registry) if args.registry else None
    dec_result = decoder(args.schemas, "command_result", registry)
    dec_state = decoder(args.schemas, "session_state", registry)
    expect = {k: int(a) for k, a in (e.split("=") for e in args.expect)}
    consumer = Consumer({
        "bootstrap.servers": args.brokers,
        "group.id": "python-ledger-" + uuid.uuid4().hex,
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    consumer.subscribe([args.results, args.sessions])
    results, sessions = {}, {}

    def done():
        for key in expect:
            r = results.get(key)
            s = r and r["session_id"] and sessions.get(r["session_id"])
            if not s or s["session"]["status"].lower() not in FINAL:
                return False
        return True

    deadline = time.monotonic() + args.timeout
    try:
        while not done() and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                print(f"kafka error: {msg.error()}", file=sys.stderr)
                return 1
            if msg.topic() == args.results:
                results[msg.key().decode()] = dec_result(msg.value())
            else:
                state = dec_state(msg.value())
                held = sessions.get(msg.key().decode())
                if held is None or newer(state, held):
                    sessions[msg.key().decode()] = state
    finally:
        consumer.close()

    failures = 0
    for key, amount in expect.items():
        r = results.get(key)
        s = r and r["session_id"] and sessions.get(r["session_id"])
        if not s:
            print(json.dumps({"key": key, "error": "no result or session state"}))
            failures += 1
            continue
        op = s["session"]["operations"][0]
        line = {"key": key, "status": r["status"], "session_id": s["session"]["id"],
                "session_status": s["session"]["status"], "amount": op["amount"],
                "card_last4": (op["instrument"] or {}).get("card_last4"),
                "format": "confluent" if registry else "single-object"}
        print(json.dumps(line))
        if (r["status"] != "accepted" or op["amount"] != amount or line["card_last4"] != "1111"
                or "4111111111111111" in repr((r, s))):
            print(json.dumps({"key": key, "error": "unexpected values"}))
            failures += 1
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("produce")
    p.add_argument("--brokers", required=True)
    p.add_argument("--schemas", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--key", action="append", required=True)
    p.add_argument("--amount", action="append", type=int, required=True)
    c = sub.add_parser("consume")
    c.add_argument("--brokers", required=True)
    c.add_argument("--schemas", required=True)
    c.add_argument("--results", required=True)
    c.add_argument("--sessions", required=True)
    c.add_argument("--expect", action="append", required=True, help="KEY=AMOUNT")
    c.add_argument("--registry")
    c.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()
    return produce(args) if args.cmd == "produce" else consume(args)


if __name__ == "__main__":
    sys.exit(main())
