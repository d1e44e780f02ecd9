// Validates an AsyncAPI document with the official parser (@asyncapi/parser) and the Avro schema
// parser, resolving the payloads' $ref to the .avsc files beside the document. Prints every
// diagnostic and exits 1 on any error (warnings are printed too, and fail with --strict).
//
// usage: node validate.mjs [--strict] <asyncapi.yaml>
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Parser, fromFile, DiagnosticSeverity } from '@asyncapi/parser';
import { AvroSchemaParser } from '@asyncapi/avro-schema-parser';

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node validate.mjs [--strict] <asyncapi.yaml>');
  process.exit(2);
}
const path = resolve(file);
readFileSync(path); // a missing file is an error of its own, not a parser diagnostic

const parser = new Parser();
parser.registerSchemaParser(AvroSchemaParser());
const { document, diagnostics } = await fromFile(parser, path).parse();

const name = { [DiagnosticSeverity.Error]: 'error', [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info', [DiagnosticSeverity.Hint]: 'hint' };
let failed = 0;
for (const d of diagnostics) {
  const sev = name[d.severity] ?? String(d.severity);
  console.log(`${sev}: ${d.code}: ${d.message} at ${d.path.join('.')}`);
  if (d.severity === DiagnosticSeverity.Error || (strict && d.severity === DiagnosticSeverity.Warning)) failed++;
}
if (!document || failed > 0) {
  console.log(`asyncapi: ${path} is INVALID (${failed} problems)`);
  process.exit(1);
}
const channels = document.channels().all().map((c) => c.address());
const messages = document.allMessages().all().length;
console.log(JSON.stringify({ valid: true, version: document.version(), channels, messages }));
