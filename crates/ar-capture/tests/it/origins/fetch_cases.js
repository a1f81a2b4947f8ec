// The matrix's requests with WHATWG fetch and WebSocket, shared by the two
// clients that have them: Node (undici, with a ProxyAgent or a direct Agent
// as `env.init.dispatcher`) and Chromium (evaluated in a page of the origin,
// so every request is same-origin and its headers are readable).
//
// Resolves to one line per request, as `client.py` prints them:
// `ID STATUS VERSION FIRST_MS END_MS HEX(HEADERS) HEX(BODY)` or
// `ID ERR HEX(MESSAGE)`. fetch does not tell the protocol (VERSION is `?`)
// and shows a redirect it may not follow only as status 0 in a browser. For
// a WebSocket, BODY is the echo and HEADERS is `close: CODE` (1000 when the
// server's Close frame came, 1006 when the connection just ended).
async function runCases(cases, env) {
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const text = (s) => hex(new TextEncoder().encode(s));
  const since = (start) => (performance.now() - start).toFixed(1);
  const upload = (n) => new TextEncoder().encode('abcdefghijklmnopqrstuvwxyz'.repeat(n / 26 + 1).slice(0, n));

  async function fetched(c, start) {
    const init = { method: c.method, headers: c.headers, redirect: 'manual', ...env.init };
    if (c.upload) init.body = upload(c.upload);
    const r = await env.fetch(c.url, init);
    const chunks = [];
    let first = -1;
    if (r.body) {
      const reader = r.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (first < 0 && value.length) first = since(start);
        chunks.push(value);
      }
    }
    const end = since(start);
    const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((at, c) => (body.set(c, at), at + c.length), 0);
    let headers = '';
    r.headers.forEach((value, name) => (headers += `${name}: ${value}\n`));
    const status = r.type === 'opaqueredirect' ? 0 : r.status;
    return `${status} ? ${first} ${end} ${text(headers)} ${hex(body)}`;
  }

  function echoed(c, start) {
    return new Promise((resolve, reject) => {
      const ws = env.webSocket(c.url);
      let got = null;
      let first = -1;
      const timer = setTimeout(() => reject(new Error('no echo within 15 s')), 15000);
      ws.onopen = () => ws.send(c.message);
      ws.onmessage = (event) => {
        got = event.data;
        first = since(start);
        ws.close(1000);
      };
      ws.onerror = (event) => reject(new Error(`websocket error: ${event.message || event.type}`));
      ws.onclose = (event) => {
        clearTimeout(timer);
        if (got === null) reject(new Error(`closed before an echo: ${event.code}`));
        else resolve(`101 ? ${first} ${since(start)} ${text(`close: ${event.code}\n`)} ${text(String(got))}`);
      };
    });
  }

  const lines = [];
  for (const c of cases) {
    const start = performance.now();
    try {
      lines.push(`${c.id} ${await (c.ws ? echoed(c, start) : fetched(c, start))}`);
    } catch (e) {
      const cause = e && e.cause ? ` (cause: ${e.cause.stack || e.cause})` : '';
      lines.push(`${c.id} ERR ${text(String((e && e.stack) || e) + cause)}`);
    }
  }
  return lines;
}
