// A static file server on 127.0.0.1 for compare.mjs: the directories given
// are served at /c0/, /c1/, …; prints its port on stdout when listening.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
  '.woff': 'font/woff', '.ttf': 'font/ttf', '.txt': 'text/plain',
};
const dirs = process.argv.slice(2).map((d) => resolve(d));

const server = createServer((req, res) => {
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  const m = /^\/c([0-9]+)\//.exec(path);
  const dir = m && dirs[Number(m[1])];
  const file = dir && resolve(dir, '.' + sep + path.slice(m[0].length));
  let st = null;
  try {
    st = file && file.startsWith(dir + sep) ? statSync(file) : null;
  } catch {
    st = null;
  }
  if (!st || !st.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file).toLowerCase()] || 'application/octet-stream',
    'content-length': st.size,
  });
  createReadStream(file).pipe(res);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
