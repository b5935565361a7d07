/** pgvector's text form: `[0.1,0.2,…]`. float32 values print and parse back exactly (shortest round-trip form). */
export function vectorLiteral(v: Float32Array): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + String(v[i]);
  return out + ']';
}

export function parseVector(text: string): Float32Array {
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  return body === '' ? new Float32Array(0) : Float32Array.from(body.split(','), Number);
}
