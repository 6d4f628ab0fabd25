// Reads a SQLite store (its file and its log) through once, so that a benchmark measures it in the machine's page
// cache rather than the disk: the host of the machines measured on drops the guest's cache now and then (`free`
// showed 264 MB cached minutes after a 3 GB store was copied), and a million-page store read back from disk
// through the memory map costs more CPU (in process, 487 µs a varied read against 326–373 with it cached: major
// faults). Used by harness.mjs before each measured run and by inprocess.ts before it starts.
import { closeSync, openSync, readSync } from 'node:fs';

/** Reads `file` and `file-wal` through; the bytes read and the seconds it took (long: they were not cached). */
export function readThrough(file) {
  const buffer = Buffer.allocUnsafe(4 << 20);
  const t0 = performance.now();
  let bytes = 0;
  for (const path of [file, `${file}-wal`]) {
    let fd;
    try {
      fd = openSync(path, 'r');
    } catch {
      continue; // no log
    }
    try {
      for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) bytes += n;
    } finally {
      closeSync(fd);
    }
  }
  return { bytes, seconds: (performance.now() - t0) / 1000 };
}
