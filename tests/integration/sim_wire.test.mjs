// Wire shape of `truecost sim`: every route, every framing, every error,
// checked byte by byte against the real binary.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  DEFAULT_MODEL,
  INFERENCE_ROUTES,
  bodyFor,
  gaps,
  get,
  isOllama,
  median,
  ndjsonLineTimes,
  ndjsonLines,
  oaiChat,
  oaiCompletion,
  ollamaGenerate,
  parseNdjson,
  post,
  request,
  sseEvents,
  startSim,
  streamedText,
  wholeText,
  within,
} from './helpers.mjs';

const OTHER_MODEL = 'tiny-1b';
const PROMPT = 'Why is the sky blue?'; // 5 words: 6 prompt tokens, 10 as one chat message
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

// One fast server shared by the shape tests: tokens every 0.5 ms.
let sim;
before(async () => {
  sim = await startSim(['--model', DEFAULT_MODEL, '--model', OTHER_MODEL, '--ttft-ms', '2', '--decode-tps', '2000']);
});
after(() => sim?.stop());

function assertSimulated(res, what = '') {
  assert.equal(res.headers['x-truecost-simulated'], '1', `x-truecost-simulated header missing ${what}`);
}

function assertType(res, type) {
  const ct = res.headers['content-type'] ?? '';
  assert.equal(ct.split(';')[0].trim(), type, `content-type of ${res.status} ${ct}`);
}

function assertJsonOk(res) {
  assert.equal(res.status, 200, res.body);
  assertSimulated(res);
  assertType(res, 'application/json');
  assert.equal(res.error, null);
  assert.ok(res.json !== undefined, `body is not JSON: ${res.body}`);
  return res.json;
}

function assertOllamaError(res, status, re) {
  assert.equal(res.status, status, res.body);
  assertSimulated(res);
  assertType(res, 'application/json');
  assert.deepEqual(Object.keys(res.json), ['error'], `Ollama error shape: ${res.body}`);
  assert.equal(typeof res.json.error, 'string');
  if (re) assert.match(res.json.error, re);
}

function assertOpenAIError(res, status, re) {
  assert.equal(res.status, status, res.body);
  assertSimulated(res);
  assertType(res, 'application/json');
  assert.deepEqual(Object.keys(res.json), ['error'], `OpenAI error shape: ${res.body}`);
  const e = res.json.error;
  assert.equal(typeof e, 'object');
  assert.equal(typeof e.message, 'string');
  assert.equal(typeof e.type, 'string');
  assert.ok('param' in e && 'code' in e, `error has param and code: ${res.body}`);
  if (re) assert.match(e.message, re);
}

function assertRouteError(route, res, status, re) {
  if (isOllama(route)) assertOllamaError(res, status, re);
  else assertOpenAIError(res, status, re);
}

const isPosInt = (v) => Number.isInteger(v) && v > 0;

