#!/usr/bin/env node
// Where the suite's time goes: reads one or more reports of `jest --json --outputFile=<file>` and
// prints the slowest test files with their share of the summed file time, then the time per
// project and per folder.
//   npm test -- --json --outputFile=/tmp/jest.json && node scripts/test-timings.mjs /tmp/jest.json
//   node scripts/test-timings.mjs /tmp/jest.json --top 40
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
if (args.length === 0) {
  console.error('usage: node scripts/test-timings.mjs <jest --json report>… [--top N]');
  process.exit(2);
}

const files = [];
for (const path of args) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const result of report.testResults)
    files.push({
      file: relative(process.cwd(), result.name),
      seconds: (result.endTime - result.startTime) / 1000,
      tests: result.assertionResults.length,
      failed: result.assertionResults.filter((test) => test.status === 'failed').length,
    });
}
const total = files.reduce((sum, file) => sum + file.seconds, 0);
const seconds = (value) => value.toFixed(1).padStart(7);
const share = (value) => `${((100 * value) / total).toFixed(1).padStart(5)} %`;

console.log(
  `${files.length} files, ${files.reduce((n, f) => n + f.tests, 0)} tests, ${total.toFixed(0)} s of file time\n`,
);
console.log(`The ${Math.min(top, files.length)} slowest files:`);
for (const file of [...files].sort((a, b) => b.seconds - a.seconds).slice(0, top))
  console.log(
    `${seconds(file.seconds)} s ${share(file.seconds)}  ${file.file} (${file.tests} tests${file.failed ? `, ${file.failed} failed` : ''})`,
  );

const byFolder = new Map();
for (const file of files) {
  const folder = file.file.split('/').slice(0, 2).join('/');
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + file.seconds);
}
console.log('\nBy folder:');
for (const [folder, time] of [...byFolder].sort((a, b) => b[1] - a[1]))
  console.log(`${seconds(time)} s ${share(time)}  ${folder}`);
