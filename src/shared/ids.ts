import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/** Random bytes drawn from the system's generator a few kilobytes at a time (one call per id costs more than the id). */
const pool = Buffer.alloc(4096);
let used = pool.length;
function random(bytes: number): Buffer {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.subarray(used - bytes, used);
}

/**
 * A new identifier: 32 lowercase hex characters, time-ordered like a UUIDv7 (48-bit milliseconds, then a
 * sequence that keeps ids made in the same millisecond in order, then random bits), so that ordering by id
 * is ordering by creation.
 */
export function newId(now: number = Date.now()): string {
  if (now <= lastMs) {
    sequence = (sequence + 1) & 0xffff;
    if (sequence === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    sequence = random(2).readUInt16BE(0) & 0x7fff;
  }
  return now.toString(16).padStart(12, '0') + sequence.toString(16).padStart(4, '0') + random(8).toString('hex');
}

export const ID_PATTERN = /^[0-9a-f]{32}$/;