/** Checks an Ollama done object; returns it. */
function assertOllamaDone(o, { n, promptTokens }) {
  assert.equal(o.done, true);
  assert.equal(o.done_reason, 'length');
  assert.equal(o.model, DEFAULT_MODEL);
  assert.match(o.created_at, RFC3339);
  for (const k of ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration'])
    assert.ok(isPosInt(o[k]), `${k} is a positive integer (nanoseconds or tokens): ${JSON.stringify(o)}`);
  assert.equal(o.eval_count, n);
  assert.equal(o.prompt_eval_count, promptTokens);
  // The durations partition the request exactly.
  assert.equal(o.load_duration + o.prompt_eval_duration + o.eval_duration, o.total_duration);
  // TTFT is >= 2 ms (--ttft-ms 2).
  assert.ok(o.total_duration >= 2e6, `total_duration ${o.total_duration} ns`);
  return o;
}

function assertTimings(tm, { n, promptTokens }) {
  assert.equal(typeof tm, 'object', 'timings object');
  assert.equal(tm.prompt_n, promptTokens);
  assert.equal(tm.predicted_n, n);
  for (const k of ['prompt_ms', 'prompt_per_token_ms', 'prompt_per_second', 'predicted_ms', 'predicted_per_token_ms', 'predicted_per_second'])
    assert.ok(typeof tm[k] === 'number' && tm[k] > 0, `timings.${k} > 0: ${JSON.stringify(tm)}`);
  assert.ok(Math.abs(tm.predicted_per_token_ms * n - tm.predicted_ms) < 0.01);
}

/** Strict SSE framing: every event is exactly one `data: <payload>` line. */
function strictSse(body) {
  const events = sseEvents(body);
  assert.equal(events.partial, '', `stream ends with a blank line: ${JSON.stringify(events.partial)}`);
  for (const e of events) assert.match(e.raw, /^data: [^\n]+$/, `event framing: ${JSON.stringify(e.raw)}`);
  return events.map((e) => e.data);
}

// ---- info routes --------------------------------------------------------

test('GET /api/version', async () => {
  const j = assertJsonOk(await get(sim.url, '/api/version'));
  assert.equal(typeof j.version, 'string');
  assert.ok(j.version.length > 0);
});

test('HEAD on a GET route answers 200 without a body', async () => {
  const res = await request(sim.url, { method: 'HEAD', path: '/api/version' });
  assert.equal(res.status, 200);
  assertSimulated(res);
  assert.equal(res.body, '');
});

test('GET /api/tags lists every --model with details', async () => {
  const j = assertJsonOk(await get(sim.url, '/api/tags'));
  assert.deepEqual(
    j.models.map((m) => m.name),
    [DEFAULT_MODEL, OTHER_MODEL],
  );
  for (const m of j.models) {
    assert.equal(m.model, m.name);
    assert.ok(isPosInt(m.size));
    assert.match(m.digest, /^[0-9a-f]{64}$/);
    assert.match(m.modified_at, RFC3339);
    for (const k of ['family', 'parameter_size', 'quantization_level', 'format'])
      assert.equal(typeof m.details[k], 'string', `details.${k}`);
  }
  assert.notEqual(j.models[0].digest, j.models[1].digest);
});

test('GET /api/ps lists loaded models with size_vram and context_length', async () => {
  const j = assertJsonOk(await get(sim.url, '/api/ps'));
  assert.equal(j.models.length, 2);
  for (const m of j.models) {
    assert.ok(isPosInt(m.size));
    assert.ok(isPosInt(m.size_vram));
    assert.ok(isPosInt(m.context_length));
    assert.equal(typeof m.expires_at, 'string');
  }
});

test('POST /api/show: known model, legacy "name", unknown model (404), bad body (400)', async () => {
  const j = assertJsonOk(await post(sim.url, '/api/show', { model: DEFAULT_MODEL }));
  assert.equal(typeof j.details.family, 'string');
  assert.equal(typeof j.details.parameter_size, 'string');
  assert.ok(isPosInt(j.model_info['general.parameter_count']));
  assert.ok(Object.keys(j.model_info).some((k) => k.endsWith('.context_length')), 'a context length key');
  assert.equal(typeof j.parameters, 'string');

  assertJsonOk(await post(sim.url, '/api/show', { name: OTHER_MODEL }));

  const nf = await post(sim.url, '/api/show', { model: 'no-such-model' });
  assertOllamaError(nf, 404, /no-such-model/);
  assertOllamaError(await post(sim.url, '/api/show', '{not json'), 400, /model/);
});

test('GET /v1/models lists the models OpenAI-style', async () => {
  const j = assertJsonOk(await get(sim.url, '/v1/models'));
  assert.equal(j.object, 'list');
  assert.deepEqual(
    j.data.map((m) => m.id),
    [DEFAULT_MODEL, OTHER_MODEL],
  );
  for (const m of j.data) {
    assert.equal(m.object, 'model');
    assert.ok(isPosInt(m.created));
    assert.equal(typeof m.owned_by, 'string');
  }
});

test('GET /health and /props (llama.cpp)', async () => {
  assert.deepEqual(assertJsonOk(await get(sim.url, '/health')), { status: 'ok' });
  const p = assertJsonOk(await get(sim.url, '/props'));
  assert.ok(isPosInt(p.default_generation_settings.n_ctx));
  assert.ok(isPosInt(p.total_slots));
  assert.equal(p.default_generation_settings.model, DEFAULT_MODEL);
});

// ---- Ollama native -------------------------------------------------------

for (const route of ['/api/generate', '/api/chat']) {
  test(`POST ${route} streams NDJSON with Ollama's metrics on the last line`, async () => {
    const n = 6;
    const res = await post(sim.url, route, bodyFor(route, { n, stream: true, prompt: PROMPT }));
    assert.equal(res.status, 200, res.body);
    assertSimulated(res);
    assertType(res, 'application/x-ndjson');
    assert.equal(res.error, null);
    const objs = parseNdjson(res.body); // every line parses, the body ends with \n
    assert.equal(objs.length, n + 1, 'n token lines and the done line');
    const last = objs.at(-1);
    for (const o of objs.slice(0, -1)) {
      assert.equal(o.done, false);
      assert.equal(o.model, DEFAULT_MODEL);
      assert.match(o.created_at, RFC3339);
      const text = route === '/api/generate' ? o.response : o.message.content;
      if (route === '/api/chat') assert.equal(o.message.role, 'assistant');
      assert.equal(typeof text, 'string');
      assert.ok(text.length > 0, 'every token line carries text');
      assert.equal(o.eval_count, undefined, 'metrics only on the last line');
    }
    assertOllamaDone(last, { n, promptTokens: route === '/api/generate' ? 6 : 10 });
    if (route === '/api/chat') assert.deepEqual(last.message, { role: 'assistant', content: '' });
    else assert.equal(last.response, '');
  });

  test(`POST ${route} with stream:false returns one JSON object`, async () => {
    const n = 5;
    const res = await post(sim.url, route, bodyFor(route, { n, stream: false, prompt: PROMPT }));
    const o = assertJsonOk(res);
    assert.equal(ndjsonLines(res.body).length, 1, 'exactly one line');
    assertOllamaDone(o, { n, promptTokens: route === '/api/generate' ? 6 : 10 });
    const text = wholeText(route, o);
    assert.ok(text.length > 0);
    assert.equal(text.split(' ').length, n, 'n pseudo-words joined by single spaces');
  });
}

test('Ollama: an empty prompt / no messages only loads the model (done_reason "load")', async () => {
  for (const [route, body] of [
    ['/api/generate', { model: DEFAULT_MODEL }],
    ['/api/generate', { model: DEFAULT_MODEL, prompt: '' }],
    ['/api/chat', { model: DEFAULT_MODEL, messages: [] }],
  ]) {
    const o = assertJsonOk(await post(sim.url, route, body));
    assert.equal(o.done, true, route);
    assert.equal(o.done_reason, 'load', route);
    assert.equal(o.eval_count, undefined, 'zero metrics are omitted');
  }
});

// ---- OpenAI-compatible ---------------------------------------------------

for (const route of ['/v1/completions', '/v1/chat/completions']) {
  const chat = route === '/v1/chat/completions';
  for (const usage of [false, true]) {
    test(`POST ${route} streams SSE (include_usage ${usage})`, async () => {
      const n = 5;
      const res = await post(sim.url, route, bodyFor(route, { n, stream: true, usage, prompt: PROMPT }));
      assert.equal(res.status, 200, res.body);
      assertSimulated(res);
      assertType(res, 'text/event-stream');
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.error, null);
      const datas = strictSse(res.body);
      assert.equal(datas.at(-1), '[DONE]', 'the stream ends with data: [DONE]');
      assert.equal(datas.filter((d) => d === '[DONE]').length, 1);
      const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
      let i = 0;
      const ids = new Set(chunks.map((c) => c.id));
      assert.equal(ids.size, 1, 'one id for the whole stream');
      for (const c of chunks) {
        assert.equal(c.object, chat ? 'chat.completion.chunk' : 'text_completion');
        assert.equal(c.model, DEFAULT_MODEL);
        assert.ok(isPosInt(c.created));
      }
      if (chat) {
        const first = chunks[i++];
        assert.deepEqual(first.choices[0].delta, { role: 'assistant' }, 'first chat chunk has only delta.role');
        assert.equal(first.choices[0].finish_reason, null);
      }
      const tokenChunks = chunks.slice(i, usage ? -1 : undefined);
      assert.equal(tokenChunks.length, n, 'one chunk per token');
      tokenChunks.forEach((c, k) => {
        assert.equal(c.choices.length, 1);
        const text = chat ? c.choices[0].delta.content : c.choices[0].text;
        assert.equal(typeof text, 'string');
        assert.ok(text.length > 0);
        if (chat) assert.deepEqual(Object.keys(c.choices[0].delta), ['content']);
        const isLast = k === n - 1;
        assert.equal(c.choices[0].finish_reason, isLast ? 'length' : null);
        if (isLast) assertTimings(c.timings, { n, promptTokens: chat ? 10 : 6 });
        else assert.equal(c.timings, undefined);
        if (usage) assert.equal(c.usage, null, 'usage is null until the usage chunk');
        else assert.equal('usage' in c, false, 'no usage without include_usage');
      });
      const empties = chunks.filter((c) => c.choices.length === 0);
      if (usage) {
        assert.equal(empties.length, 1, 'exactly one usage chunk');
        const u = chunks.at(-1);
        assert.equal(u, empties[0], 'the usage chunk comes right before [DONE]');
        assert.deepEqual(u.usage, { prompt_tokens: chat ? 10 : 6, completion_tokens: n, total_tokens: (chat ? 10 : 6) + n });
      } else {
        assert.equal(empties.length, 0, 'no usage chunk without include_usage');
      }
    });
  }

  test(`POST ${route} without stream returns one object with usage`, async () => {
    const n = 4;
    const res = await post(sim.url, route, bodyFor(route, { n, prompt: PROMPT }));
    const j = assertJsonOk(res);
    assert.equal(j.object, chat ? 'chat.completion' : 'text_completion');
    assert.equal(typeof j.id, 'string');
    assert.ok(isPosInt(j.created));
    assert.equal(j.model, DEFAULT_MODEL);
    assert.equal(j.choices.length, 1);
    assert.equal(j.choices[0].index, 0);
    assert.equal(j.choices[0].finish_reason, 'length');
    if (chat) assert.equal(j.choices[0].message.role, 'assistant');
    const text = wholeText(route, j);
    assert.equal(text.split(' ').length, n);
    const p = chat ? 10 : 6;
    assert.deepEqual(j.usage, { prompt_tokens: p, completion_tokens: n, total_tokens: p + n });
    assertTimings(j.timings, { n, promptTokens: p });
  });
}

