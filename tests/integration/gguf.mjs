// Writes small GGUF and safetensors files for the tests of `truecost fit`,
// independently of truecost's own readers: GGUF version 3 as ggml's
// gguf.cpp reads it (little-endian; metadata; tensor infos; data aligned to
// 32 bytes), and a llama-architecture model with random weights and the
// tokenizer metadata llama.cpp needs to load it.
import { truncateSync, writeFileSync } from 'node:fs';

// ggml type ids and their blocks (values per block, bytes per block).
export const GGML = {
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2 },
  Q4_0: { id: 2, block: 32, bytes: 18 },
  Q8_0: { id: 8, block: 32, bytes: 34 },
  Q4_K: { id: 12, block: 256, bytes: 144 },
  Q6_K: { id: 14, block: 256, bytes: 210 },
  BF16: { id: 30, block: 1, bytes: 2 },
};

const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10 };

class Out {
  constructor() {
    this.parts = [];
    this.length = 0;
  }
  push(buf) {
    this.parts.push(buf);
    this.length += buf.length;
  }
  u32(v) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  bytes() {
    return Buffer.concat(this.parts);
  }
}

// A metadata value: [type, value]; arrays as [T.ARRAY, [elemType, values]].
function writeValue(o, type, v) {
  o.u32(type);
  if (type === T.U32) o.u32(v);
  else if (type === T.I32) o.i32(v);
  else if (type === T.U64) o.u64(v);
  else if (type === T.F32) o.f32(v);
  else if (type === T.BOOL) o.push(Buffer.from([v ? 1 : 0]));
  else if (type === T.STRING) o.str(v);
  else if (type === T.ARRAY) {
    const [et, vals] = v;
    o.u32(et);
    o.u64(vals.length);
    for (const x of vals) {
      if (et === T.STRING) o.str(x);
      else if (et === T.F32) o.f32(x);
      else if (et === T.I32) o.i32(x);
      else if (et === T.U32) o.u32(x);
      else throw new Error(`array of type ${et}`);
    }
  } else throw new Error(`type ${type}`);
}

// The bytes of a tensor of `type` with `dims` (ne[0] first), from `rand`.
export function tensorBytes(type, dims, rand) {
  const n = dims.reduce((a, b) => a * b, 1);
  const t = GGML[type];
  if (dims[0] % t.block) throw new Error(`${type}: ne[0] ${dims[0]} not a multiple of ${t.block}`);
  const size = (n / t.block) * t.bytes;
  const b = Buffer.alloc(size);
  if (type === 'F32') for (let i = 0; i < n; i++) b.writeFloatLE(1 + (rand() - 0.5) * 0.01, 4 * i);
  else if (type === 'F16') for (let i = 0; i < n; i++) b.writeUInt16LE(f16((rand() - 0.5) * 0.05), 2 * i);
  else if (type === 'Q8_0')
    for (let k = 0; k < n / 32; k++) {
      b.writeUInt16LE(f16(0.0005), 34 * k); // the block's scale
      for (let i = 0; i < 32; i++) b.writeInt8(Math.floor(rand() * 200) - 100, 34 * k + 2 + i);
    }
  else if (type === 'Q4_0')
    for (let k = 0; k < n / 32; k++) {
      b.writeUInt16LE(f16(0.002), 18 * k);
      for (let i = 0; i < 16; i++) b[18 * k + 2 + i] = Math.floor(rand() * 256);
    }
  // other types: zero blocks (a header-only test does not read them)
  return b;
}

