#!/usr/bin/env python3
"""Read paysession outcome topics the way a third-party consumer would.

Uses confluent-kafka (librdkafka) with isolation.level=read_committed and fastavro, nothing of
the connector's own code. Each record value is decoded by its first byte:

  0x00       Confluent wire format: the writer schema is fetched from the schema registry
             (GET <registry>/schemas/ids/<id>) and resolved against the reader .avsc;
  0xC3 0x01  Avro single-object encoding: the CRC-64-AVRO fingerprint (little-endian) names the
             writer schema: one of the reader .avsc files, or a released version of one under
             <schemas>/history/<name>/v<N>.avsc (older records), resolved against the reader.

Prints one JSON line per record: {"topic","partition","offset","key","format","schema","value"}
and exits 0 once --count records are read (1 on timeout or any decoding error).

usage: read_outcomes.py --brokers B --topic T [--topic T2] --schemas DIR --count N
                        [--registry URL] [--timeout SECONDS]
"""
import argparse
import base64
import datetime
import io
import json
import os
import struct
import sys
import time
import urllib.request
import uuid

import fastavro
from confluent_kafka import Consumer, KafkaError
from fastavro.schema import fingerprint, to_parsing_canonical_form


def load_readers(schema_dir):
    """Map CRC-64-AVRO fingerprint (SOE header byte order) to (name, writer, reader) and full
    name to (name, reader). Writers are the current .avsc files and every released version under
    history/<name>/, so records written before a schema evolved still decode (into the current
    reader, new fields taking their defaults)."""
    by_fp, by_name = {}, {}
    for fn in sorted(os.listdir(schema_dir)):
        if not fn.endswith(".avsc"):
            continue
        name = fn[:-5]
        with open(os.path.join(schema_dir, fn)) as f:
            raw = json.load(f)
        reader = fastavro.parse_schema(raw, named_schemas={})
        by_name[raw["namespace"] + "." + raw["name"]] = (name, reader)
        hist = os.path.join(schema_dir, "history", name)
        versions = sorted(os.listdir(hist)) if os.path.isdir(hist) else []
        for vfn in versions:
            if not vfn.endswith(".avsc"):
                continue
            with open(os.path.join(hist, vfn)) as f:
                old = json.load(f)
            by_fp[soe_fingerprint(old)] = (name, fastavro.parse_schema(old, named_schemas={}), reader)
        # fastavro's hex digest is the fingerprint's bytes in the order of the single-object header
        # (little-endian), as Java's SchemaNormalization.parsingFingerprint returns them.
        by_fp[soe_fingerprint(raw)] = (name, reader, reader)
    return by_fp, by_name


def soe_fingerprint(raw):
    return bytes.fromhex(fingerprint(to_parsing_canonical_form(raw), "CRC-64-AVRO"))


class Registry:
    def __init__(self, url):
        self.url = url.rstrip("/")
        self.cache = {}

    def writer(self, schema_id):
        if schema_id not in self.cache:
            with urllib.request.urlopen(f"{self.url}/schemas/ids/{schema_id}", timeout=10) as resp:
                body = json.load(resp)
            raw = json.loads(body["schema"])
            self.cache[schema_id] = (raw, fastavro.parse_schema(raw, named_schemas={}))
        return self.cache[schema_id]


def plain(v):
    """Make a decoded Avro value JSON-printable."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(v).decode()
    if isinstance(v, datetime.datetime):
        return v.astimezone(datetime.timezone.utc).isoformat()
    return v


def decode(value, readers_fp, readers_name, registry):
    if value[:1] == b"\x00":
        if registry is None:
            raise ValueError("Confluent wire format but no --registry")
        (schema_id,) = struct.unpack(">I", value[1:5])
        raw, writer = registry.writer(schema_id)
        name, reader = readers_name[raw["namespace"] + "." + raw["name"]]
        return "confluent", name, fastavro.schemaless_reader(io.BytesIO(value[5:]), writer, reader)
    if value[:2] == b"\xc3\x01":
        entry = readers_fp.get(value[2:10])
        if entry is None:
            raise ValueError("unknown single-object fingerprint " + value[2:10].hex())
        name, writer, reader = entry
        return "single-object", name, fastavro.schemaless_reader(io.BytesIO(value[10:]), writer, reader)
    raise ValueError("unknown value format, first byte %r" % value[:1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brokers", required=True)
    ap.add_argument("--topic", action="append", required=True)
    ap.add_argument("--schemas", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--registry")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()

    readers_fp, readers_name = load_readers(args.schemas)
    registry = Registry(args.registry) if args.registry else None
    consumer = Consumer({
        "bootstrap.servers": args.brokers,
        "group.id": "third-party-" + uuid.uuid4().hex,
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    consumer.subscribe(args.topic)
    seen, deadline = 0, time.monotonic() + args.timeout
    try:
        while seen < args.count:
            if time.monotonic() > deadline:
                print(f"timeout: read {seen} of {args.count} records", file=sys.stderr)
                return 1
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                print(f"kafka error: {msg.error()}", file=sys.stderr)
                return 1
            fmt, name, value = decode(msg.value(), readers_fp, readers_name, registry)
            key = msg.key().decode() if msg.key() is not None else None
            print(json.dumps({"topic": msg.topic(), "partition": msg.partition(), "offset": msg.offset(),
                              "key": key, "format": fmt, "schema": name, "value": plain(value)}), flush=True)
            seen += 1
    finally:
        consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