test('/v1/chat/completions honours max_completion_tokens', async () => {
  const body = oaiChat({ n: 9 });
  delete body.max_tokens;
  body.max_completion_tokens = 3;
  const j = assertJsonOk(await post(sim.url, '/v1/chat/completions', body));
  assert.equal(j.usage.completion_tokens, 3);
});

// ---- llama.cpp native ----------------------------------------------------

test('POST /completion streams SSE without [DONE]; the last chunk has stop:true and timings', async () => {
  const n = 5;
  const res = await post(sim.url, '/completion', { prompt: PROMPT, n_predict: n, stream: true });
  assert.equal(res.status, 200, res.body);
  assertSimulated(res);
  assertType(res, 'text/event-stream');
  const datas = strictSse(res.body);
  assert.ok(!datas.includes('[DONE]'), 'native streams do not end with [DONE]');
  const chunks = datas.map((d) => JSON.parse(d));
  assert.equal(chunks.length, n + 1);
  chunks.slice(0, -1).forEach((c, k) => {
    assert.equal(c.stop, false);
    assert.equal(typeof c.content, 'string');
    assert.ok(c.content.length > 0);
    assert.equal(c.tokens_predicted, k + 1);
  });
  const last = chunks.at(-1);
  assert.equal(last.stop, true);
  assert.equal(last.content, '');
  assert.equal(last.tokens_predicted, n);
  assert.equal(last.tokens_evaluated, 6);
  assert.equal(last.stop_type, 'limit');
  assert.equal(last.model, DEFAULT_MODEL);
  assertTimings(last.timings, { n, promptTokens: 6 });
});

