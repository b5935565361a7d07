/**
 * What is known about a code language by name: whether code similarity has a
 * structural measure for it (otherwise the token-level fallback applies), its
 * usual file extension (so editors highlight it) and its line-comment marker.
 * Records may carry any language; unknown names get neutral defaults.
 *
 * @example
 * languageInfo('go'); // { structural: false, extension: 'go', lineComment: '//' }
 */
export interface LanguageInfo {
  structural: boolean;
  extension: string;
  lineComment: string;
}

/** Languages with a structural (syntax-tree) similarity measure. */
export const STRUCTURAL_LANGUAGES = ['python', 'javascript'] as const;
export type StructuralLanguage = (typeof STRUCTURAL_LANGUAGES)[number];

const KNOWN: Record<string, [extension: string, lineComment: string]> = {
  python: ['py', '#'],
  javascript: ['js', '//'],
  typescript: ['ts', '//'],
  tsx: ['tsx', '//'],
  jsx: ['jsx', '//'],
  go: ['go', '//'],
  rust: ['rs', '//'],
  java: ['java', '//'],
  kotlin: ['kt', '//'],
  swift: ['swift', '//'],
  c: ['c', '//'],
  'c++': ['cpp', '//'],
  cpp: ['cpp', '//'],
  'c#': ['cs', '//'],
  csharp: ['cs', '//'],
  php: ['php', '//'],
  ruby: ['rb', '#'],
  shell: ['sh', '#'],
  bash: ['sh', '#'],
  sh: ['sh', '#'],
  powershell: ['ps1', '#'],
  r: ['r', '#'],
  perl: ['pl', '#'],
  yaml: ['yaml', '#'],
  toml: ['toml', '#'],
  sql: ['sql', '--'],
  lua: ['lua', '--'],
  haskell: ['hs', '--'],
  scala: ['scala', '//'],
  dart: ['dart', '//'],
  html: ['html', '//'],
  css: ['css', '//'],
  markdown: ['md', '//'],
};

export function isStructuralLanguage(language: string): language is StructuralLanguage {
  return (STRUCTURAL_LANGUAGES as readonly string[]).includes(language);
}

export function languageInfo(language: string): LanguageInfo {
  const known = KNOWN[language.toLowerCase()];
  return { structural: isStructuralLanguage(language), extension: known?.[0] ?? 'txt', lineComment: known?.[1] ?? '//' };
}
