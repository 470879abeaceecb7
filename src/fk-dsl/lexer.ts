import { FkDslSyntaxError } from './errors.ts';

/**
 * Tokens of FK-DSL. Keywords are not tokens of their own: they are words the parser recognises
 * by position, case-insensitively, so a ticker that happens to be a keyword can still be written
 * (quoted when it would be ambiguous: "ON").
 */
export type TokenType =
  | 'word'
  | 'string'
  | 'number'
  | 'duration'
  | 'percent'
  | 'colon'
  | 'comma'
  | 'semicolon'
  | 'lparen'
  | 'rparen'
  | 'lbracket'
  | 'rbracket'
  | 'star'
  | 'arrow'
  | 'minus'
  | 'op'
  | 'eof';

export interface Token {
  readonly type: TokenType;
  /** Source text (for strings: without the quotes). */
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

const WORD_START = /[A-Za-z_^]/;
const WORD_PART = /[A-Za-z0-9_]/;
const ALNUM = /[A-Za-z0-9^]/;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const col = () => i - lineStart + 1;
  const fail = (expected: string, found: string): never => {
    throw new FkDslSyntaxError(line, col(), expected, found, source);
  };
  const push = (type: TokenType, text: string, startLine: number, startColumn: number) =>
    tokens.push({ type, text, line: startLine, column: startColumn });

  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // Comments: -- line, // line, # line, /* block */.
    if ((c === '-' && next === '-') || (c === '/' && next === '/') || c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const startLine = line;
      const startColumn = col();
      i += 2;
      while (i < source.length && !(source[i] === '*' && source[i + 1] === '/')) {
        if (source[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= source.length)
        throw new FkDslSyntaxError(
          startLine,
          startColumn,
          'the end of the comment (*/)',
          'the end of the query',
          source,
        );
      i += 2;
      continue;
    }
    const startLine = line;
    const startColumn = col();
    if (WORD_START.test(c)) {
      let j = i + 1;
      for (;;) {
        const d = source[j];
        if (d !== undefined && WORD_PART.test(d)) j++;
        // Joiners inside symbols: BRK.B, BTC-USD, BTC/USDT; `=X` only as the fx suffix.
        else if ((d === '.' || d === '-' || d === '/') && ALNUM.test(source[j + 1] ?? '')) j += 2;
        else if (
          d === '=' &&
          (source[j + 1] === 'X' || source[j + 1] === 'x') &&
          !WORD_PART.test(source[j + 2] ?? '')
        )
          j += 2;
        else break;
      }
      push('word', source.slice(i, j), startLine, startColumn);
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      let j = i;
      while (/[0-9]/.test(source[j] ?? '')) j++;
      if (source[j] === '.' && /[0-9]/.test(source[j + 1] ?? '')) {
        j++;
        while (/[0-9]/.test(source[j] ?? '')) j++;
      }
      const exponent = /^[eE][+-]?[0-9]+/.exec(source.slice(j));
      if (exponent) j += exponent[0].length;
      const unit = source[j];
      if (unit && /[hdwmyHDWMY]/.test(unit) && !WORD_PART.test(source[j + 1] ?? '')) {
        push('duration', source.slice(i, j + 1), startLine, startColumn);
        i = j + 1;
        continue;
      }
      if (WORD_PART.test(source[j] ?? ''))
        fail('a number or a duration like 30d', JSON.stringify(source.slice(i, j + 1)));
      push('number', source.slice(i, j), startLine, startColumn);
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = source.indexOf(c, i + 1);
      const newline = source.indexOf('\n', i + 1);
      if (end === -1 || (newline !== -1 && newline < end)) fail(`a closing ${c}`, 'the end of the line');
      push('string', source.slice(i + 1, end), startLine, startColumn);
      i = end + 1;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '->') {
      push('arrow', two, startLine, startColumn);
      i += 2;
      continue;
    }
    if (two === '>=' || two === '<=' || two === '!=' || two === '<>' || two === '==') {
      push('op', two === '<>' ? '!=' : two === '==' ? '=' : two, startLine, startColumn);
      i += 2;
      continue;
    }
    const single: Partial<Record<string, TokenType>> = {
      ':': 'colon',
      ',': 'comma',
      ';': 'semicolon',
      '(': 'lparen',
      ')': 'rparen',
      '[': 'lbracket',
      ']': 'rbracket',
      '*': 'star',
      '%': 'percent',
      '-': 'minus',
      '>': 'op',
      '<': 'op',
      '=': 'op',
    };
    const type = single[c];
    if (!type) fail('a symbol, keyword, number or punctuation', JSON.stringify(c));
    push(type!, c, startLine, startColumn);
    i++;
  }
  tokens.push({ type: 'eof', text: '', line, column: col() });
  return tokens;
}