test('POST /completion without stream returns one object; the model may be named or not', async () => {
  const n = 4;
  for (const model of [undefined, OTHER_MODEL]) {
    const j = assertJsonOk(await post(sim.url, '/completion', bodyFor('/completion', { n, prompt: PROMPT, model })));
    assert.equal(j.stop, true);
    assert.equal(j.tokens_predicted, n);
    assert.equal(j.tokens_evaluated, 6);
    assert.equal(j.stop_type, 'limit');
    assert.equal(j.model, model ?? DEFAULT_MODEL);
    assert.equal(j.content.split(' ').length, n);
    assertTimings(j.timings, { n, promptTokens: 6 });
  }
});

// ---- errors ----------------------------------------------------------------

async function assertStillServing(url) {
  assertJsonOk(await get(url, '/health'));
  const o = assertJsonOk(await post(url, '/api/generate', ollamaGenerate({ n: 2, stream: false })));
  assert.equal(o.eval_count, 2);
}

test('unknown model: 404 in each API\'s error shape', async () => {
  for (const route of INFERENCE_ROUTES) {
    for (const stream of [false, true]) {
      const res = await post(sim.url, route, bodyFor(route, { model: 'no-such-model', stream }));
      assertRouteError(route, res, 404, /no-such-model/);
      if (!isOllama(route)) assert.equal(res.json.error.type, 'not_found_error');
    }
  }
  await assertStillServing(sim.url);
});

