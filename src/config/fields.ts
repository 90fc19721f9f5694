import { z } from 'zod';

/** A bad environment: the message names the variable, for one line on the console. */
export class ConfigError extends Error {}

/** The error for variable `name`, worded as every configuration failure is. */
export const invalidVariable = (name: string, reason: string) =>
  new ConfigError(`Invalid environment variable ${name}: ${reason}`);

/** A whole number more than zero. */
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Whole seconds, more than zero. */
export const seconds = positiveInt;

/** An http(s) URL without its trailing slashes. */
export const absoluteUrl = z.url({ protocol: /^https?$/ }).transform((value) => value.replace(/\/+$/, ''));
