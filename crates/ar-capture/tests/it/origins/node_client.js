// Node's fetch and WebSocket from undici (pinned in .ci/node), through the
// proxy with a ProxyAgent, or directly with an Agent that sends shop.test to
// loopback (what the proxy's `resolve` does). Node's own fetch ignores
// proxies. Runs after fetch_cases.js (prepended); AR_UNDICI names undici's
// folder.
//
// Usage: node client.js PROXY_URL|direct CA_FILE CASES_JSON
const fs = require('node:fs');
const undici = require(process.env.AR_UNDICI);

const [proxy, caFile, casesFile] = process.argv.slice(2);
const tls = { ca: fs.readFileSync(caFile) };
const loopback = (hostname, options, callback) =>
  options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
const dispatcher =
  proxy === 'direct'
    ? new undici.Agent({ connect: { ...tls, lookup: loopback } })
    : new undici.ProxyAgent({ uri: proxy, requestTls: tls });

runCases(JSON.parse(fs.readFileSync(casesFile, 'utf8')), {
  fetch: undici.fetch,
  init: { dispatcher },
  webSocket: (url) => new undici.WebSocket(url, { dispatcher }),
}).then((lines) => {
  process.stdout.write(lines.map((line) => `${line}\n`).join(''), () => process.exit(0));
});