test('bad JSON, missing model, missing prompt/messages: 400 naming the field', async () => {
  const cases = [];
  for (const route of INFERENCE_ROUTES) {
    cases.push([route, '{"model": ', /JSON/i]);
    cases.push([route, '[1,2]', /object/i]);
    const noModel = bodyFor(route, {});
    delete noModel.model;
    if (route !== '/completion') cases.push([route, noModel, /'model'/]); // llama.cpp serves its one model
    const badLimit = bodyFor(route, {});
    if (route === '/api/generate' || route === '/api/chat') badLimit.options.num_predict = 'x';
    else if (route === '/completion') badLimit.n_predict = 'x';
    else badLimit.max_tokens = 'x';
    cases.push([route, badLimit, /must be an integer/]);
  }
  cases.push(['/v1/completions', { model: DEFAULT_MODEL, max_tokens: 2 }, /'prompt'/]);
  cases.push(['/completion', { n_predict: 2 }, /'prompt'/]);
  cases.push(['/v1/chat/completions', { model: DEFAULT_MODEL, max_tokens: 2 }, /'messages'/]);
  cases.push(['/v1/chat/completions', { model: DEFAULT_MODEL, messages: [] }, /'messages'/]);
  cases.push(['/api/chat', { model: DEFAULT_MODEL, messages: 'hi' }, /'messages'/]);
  cases.push(['/v1/completions', { model: DEFAULT_MODEL, prompt: 42 }, /'prompt'/]);
  cases.push(['/v1/completions', { ...oaiCompletion(), stream: 'yes' }, /'stream'/]);
  for (const [route, body, re] of cases) {
    const res = await post(sim.url, route, body);
    assertRouteError(route, res, 400, re);
    if (!isOllama(route)) assert.equal(res.json.error.type, 'invalid_request_error');
    assertJsonOk(await get(sim.url, '/health'));
  }
  await assertStillServing(sim.url);
});

