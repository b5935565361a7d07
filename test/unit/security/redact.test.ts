import { strict as assert } from 'node:assert';
import { marker, redact, redactJson, SecretKind } from '../../../src/core/security/redact';

/** Deterministic random-looking strings (the corpus must not hold real keys). */
function fake(length: number, seed: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let x = seed * 2654435761 + 7;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor((x / 2147483648) * alphabet.length)];
  }
  return out;
}
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URLSAFE = B62 + '-_';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = B62 + '+/';

const openaiLegacy = `sk-${fake(48, 1)}`;
const openaiProject = `sk-proj-${fake(40, 2, URLSAFE)}T3BlbkFJ${fake(40, 3, URLSAFE)}`;
const anthropic = `sk-ant-api03-${fake(93, 4, URLSAFE)}AA`;
const awsAccess = `AKIA${fake(16, 5, UPPER_NUM)}`;
const awsSecret = fake(40, 6, B64);
const github = `ghp_${fake(36, 7)}`;
const githubFine = `github_pat_11${fake(20, 8, UPPER_NUM)}_${fake(59, 9)}`;
const slack = `xoxb-${fake(12, 10, '0123456789')}-${fake(13, 11, '0123456789')}-${fake(24, 12)}`;
const slackHook = `https://hooks.slack.com/services/T${fake(8, 13, UPPER_NUM)}/B${fake(8, 14, UPPER_NUM)}/${fake(24, 15)}`;
const google = `AIza${fake(35, 16, URLSAFE)}`;
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.${fake(43, 17, URLSAFE)}`;
const pem = `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${fake(60, 18, B64)}\n${fake(64, 19, B64)}\n-----END RSA PRIVATE KEY-----`;
const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${fake(50, 20, B64)}\n-----END OPENSSH PRIVATE KEY-----`;
const entropy = fake(40, 21, B64);

