import type { z } from 'zod';

/** A prompt's arguments: each a zod schema over the string MCP sends, with its description. */
export type PromptArguments = Readonly<Record<string, z.ZodType>>;

/**
 * An MCP prompt brought by a domain (see ModuleDefinition.prompts): a named job ("analyse a
 * symbol") whose arguments fill in a message that tells an agent which of Vigil's tools to call,
 * in which order and with which arguments. MCP sends every prompt argument as a string; each is a
 * zod schema over that string (optional ones accept `undefined`), with a description.
 */
export interface McpPrompt<Shape extends PromptArguments = PromptArguments> {
  /** Kebab-case, like the tools' names. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: Shape;
  /** Every tool the message names: the server refuses to start when one of them is not served. */
  readonly tools: readonly string[];
  /** The message, from the validated arguments. */
  text(args: z.output<z.ZodObject<Shape>>): string;
}

/** Checks a prompt's shape where it is written, and erases its argument types for the module list. */
export function definePrompt<Shape extends PromptArguments>(prompt: McpPrompt<Shape>): McpPrompt {
  return prompt as unknown as McpPrompt;
}

/**
 * Refuses prompts an app cannot serve: two of one name, or one naming a tool that is not served (a
 * renamed tool cannot leave a prompt that sends agents to a tool that does not exist). The app
 * runs it when it is built, before the MCP SDK is loaded.
 */
export function checkPrompts(prompts: readonly McpPrompt[], toolNames: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const prompt of prompts) {
    if (seen.has(prompt.name)) throw new Error(`two MCP prompts are named ${prompt.name}`);
    seen.add(prompt.name);
    const missing = prompt.tools.filter((tool) => !toolNames.has(tool));
    if (missing.length > 0)
      throw new Error(`MCP prompt ${prompt.name} names tools that are not served: ${missing.join(', ')}`);
  }
}