test('wrong method: 405 with Allow; unknown path: 404', async () => {
  for (const [method, p, allow] of [
    ['GET', '/v1/completions', 'POST'],
    ['GET', '/api/generate', 'POST'],
    ['PUT', '/v1/chat/completions', 'POST'],
    ['POST', '/api/tags', 'GET'],
    ['DELETE', '/health', 'GET'],
  ]) {
    const res = await request(sim.url, { method, path: p });
    // Under /api/ the error takes Ollama's shape, elsewhere OpenAI's.
    (p.startsWith('/api/') ? assertOllamaError : assertOpenAIError)(res, 405, new RegExp(allow));
    assert.equal(res.headers.allow, allow);
  }
  for (const p of ['/nope', '/v1/nope', '/api/generate/x', '/v2/completions']) {
    const check = p.startsWith('/api/') ? assertOllamaError : assertOpenAIError;
    check(await get(sim.url, p), 404, /no such route/);
    check(await post(sim.url, p, {}), 404);
  }
  await assertStillServing(sim.url);
});

test('a body larger than --max-body-bytes gets 413 in the API\'s shape', async (t) => {
  const small = await startSim(['--max-body-bytes', '2048', '--ttft-ms', '1', '--decode-tps', '2000'], { t });
  const prompt = 'word '.repeat(800); // ~4 KB
  for (const route of INFERENCE_ROUTES) {
    const res = await post(small.url, route, bodyFor(route, { prompt, n: 2 }));
    assertRouteError(route, res, 413, /2048/);
  }
  // Just under the limit still works.
  const ok = await post(small.url, '/api/generate', ollamaGenerate({ prompt: 'word '.repeat(300), n: 2, stream: false }));
  assert.equal(assertJsonOk(ok).prompt_eval_count, 301);
  await assertStillServing(small.url);
});

test('x-truecost-simulated: 1 on every kind of response', async () => {
  const reqs = [
    ['GET', '/'],
    ['GET', '/api/version'],
    ['GET', '/api/tags'],
    ['GET', '/api/ps'],
    ['POST', '/api/show', { model: DEFAULT_MODEL }],
    ['POST', '/api/show', { model: 'x' }],
    ['GET', '/v1/models'],
    ['GET', '/health'],
    ['GET', '/props'],
    ['GET', '/missing'],
    ['GET', '/v1/completions'],
    ['POST', '/v1/completions', '{'],
    ...INFERENCE_ROUTES.flatMap((r) => [
      ['POST', r, bodyFor(r, { n: 2, stream: true })],
      ['POST', r, bodyFor(r, { n: 2, stream: false })],
      ['POST', r, bodyFor(r, { n: 2, model: 'x' })],
    ]),
  ];
  for (const [method, p, body] of reqs) {
    const res = await request(sim.url, { method, path: p, body });
    assertSimulated(res, `on ${method} ${p} (${res.status})`);
  }
});

// ---- text ------------------------------------------------------------------