/** Each case: text holding one secret, the secret's kind, and the secret itself (must vanish). */
const SECRETS: { name: string; text: string; kind: SecretKind; secret: string }[] = [
  { name: 'OpenAI legacy key in code', text: `client = OpenAI(api_key="${openaiLegacy}")`, kind: 'openai-key', secret: openaiLegacy },
  { name: 'OpenAI project key in prose', text: `my key is ${openaiProject} please use it`, kind: 'openai-key', secret: openaiProject },
  { name: 'Anthropic key', text: `ANTHROPIC_API_KEY=${anthropic}`, kind: 'anthropic-key', secret: anthropic },
  { name: 'AWS access key id', text: `aws_access_key_id = ${awsAccess}`, kind: 'aws-access-key', secret: awsAccess },
  { name: 'AWS secret access key', text: `aws_secret_access_key = ${awsSecret}`, kind: 'aws-secret-key', secret: awsSecret },
  { name: 'GitHub classic token', text: `git clone with token ${github}`, kind: 'github-token', secret: github },
  { name: 'GitHub fine-grained token', text: `GH=${githubFine}`, kind: 'github-token', secret: githubFine },
  { name: 'Slack bot token', text: `slack_client.token is ${slack}`, kind: 'slack-token', secret: slack },
  { name: 'Slack webhook', text: `requests.post("${slackHook}", json=msg)`, kind: 'slack-webhook', secret: slackHook.split('/services/')[1] },
  { name: 'Google API key', text: `const url = "https://maps.googleapis.com/maps/api?key=${google}&q=x"`, kind: 'google-api-key', secret: google },
  { name: 'JWT', text: `Authorization: Bearer ${jwt}`, kind: 'jwt', secret: jwt.split('.')[2] },
  { name: 'PEM private key', text: `key = """${pem}"""`, kind: 'private-key', secret: pem.split('\n')[2] },
  { name: 'OpenSSH private key', text: openssh, kind: 'private-key', secret: 'b3BlbnNzaC1rZXktdjEAAAAA' },
  { name: 'unterminated private key block', text: `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC${fake(20, 22, B64)}`, kind: 'private-key', secret: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' },
  { name: 'password assignment (python)', text: `password = "hunter2!"\nconn = connect(user, password)`, kind: 'assignment', secret: 'hunter2!' },
  { name: 'secret assignment (js)', text: `const clientSecret = 'correct horse battery staple';`, kind: 'assignment', secret: 'correct horse battery staple' },
  { name: 'token in JSON', text: `{"auth_token": "abc123def456", "user": "bob"}`, kind: 'assignment', secret: 'abc123def456' },
  { name: 'password in .env (unquoted)', text: `DB_PASSWORD=s3cr3tPassw0rd\nDB_HOST=localhost`, kind: 'assignment', secret: 's3cr3tPassw0rd' },
  { name: 'URL with credentials', text: `engine = create_engine("postgresql://admin:Tr0ub4dor@db.internal:5432/mimic")`, kind: 'url-credentials', secret: 'Tr0ub4dor' },
  { name: 'high-entropy fallback', text: `headers = {"X-Custom": "${entropy}"}`, kind: 'high-entropy', secret: entropy },
];

/** Texts that must come out unchanged. */
const NEAR_MISSES: { name: string; text: string }[] = [
  { name: 'ordinary SQL', text: "SELECT COUNT(DISTINCT subject_id) FROM admissions WHERE admittime >= '2104-01-01' AND admission_type = 'EMERGENCY'" },
  { name: 'SQL with join and itemid', text: "select avg(valuenum) from chartevents join d_items on chartevents.itemid = d_items.itemid where d_items.label = 'heart rate' and icustay_id = 211552" },
  { name: 'sha256 hex in code', text: `expected = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"` },
  { name: 'git commit id', text: 'fixed in 97d0e4e5c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6' },
  { name: 'UUIDs', text: "record_id = '3f2b8c1e-9a7d-4e6f-8b5a-1c2d3e4f5a6b'; other = 550e8400-e29b-41d4-a716-446655440000" },
  { name: 'base64 of short words', text: 'data = base64.b64decode("aGVsbG8gd29ybGQ=")  # hello world' },
  { name: 'long identifiers', text: 'def getPatientAdmissionsByIcd9CodeAndYear2104(subjectIdentifier, admissionType): return computeAverageLengthOfStayPerCareUnit(x)' },
  { name: 'long snake_case identifier', text: 'total_number_of_emergency_admissions_in_year_2104 = count_admissions_by_type_and_year(2104)' },
  { name: 'MIMIC values', text: "patient 10006 icd9_code '4019' hadm_id 142345 valuenum 98.6 charttime '2104-08-07 10:00:00' drug 'Vancomycin 1g/200ml'" },
  { name: 'file paths', text: '/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so' },
  { name: 'token counting code', text: 'tokens = tokenize(text)\nmax_tokens = 512\ntoken_count = len(tokens)' },
  { name: 'password from a function or env', text: "password = getpass.getpass()\ntoken = os.environ['GITHUB_TOKEN']\nsecret = config.secret_value" },
  { name: 'password comparison', text: "if password == 'x' or token != None:\n    pass" },
  { name: 'URL without credentials', text: 'see https://mimic.mit.edu/docs/iii/tables/admissions/ and git@github.com:org/repo.git' },
  { name: 'email and mention', text: 'contact alice@example.com about the secret santa list' },
  { name: 'number lists', text: 'answer = [[1234567890123456789012345678901234567890]]' },
  { name: 'short sk- names', text: 'import sklearn; task-runner sk-learn-estimator-wrapper-class-name' },
  { name: 'names about secrets', text: "export type TokenKind = 'word' | 'number';\nconst API_KEY_SETTING = 'agentMemory.model.apiKey';\nconst API_KEY = 'agentMemory.model.apiKey';" },
  { name: 'already redacted', text: `password = "${marker('assignment')}" and ${marker('openai-key')}` },
];

describe('redact', () => {
  for (const c of SECRETS) {
    it(`redacts: ${c.name}`, () => {
      const result = redact(c.text);
      assert.ok(!result.text.includes(c.secret), `secret still present in: ${result.text}`);
      assert.ok(result.text.includes(marker(c.kind)), `expected ${marker(c.kind)} in: ${result.text} (got ${JSON.stringify(result.byKind)})`);
      assert.ok((result.byKind[c.kind] ?? 0) >= 1);
      assert.equal(result.count, Object.values(result.byKind).reduce((a, b) => a + b, 0));
    });
  }

  for (const c of NEAR_MISSES) {
    it(`keeps: ${c.name}`, () => {
      const result = redact(c.text);
      assert.equal(result.text, c.text, `changed (${JSON.stringify(result.byKind)})`);
      assert.equal(result.count, 0);
    });
  }

  it('is idempotent and counts several secrets by kind', () => {
    const text = `a=${openaiLegacy} b=${github} c=${github.replace('ghp_', 'gho_')}`;
    const once = redact(text);
    assert.equal(once.count, 3);
    assert.deepEqual(once.byKind, { 'openai-key': 1, 'github-token': 2 });
    const twice = redact(once.text);
    assert.equal(twice.text, once.text);
    assert.equal(twice.count, 0);
  });

  it('keeps the host of a URL with credentials', () => {
    assert.equal(redact('mysql://root:pw1234@127.0.0.1/db').text, `mysql://${marker('url-credentials')}@127.0.0.1/db`);
  });

  it('redacts JSON values deeply, including whole values under secret-named keys', () => {
    const { value, count } = redactJson({ apiKey: 'plain-words-key', nested: [{ note: `use ${github}` }], n: 3, ok: 'hello' });
    assert.deepEqual(value, { apiKey: marker('assignment'), nested: [{ note: `use ${marker('github-token')}` }], n: 3, ok: 'hello' });
    assert.equal(count, 2);
  });

  it('leaves a large ordinary program unchanged', () => {
    const program = Array.from({ length: 400 }, (_, i) => `rows_${i} = sql("SELECT subject_id, hadm_id FROM admissions WHERE hadm_id = ${100000 + i}")`).join('\n');
    assert.equal(redact(program).text, program);
  });
});
