#!/usr/bin/env node
// Where the suite's time goes: reads one or more reports of `jest --json --outputFile=<file>` and
// prints the slowest test files with their share of the summed file time, then the time per
// folder. With `--cpu <file>` (lines written by `TEST_CPU_REPORT=<file>`), the files that used the
// most CPU (their worker and the processes they started), and the CPU per folder.
//   npm test -- --json --outputFile=/tmp/jest.json && node scripts/test-timings.mjs /tmp/jest.json
//   TEST_CPU_REPORT=/tmp/cpu.jsonl npm test && node scripts/test-timings.mjs --cpu /tmp/cpu.jsonl
// With `--write`, also records each file's duration in test/support/test-durations.json, which
// the test sequencer reads to start the longest files first.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
const writeAt = args.indexOf('--write');
const write = writeAt >= 0 && args.splice(writeAt, 1).length > 0;
const cpuAt = args.indexOf('--cpu');
const cpuReport = cpuAt >= 0 ? args.splice(cpuAt, 2)[1] : undefined;
if (cpuReport) {
  printCpu(cpuReport);
  process.exit(0);
}
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
if (write) {
  const path = new URL('../test/support/test-durations.json', import.meta.url);
  const durations = Object.fromEntries(
    [...files]
      .sort((a, b) => (a.file < b.file ? -1 : 1))
      .map((file) => [file.file, Math.round(file.seconds * 10) / 10]),
  );
  writeFileSync(path, `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`Wrote the durations of ${files.length} files to test/support/test-durations.json\n`);
}
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

/** The CPU report: files by CPU seconds, and per folder. */
function printCpu(path) {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const cpu = lines.reduce((sum, line) => sum + line.cpu, 0);
  const wall = lines.reduce((sum, line) => sum + line.wall, 0);
  console.log(
    `${lines.length} files, ${cpu.toFixed(0)} CPU s, ${wall.toFixed(0)} s of file time\n`,
  );
  console.log(
    `The ${Math.min(top, lines.length)} files that used the most CPU (cpu s, wall s, app boots):`,
  );
  for (const line of [...lines].sort((a, b) => b.cpu - a.cpu).slice(0, top))
    console.log(
      `${line.cpu.toFixed(1).padStart(7)} ${line.wall.toFixed(1).padStart(7)} ${String(line.boots ?? 0).padStart(4)}  ${relative(process.cwd(), line.file)}`,
    );
  const byFolder = new Map();
  for (const line of lines) {
    const folder = relative(process.cwd(), line.file).split('/').slice(0, 2).join('/');
    const entry = byFolder.get(folder) ?? { cpu: 0, wall: 0 };
    entry.cpu += line.cpu;
    entry.wall += line.wall;
    byFolder.set(folder, entry);
  }
  console.log('\nBy folder (cpu s, wall s):');
  for (const [folder, entry] of [...byFolder].sort((a, b) => b[1].cpu - a[1].cpu))
    console.log(
      `${entry.cpu.toFixed(1).padStart(7)} ${entry.wall.toFixed(1).padStart(7)}  ${folder}`,
    );
}