test('same prompt, same text; another prompt, another text', async () => {
  for (const route of INFERENCE_ROUTES) {
    const a = wholeText(route, assertJsonOk(await post(sim.url, route, bodyFor(route, { n: 8 }))));
    const b = wholeText(route, assertJsonOk(await post(sim.url, route, bodyFor(route, { n: 8 }))));
    const c = wholeText(route, assertJsonOk(await post(sim.url, route, bodyFor(route, { n: 8, prompt: 'Why is grass green?' }))));
    assert.equal(a, b, `${route} is deterministic`);
    assert.notEqual(a, c, `${route} depends on the prompt`);
  }
  // The completion is a function of (seed, prompt): the plain-prompt routes agree,
  // and so do the two chat routes.
  const texts = {};
  for (const route of INFERENCE_ROUTES) texts[route] = wholeText(route, (await post(sim.url, route, bodyFor(route, { n: 8 }))).json);
  assert.equal(texts['/v1/completions'], texts['/api/generate']);
  assert.equal(texts['/completion'], texts['/api/generate']);
  assert.equal(texts['/v1/chat/completions'], texts['/api/chat']);
});

test('another --seed gives another text; the same seed the same text', async (t) => {
  const s2 = await startSim(['--seed', '2', '--ttft-ms', '1', '--decode-tps', '2000'], { t });
  const s1 = await startSim(['--seed', '1', '--ttft-ms', '1', '--decode-tps', '2000'], { t });
  for (const route of INFERENCE_ROUTES) {
    const body = bodyFor(route, { n: 8 });
    const a = wholeText(route, assertJsonOk(await post(sim.url, route, body))); // default seed 1
    const b = wholeText(route, assertJsonOk(await post(s2.url, route, body)));
    const c = wholeText(route, assertJsonOk(await post(s1.url, route, body)));
    assert.notEqual(a, b, `${route}: seed 2 differs from seed 1`);
    assert.equal(a, c, `${route}: seed 1 is the default`);
  }
});

test('the streamed text concatenated equals the stream:false text', async () => {
  for (const route of INFERENCE_ROUTES) {
    for (const n of [1, 7]) {
      const whole = wholeText(route, assertJsonOk(await post(sim.url, route, bodyFor(route, { n }))));
      const res = await post(sim.url, route, bodyFor(route, { n, stream: true, usage: true }));
      assert.equal(res.status, 200);
      const { text, pieces } = streamedText(route, res.body);
      assert.equal(text, whole, `${route} n=${n}`);
      assert.equal(pieces, n, `${route}: one text chunk per token`);
    }
  }
});

// ---- timing ----------------------------------------------------------------

test('--decode-tps 50: tokens ~20 ms apart, and the server reports ~50 tokens/s', async (t) => {
  // --ttft-ms 40 keeps the TTFT (40 ms + 6 prompt tokens / 2000 per s) above one
  // decode step, so prompt_eval_duration (TTFT less the first step) is not 0.
  const slow = await startSim(['--decode-tps', '50', '--ttft-ms', '40'], { t });
  const n = 16;
  const [nd, sse] = await Promise.all([
    post(slow.url, '/api/generate', ollamaGenerate({ n, stream: true })),
    post(slow.url, '/v1/completions', oaiCompletion({ n, stream: true })),
  ]);
  assert.equal(nd.status, 200);
  assert.equal(sse.status, 200);
  // NDJSON: gaps between the token lines (the done line follows the last token at once).
  const times = ndjsonLineTimes(nd.chunks).slice(0, n);
  assert.equal(times.length, n);
  const g = gaps(times);
  const m = median(g);
  assert.ok(m >= 12 && m <= 28, `median NDJSON gap ${m.toFixed(2)} ms, want 20 ± 8 (gaps ${g.map((x) => x.toFixed(1)).join(' ')})`);
  const span = times.at(-1) - times[0];
  assert.ok(span >= (n - 1) * 20 * 0.85 && span <= (n - 1) * 20 * 1.5, `first to last token ${span.toFixed(1)} ms`);

  const done = parseNdjson(nd.body).at(-1);
  const rate = (done.eval_count / done.eval_duration) * 1e9;
  assert.ok(rate > 50 * 0.85 && rate < 50 * 1.15, `server-reported decode rate ${rate.toFixed(2)} tokens/s, want ~50`);
  // prompt_eval_duration = TTFT (43 ms) less the first decode step (20 ms). The
  // bound is loose: under load the simulator's timers can fire a few ms before
  // their due time (libevent arms them from its cached loop time).
  assert.ok(done.prompt_eval_duration >= 23e6 * 0.6, `prompt_eval_duration ${done.prompt_eval_duration} ns`);
  assert.equal(done.load_duration + done.prompt_eval_duration + done.eval_duration, done.total_duration);

  // SSE: the server's own timings agree as well.
  const last = sseEvents(sse.body)
    .map((e) => e.data)
    .filter((d) => d && d !== '[DONE]')
    .map((d) => JSON.parse(d))
    .at(-1);
  const perTok = last.timings.predicted_per_token_ms;
  assert.ok(perTok > 20 * 0.85 && perTok < 20 * 1.15, `timings.predicted_per_token_ms ${perTok}`);
});

