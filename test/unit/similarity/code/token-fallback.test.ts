import { strict as assert } from 'node:assert';
import { codeSimilarityDetail } from '../../../../src/core/similarity/code';
import { lineShapes } from '../../../../src/core/similarity/code/line-fallback';
import { languageInfo } from '../../../../src/core/similarity/code/languages';

const GO_SUM = 'func sum(xs []int) int {\n  total := 0\n  for _, x := range xs {\n    total += x\n  }\n  return total\n}';
const GO_SUM_RENAMED = '// sums the values\nfunc add(values []int) int {\n  acc := 0\n  for _, v := range values {\n    acc += v\n  }\n  return acc\n}';
const GO_HTTP = 'func main() {\n  http.HandleFunc("/", handler)\n  log.Fatal(http.ListenAndServe(":8080", nil))\n}';

describe('code similarity: token-level fallback for languages without a structural measure', () => {
  it('scores renamed Go code as the same shape, and different code lower', () => {
    const same = codeSimilarityDetail(GO_SUM, GO_SUM_RENAMED, 'go');
    assert.equal(same.method, 'line-fallback');
    assert.equal(same.score, 1);
    const other = codeSimilarityDetail(GO_SUM, GO_HTTP, 'go');
    assert.ok(other.score < 0.5, `different Go programs scored ${other.score}`);
  });

  it('keeps keywords of other languages, drops literals and comments', () => {
    assert.deepEqual(lineShapes('fn main() { let x = "a"; } // c\n# a shell comment\n  -- a sql comment', 'rust'), ['fn id ( ) { let id = ; }']);
    assert.deepEqual(lineShapes('x--', 'c'), ['id - -']);
  });

  it('still parses python and javascript structurally', () => {
    assert.equal(codeSimilarityDetail('a = f(x)\n', 'b = f(y)\n', 'python').method, 'structural');
    assert.equal(codeSimilarityDetail('const a = f(x);', 'const b = f(y);', 'javascript').method, 'structural');
  });

  it('knows file extensions and comment markers for editors, with neutral defaults', () => {
    assert.deepEqual(languageInfo('go'), { structural: false, extension: 'go', lineComment: '//' });
    assert.deepEqual(languageInfo('python'), { structural: true, extension: 'py', lineComment: '#' });
    assert.deepEqual(languageInfo('zig-like'), { structural: false, extension: 'txt', lineComment: '//' });
  });
});