// IEEE half precision bits of v (normal numbers and zero; enough here).
function f16(v) {
  if (v === 0) return 0;
  const sign = v < 0 ? 0x8000 : 0;
  let a = Math.abs(v);
  let e = Math.floor(Math.log2(a));
  if (e < -14) return sign; // flush tiny values
  let m = Math.round((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  return sign | ((e + 15) << 10) | m;
}

// A seeded generator (mulberry32), so the files are the same each run.
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes a GGUF file: meta is [[key, type, value]], tensors [{name, type,
 * dims, data?}] (data: a Buffer, or generated from rand; withData false:
 * the data section is a hole of the right size). Returns the tensors with
 * their `bytes`.
 */
export function writeGguf(path, meta, tensors, { rand = rng(1), alignment = 32, withData = true } = {}) {
  const o = new Out();
  o.push(Buffer.from('GGUF'));
  o.u32(3);
  o.u64(tensors.length);
  o.u64(meta.length);
  for (const [k, type, v] of meta) {
    o.str(k);
    writeValue(o, type, v);
  }
  let offset = 0;
  const datas = [];
  for (const t of tensors) {
    const data = withData ? t.data ?? tensorBytes(t.type, t.dims, rand) : null;
    const size = (t.dims.reduce((a, b) => a * b, 1) / GGML[t.type].block) * GGML[t.type].bytes;
    t.bytes = size;
    o.str(t.name);
    o.u32(t.dims.length);
    for (const d of t.dims) o.u64(d);
    o.u32(GGML[t.type].id);
    o.u64(offset);
    datas.push([offset, data]);
    offset += Math.ceil(size / alignment) * alignment;
  }
  const header = o.bytes();
  const start = Math.ceil(header.length / alignment) * alignment;
  const file = Buffer.alloc(withData ? start + offset : start);
  header.copy(file, 0);
  if (withData) for (const [off, data] of datas) data.copy(file, start + off);
  writeFileSync(path, file);
  if (!withData) truncateSync(path, start + offset); // the data as a hole: sparse, never written
  return tensors;
}

/** The metadata and tensors of a small llama model. */
export function llamaModel({ embd = 256, layers = 4, heads = 4, kvHeads = 2, ff = 768, ctx = 4096,
                             types = { embd: 'F16', attn: 'F16', ffn: 'F16', out: 'F16' } } = {}) {
  const vocab = ['<unk>', '<s>', '</s>'];
  for (let i = 0; i < 256; i++) vocab.push(`<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`);
  const ttype = vocab.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : 6));
  const headDim = embd / heads;
  const meta = [
    ['general.architecture', T.STRING, 'llama'],
    ['general.name', T.STRING, 'truecost-test-llama'],
    ['llama.context_length', T.U32, ctx],
    ['llama.embedding_length', T.U32, embd],
    ['llama.block_count', T.U32, layers],
    ['llama.feed_forward_length', T.U32, ff],
    ['llama.attention.head_count', T.U32, heads],
    ['llama.attention.head_count_kv', T.U32, kvHeads],
    ['llama.rope.dimension_count', T.U32, headDim],
    ['llama.attention.layer_norm_rms_epsilon', T.F32, 1e-5],
    ['tokenizer.ggml.model', T.STRING, 'llama'],
    ['tokenizer.ggml.tokens', T.ARRAY, [T.STRING, vocab]],
    ['tokenizer.ggml.scores', T.ARRAY, [T.F32, vocab.map(() => 0)]],
    ['tokenizer.ggml.token_type', T.ARRAY, [T.I32, ttype]],
    ['tokenizer.ggml.bos_token_id', T.U32, 1],
    ['tokenizer.ggml.eos_token_id', T.U32, 2],
    ['tokenizer.ggml.unknown_token_id', T.U32, 0],
  ];
  const kv = kvHeads * headDim;
  const tensors = [{ name: 'token_embd.weight', type: types.embd, dims: [embd, vocab.length] }];
  for (let l = 0; l < layers; l++) {
    const b = `blk.${l}.`;
    tensors.push(
      { name: `${b}attn_norm.weight`, type: 'F32', dims: [embd] },
      { name: `${b}attn_q.weight`, type: types.attn, dims: [embd, embd] },
      { name: `${b}attn_k.weight`, type: types.attn, dims: [embd, kv] },
      { name: `${b}attn_v.weight`, type: types.attn, dims: [embd, kv] },
      { name: `${b}attn_output.weight`, type: types.attn, dims: [embd, embd] },
      { name: `${b}ffn_norm.weight`, type: 'F32', dims: [embd] },
      { name: `${b}ffn_gate.weight`, type: types.ffn, dims: [embd, ff] },
      { name: `${b}ffn_up.weight`, type: types.ffn, dims: [embd, ff] },
      { name: `${b}ffn_down.weight`, type: types.ffn, dims: [ff, embd] },
    );
  }
  tensors.push({ name: 'output_norm.weight', type: 'F32', dims: [embd] },
               { name: 'output.weight', type: types.out, dims: [embd, vocab.length] });
  return { meta, tensors, vocab: vocab.length, headDim };
}

export { T as GGUF_TYPE };

/** Writes a safetensors file: tensors [{name, dtype, shape, bytesPer}]. */
export function writeSafetensors(path, tensors, { metadata = { format: 'pt' } } = {}) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const size = n * t.bytesPer;
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + size] };
    t.bytes = size;
    offset += size;
  }
  let text = Buffer.from(JSON.stringify(header), 'utf8');
  const pad = (8 - (text.length % 8)) % 8; // the format pads its header with spaces
  text = Buffer.concat([text, Buffer.alloc(pad, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  writeFileSync(path, Buffer.concat([len, text, Buffer.alloc(offset)]));
  return tensors;
}