test('--max-batch 2: six concurrent streams slow down, the aggregate rate saturates', async (t) => {
  const tps = 200;
  const batch = 2;
  const n = 20;
  const s = await startSim(['--decode-tps', String(tps), '--max-batch', String(batch), '--ttft-ms', '2'], { t });
  const run = async (k) => {
    const t0 = performance.now();
    const rs = await within(
      Promise.all(Array.from({ length: k }, (_, i) => post(s.url, '/api/generate', ollamaGenerate({ n, stream: true, prompt: `stream ${i}` })))),
      15_000,
      `${k} streams`,
    );
    const wall = performance.now() - t0;
    for (const r of rs) assert.equal(parseNdjson(r.body).at(-1).eval_count, n);
    return { wall, rates: rs.map((r) => { const d = parseNdjson(r.body).at(-1); return (d.eval_count / d.eval_duration) * 1e9; }) };
  };
  const one = await run(1);
  const six = await run(6);
  const aggregate = (6 * n) / (six.wall / 1000);
  // Alone: ~100 ms. Six on a batch of 2: each at a third of the speed, ~300 ms.
  assert.ok(six.wall >= 2 * one.wall, `6 streams took ${six.wall.toFixed(0)} ms, 1 took ${one.wall.toFixed(0)} ms`);
  assert.ok(aggregate <= 1.5 * tps * batch, `aggregate ${aggregate.toFixed(0)} tokens/s, saturation at ${tps * batch}`);
  assert.ok(one.rates[0] > tps * 0.8, `one stream decodes at ${one.rates[0].toFixed(1)}`);
  for (const r of six.rates) assert.ok(r < tps * 0.6, `a stream in a full batch decodes at ${r.toFixed(1)} tokens/s`);
});

test('a client that hangs up mid-stream does not disturb the server', async (t) => {
  const s = await startSim(['--decode-tps', '200', '--ttft-ms', '1'], { t });
  for (const route of INFERENCE_ROUTES) {
    let cut = false;
    const res = await request(s.url, {
      method: 'POST',
      path: route,
      body: bodyFor(route, { n: 50, stream: true }),
      onChunk: (c, req) => {
        if (!cut && c.text.includes(isOllama(route) ? '"done":false' : '"index":0')) {
          cut = true;
          req.destroy();
        }
      },
    });
    assert.ok(cut, `${route}: got a chunk before hanging up (${res.status})`);
    // and a non-streamed request whose client leaves during the prefill
    const gone = request(s.url, { method: 'POST', path: route, body: bodyFor(route, { n: 50 }), timeoutMs: 20 });
    await assert.rejects(gone);
  }
  await assertStillServing(s.url);
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
});

test('the shared server exits 0 on SIGINT with a clean report', async () => {
  const r = await sim.stop();
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.signal, null);
  assert.match(r.stderr, /^truecost sim: stopped after \d+ requests, \d+ tokens \(SIMULATED\)\n$/);
  assert.match(r.stdout, /SIMULATED inference server listening on http:\/\/127\.0\.0\.1:\d+/);
});
