// Server CPU per request of a bare node:http server answering a fixed JSON body of SIZE bytes.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
if (process.argv[2] === '--serve') {
  const http = await import('node:http');
  const body = JSON.stringify({ items: 'x'.repeat(Number(process.argv[3]) - 30), total_items: 1 });
  http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }); res.end(body); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
} else {
  const { default: autocannon } = await import('autocannon');
  for (const size of [8000, 23000, 35000]) {
    const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve', String(size)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise((ok) => child.stdout.once('data', (d) => ok(Number(String(d).trim()))));
    const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };
    await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 50, duration: 2 });
    const c0 = cpu();
    const r = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 50, duration: 6 });
    const us = (cpu() - c0) / r.requests.total;
    console.log(`${size} bytes: ${r.requests.average} req/s, server CPU ${us.toFixed(0)} µs/req`);
    child.kill();
  }
}
