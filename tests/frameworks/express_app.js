// An Express service, as a new user would write one: a list that filters on
// every query parameter it is given (an unknown one empties it, as several
// JSON API servers do), pagination in `Link` headers and in the body,
// `res.redirect` to an absolute URL, Express's own ETags and 304s, and an
// echo of what the service was sent.
//
// Run as `node express_app.js` with express on NODE_PATH: prints `port N`
// once listening, and exits when its standard input closes.
'use strict';

const express = require('express');

const TASKS = Array.from({ length: 57 }, (_, i) => ({
  id: i + 1,
  title: `Task ${i + 1}`,
  project: (i + 1) % 2 ? 'apollo' : 'zeus',
  done: (i + 1) % 3 === 0,
}));
const PAGING = new Set(['page', 'per_page']);

const app = express();

app.get('/tasks', (req, res) => {
  let rows = TASKS;
  for (const [key, value] of Object.entries(req.query)) {
    if (!PAGING.has(key)) rows = rows.filter((task) => String(task[key]) === String(value));
  }
  const perPage = Number(req.query.per_page || 10);
  const page = Number(req.query.page || 1);
  const base = `${req.protocol}://${req.get('host')}/tasks`;
  const pages = Math.max(1, Math.ceil(rows.length / perPage));
  const links = [`<${base}?page=1&per_page=${perPage}>; rel="first"`];
  if (page < pages) links.push(`<${base}?page=${page + 1}&per_page=${perPage}>; rel="next"`);
  links.push(`<${base}?page=${pages}&per_page=${perPage}>; rel="last"`);
  res.set('Link', links.join(', '));
  res.json({
    total_count: rows.length,
    page,
    per_page: perPage,
    items: rows.slice((page - 1) * perPage, page * perPage),
  });
});

// express.json() parses only JSON bodies: any other type leaves `req.body`
// empty.
app.post('/tasks', express.json(), (req, res) => {
  res.status(201).json({
    created: req.body,
    content_type: req.get('content-type') || null,
    content_length: req.get('content-length') || null,
    transfer_encoding: req.get('transfer-encoding') || null,
  });
});

app.get('/echo', (req, res) => {
  res.json({
    query: req.originalUrl.includes('?') ? req.originalUrl.split('?')[1] : '',
    accept: req.get('accept') || null,
    prefer: req.get('x-prefer-format') || null,
    host: req.get('host') || null,
  });
});

app.get('/old-tasks', (req, res) => {
  res.redirect(`${req.protocol}://${req.get('host')}/tasks`);
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${server.address().port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
