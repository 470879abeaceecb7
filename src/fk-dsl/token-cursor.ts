import { FkDslSyntaxError } from './errors.ts';
import { type Token, type TokenType, tokenize } from './lexer.ts';

/**
 * The parser's view of a query's tokens: the next one, taking it, taking it only when it is of a
 * kind or a keyword (case-insensitive), and the syntax error that names what was expected, where,
 * and what was found instead.
 */
export class TokenCursor {
  readonly #tokens: Token[];
  #i = 0;

  constructor(private readonly source: string) {
    this.#tokens = tokenize(source);
  }

  peek(): Token {
    return this.#tokens[this.#i]!;
  }

  next(): Token {
    const token = this.#tokens[this.#i]!;
    if (token.type !== 'eof') this.#i++;
    return token;
  }

  accept(type: TokenType): boolean {
    if (this.peek().type !== type) return false;
    this.next();
    return true;
  }

  expect(type: TokenType, expected: string): Token {
    const token = this.peek();
    if (token.type !== type) this.fail(token, expected);
    return this.next();
  }

  isKeyword(token: Token, keyword: string): boolean {
    return token.type === 'word' && token.text.toUpperCase() === keyword;
  }

  acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.next();
    return true;
  }

  expectKeyword(keyword: string, expected: string): void {
    if (!this.acceptKeyword(keyword)) this.fail(this.peek(), expected);
  }

  fail(token: Token, expected: string): never {
    throw new FkDslSyntaxError(token.line, token.column, expected, describe(token), this.source);
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case 'eof':
      return 'the end of the query';
    case 'string':
      return `"${token.text}"`;
    case 'word':
    case 'number':
    case 'duration':
      return `'${token.text}'`;
    default:
      return `'${token.text}'`;
  }
}
