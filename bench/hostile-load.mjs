#!/usr/bin/env node
// The hostile load of `SOAK_HOSTILE=1 node bench/soak.mjs` (docs/security.md), in a process of its own, from
// HOSTILE_FROM (127.0.0.2): 8 idle live streams asked for each of HOSTILE_USERS (as the Admin; those refused
// ask again after their Retry-After) and 2,000 slow unauthenticated bodies (a gigabyte announced, a byte every
// 5 s; each answered 401 and closed, then opened again 5 s later). Prints one line once the streams are asked
// for, and its counts when stopped (SIGTERM). HOSTILE_STREAMS_PER_USER (8) and HOSTILE_SLOW_BODIES (2000) change
// the amounts, to measure each half alone.

import http from 'node:http';
import net from 'node:net';

const base = process.env.HOSTILE_BASE;
const HOSTILE_FROM = process.env.HOSTILE_FROM ?? '127.0.0.2';
const admin = { key: process.env.HOSTILE_KEY, secret: process.env.HOSTILE_SECRET };
const users = process.env.HOSTILE_USERS.split(',');
const STREAMS_PER_USER = Number(process.env.HOSTILE_STREAMS_PER_USER ?? 8);
const SLOW_BODIES = Number(process.env.HOSTILE_SLOW_BODIES ?? 2000);
const PREFIX = '/public-api/v1';
const { hostname, port } = new URL(base);
const counts = { streamsOpen: 0, streamsRefused: {}, slowBodiesAnswered: {} };
const sockets = new Set();
let stopped = false;
const bump = (table, key) => (table[key] = (table[key] ?? 0) + 1);

const openStream = (userId) =>
  new Promise((done) => {
    const request = http.get(
      {
        host: hostname,
        port,
        localAddress: HOSTILE_FROM,
        path: `${PREFIX}/users/${userId}/notifications/stream`,
        headers: { 'api-key': admin.key, 'api-secret': admin.secret },
      },
      (res) => {
        if (res.statusCode === 200) {
          counts.streamsOpen += 1;
          sockets.add(res.socket);
          res.resume();
          res.on('close', () => (counts.streamsOpen -= 1));
          return done();
        }
        bump(counts.streamsRefused, res.statusCode);
        res.resume();
        setTimeout(() => !stopped && openStream(userId), Number(res.headers['retry-after'] ?? 10) * 1000).unref();
        done();
      },
    );
    request.on('error', () => done());
  });

const slowBody = () => {
  if (stopped) return;
  const socket = net.connect({ host: hostname, port, localAddress: HOSTILE_FROM });
  sockets.add(socket);
  let answer = '';
  const drip = setInterval(() => socket.writable && socket.write('x'), 5000);
  socket.on('connect', () =>
    socket.write(`POST ${PREFIX}/statuses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{`),
  );
  socket.on('data', (chunk) => (answer += chunk));
  socket.on('end', () => socket.end());
  socket.on('error', (error) => (answer ||= `error ${error.code}`));
  socket.on('close', () => {
    clearInterval(drip);
    sockets.delete(socket);
    if (stopped) return;
    bump(counts.slowBodiesAnswered, answer.startsWith('HTTP') ? answer.split(' ')[1] : answer || 'closed unanswered');
    setTimeout(slowBody, 5000);
  });
};

// At most 50 connecting at once: connections not yet authenticated are bounded per address.
const asks = users.flatMap((id) => Array(STREAMS_PER_USER).fill(id));
for (let i = 0; i < asks.length; i += 50) await Promise.all(asks.slice(i, i + 50).map(openStream));
console.log(`hostile: ${asks.length} streams asked for, ${counts.streamsOpen} open, refused ${JSON.stringify(counts.streamsRefused)}; ${SLOW_BODIES} slow bodies start`);
for (let i = 0; i < SLOW_BODIES; i++) slowBody();
process.on('SIGTERM', () => {
  stopped = true;
  console.log(JSON.stringify(counts));
  for (const socket of sockets) socket.destroy();
  process.exit(0);
});
