import type { FastifyError, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';
import { controlCharacterIssues } from '../lib/control-characters.js';
import { toDomainError } from './errors.js';

/** Fails with one issue per string that holds a control character, each at its own path. */
const plainText = z.unknown().superRefine((value, context) => {
  for (const { path, message } of controlCharacterIssues(value)) {
    context.addIssue({ code: 'custom', path, message });
  }
});

/** The failures the text rule produced (Fastify attaches them as `validation` of the request's error). */
const textRuleFailures = new WeakSet<object>();

/**
 * The validator of every route's params, query string and body: the one rule for text
 * (lib/control-characters.ts) first, then the route's own Zod schema. A failure of either
 * is the same Zod validation error, so the error handler answers 400 VALIDATION_FAILED
 * with a path; a route that takes its failures itself (`attachValidation`) throws this one
 * with `refuseControlCharacters`. Headers need no check: Node refuses control characters in them.
 */
export const validatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = zodValidatorCompiler(route);
  if (route.httpPart === 'headers') return validate;
  const refuse = zodValidatorCompiler({ ...route, schema: plainText });
  return (data) => {
    if (controlCharacterIssues(data).length === 0) return validate(data);
    const refused = refuse(data);
    // The zod validator answers synchronously, and `plainText` fails here: `{error: issues}`.
    const { error } = refused as { error?: object };
    if (error) textRuleFailures.add(error);
    return refused;
  };
};

/**
 * For a route that takes its own validation failures (`attachValidation`) because it names
 * the faulty parameter itself: throws the text rule's failure, the same VALIDATION_FAILED
 * every other route answers, and leaves any other failure to the route. So text with a
 * control character never reaches a lookup there either.
 */
export function refuseControlCharacters(request: FastifyRequest): void {
  const failure = request.validationError as (FastifyError & { validation?: unknown }) | undefined;
  if (failure && typeof failure.validation === 'object' && textRuleFailures.has(failure.validation as object))
    throw toDomainError(failure);
}
