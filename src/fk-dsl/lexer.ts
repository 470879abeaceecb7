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

/** Punctuation and one-character operators, by their character. */
const SINGLE: Partial<Record<string, TokenType>> = {
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

export function tokenize(source: string): Token[] {
  return new Lexer(source).tokens();
}

/** One pass over a query: whitespace and comments skipped, lines and columns counted. */
class Lexer {
  readonly #source: string;
  readonly #tokens: Token[] = [];
  #i = 0;
  #line = 1;
  #lineStart = 0;

  constructor(source: string) {
    this.#source = source;
  }

  tokens(): Token[] {
    const source = this.#source;
    while (this.#i < source.length) {
      if (this.#skipTrivia()) continue;
      const c = source[this.#i]!;
      const at = { line: this.#line, column: this.#col() };
      if (WORD_START.test(c)) this.#word(at);
      else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[this.#i + 1] ?? ''))) this.#number(at);
      else if (c === '"' || c === "'") this.#string(c, at);
      else this.#punctuation(c, at);
    }
    this.#tokens.push({ type: 'eof', text: '', line: this.#line, column: this.#col() });
    return this.#tokens;
  }

  #col(): number {
    return this.#i - this.#lineStart + 1;
  }

  #fail(expected: string, found: string): never {
    throw new FkDslSyntaxError(this.#line, this.#col(), expected, found, this.#source);
  }

  #push(type: TokenType, text: string, at: { line: number; column: number }): void {
    this.#tokens.push({ type, text, line: at.line, column: at.column });
  }

  /** Skips one run of whitespace, a newline or a comment; false when the next character starts a token. */
  #skipTrivia(): boolean {
    const source = this.#source;
    const c = source[this.#i]!;
    const next = source[this.#i + 1];
    if (c === '\n') {
      this.#i++;
      this.#line++;
      this.#lineStart = this.#i;
      return true;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      this.#i++;
      return true;
    }
    // Comments: -- line, // line, # line, /* block */.
    if ((c === '-' && next === '-') || (c === '/' && next === '/') || c === '#') {
      while (this.#i < source.length && source[this.#i] !== '\n') this.#i++;
      return true;
    }
    if (c === '/' && next === '*') {
      this.#blockComment();
      return true;
    }
    return false;
  }

  #blockComment(): void {
    const source = this.#source;
    const startLine = this.#line;
    const startColumn = this.#col();
    this.#i += 2;
    while (this.#i < source.length && !(source[this.#i] === '*' && source[this.#i + 1] === '/')) {
      if (source[this.#i] === '\n') {
        this.#line++;
        this.#lineStart = this.#i + 1;
      }
      this.#i++;
    }
    if (this.#i >= source.length) {
      throw new FkDslSyntaxError(
        startLine,
        startColumn,
        'the end of the comment (*/)',
        'the end of the query',
        source,
      );
    }
    this.#i += 2;
  }

  #word(at: { line: number; column: number }): void {
    const source = this.#source;
    let j = this.#i + 1;
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
    this.#push('word', source.slice(this.#i, j), at);
    this.#i = j;
  }

  /** A number (digits, a fraction, an exponent), or a duration when a unit letter ends it (30d). */
  #number(at: { line: number; column: number }): void {
    const source = this.#source;
    const i = this.#i;
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
      this.#push('duration', source.slice(i, j + 1), at);
      this.#i = j + 1;
      return;
    }
    if (WORD_PART.test(source[j] ?? '')) {
      this.#fail('a number or a duration like 30d', JSON.stringify(source.slice(i, j + 1)));
    }
    this.#push('number', source.slice(i, j), at);
    this.#i = j;
  }

  #string(quote: string, at: { line: number; column: number }): void {
    const source = this.#source;
    const end = source.indexOf(quote, this.#i + 1);
    const newline = source.indexOf('\n', this.#i + 1);
    if (end === -1 || (newline !== -1 && newline < end))
      this.#fail(`a closing ${quote}`, 'the end of the line');
    this.#push('string', source.slice(this.#i + 1, end), at);
    this.#i = end + 1;
  }

  #punctuation(c: string, at: { line: number; column: number }): void {
    const two = this.#source.slice(this.#i, this.#i + 2);
    if (two === '->') {
      this.#push('arrow', two, at);
      this.#i += 2;
      return;
    }
    if (two === '>=' || two === '<=' || two === '!=' || two === '<>' || two === '==') {
      this.#push('op', two === '<>' ? '!=' : two === '==' ? '=' : two, at);
      this.#i += 2;
      return;
    }
    const type = SINGLE[c];
    if (!type) this.#fail('a symbol, keyword, number or punctuation', JSON.stringify(c));
    this.#push(type!, c, at);
    this.#i++;
  }
}
