// Run by test/platform/abi.test.ts under each Node runtime: loads better-sqlite3 and the
// sqlite-vec loadable from an extracted VSIX (argv[2]) by explicit path, builds a small memory
// in a real file (argv[3]) and answers one hybrid query (vec0 KNN + FTS5 BM25, fused by RRF).
// Prints one JSON line: the runtime, the native files it loaded, and the ranked answer.
'use strict';
const path = require('node:path');
const ext = process.argv[2];
const file = process.argv[3];
const Database = require(path.join(ext, 'node_modules', 'better-sqlite3'));
const vecFile = path.join(ext, 'native', 'sqlite-vec-linux-x64', 'vec0.so');
const db = new Database(file);
db.loadExtension(vecFile);
const dim = 32;
const vector = (seed) => {
  const v = new Float32Array(dim);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < dim; i++) { x = (x * 1103515245 + 12345) % 2147483648; v[i] = x / 2147483648 - 0.5; }
  return v;
};
const words = ['aspirin', 'insulin', 'heparin', 'warfarin', 'metformin', 'lisinopril', 'danazol', 'glucose'];
db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS vecs USING vec0(embedding float[${dim}]); CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(question)`);
if (db.prepare('SELECT COUNT(*) AS n FROM docs').get().n === 0) {
  const addVec = db.prepare('INSERT INTO vecs(rowid, embedding) VALUES (?, ?)');
  const addDoc = db.prepare('INSERT INTO docs(rowid, question) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 500; i++) {
      addVec.run(BigInt(i), Buffer.from(vector(i).buffer));
      addDoc.run(i, `how many patients were prescribed ${words[i % words.length]} in ${2100 + (i % 7)} case ${i}`);
    }
  })();
}
const query = vector(42);
const dense = db.prepare('SELECT rowid AS id, distance FROM vecs WHERE embedding MATCH ? AND k = 10').all(Buffer.from(query.buffer));
const keyword = db.prepare("SELECT rowid AS id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10").all('danazol AND 2100');
const fused = new Map();
dense.forEach((r, i) => fused.set(r.id, (fused.get(r.id) || 0) + 1 / (60 + i + 1)));
keyword.forEach((r, i) => fused.set(r.id, (fused.get(r.id) || 0) + 1 / (60 + i + 1)));
const hybrid = [...fused].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 5).map(([id]) => id);
db.close();
const natives = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
process.stdout.write(JSON.stringify({
  node: process.versions.node, modules: process.versions.modules, napi: process.versions.napi,
  addons: natives, vecFile, dense: dense.map((r) => r.id), keyword: keyword.map((r) => r.id), hybrid,
}) + '\n');
