import { type Attributes, context, type Span, SpanKind, trace } from '@opentelemetry/api';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
} from '@opentelemetry/semantic-conventions';
import { activeTracer, failSpan } from '../lib/tracing.js';

/** The older name of `db.system.name`, which many trace back ends still group by. */
const ATTR_DB_SYSTEM = 'db.system';
/** Statement texts whose span name and attributes are kept (the hot paths repeat a few dozen). */
const SHAPES_MAX = 2_000;

interface QueryShape {
  name: string;
  /** The span's options, one object a shape: the SDK copies the attributes into each span. */
  options: { kind: SpanKind; attributes: Attributes };
}

/** A statement's shape, or null for one that gets no span (see `UNTRACED`). */
const shapes = new Map<string, QueryShape | null>();

/**
 * Savepoint bookkeeping: the group commit (src/db/group-commit.ts) wraps each member in one, two
 * statements a booking that would be a third of its spans and tell a reader nothing; a member
 * that fails still shows (its `ROLLBACK TO` is traced, and its request span fails).
 */
const UNTRACED = new Set(['SAVEPOINT', 'RELEASE']);

/** The statement after a `with` list: the first keyword following a closing parenthesis. */
const MAIN_AFTER_WITH = /\)\s*(select|insert|update|delete|merge)\b/i;
const FIRST_WORD = /^\s*\(?\s*([a-z]+)/i;
/** The first table named (semantic conventions: "the first collection name found"), quoted or not. */
const FIRST_TABLE = /\b(?:from|into|update|join)\s+(?:"?[a-z_][\w$]*"?\.)?"?([a-z_][\w$]*)"?/i;

/**
 * A statement's span name and attributes from its text alone: the operation (`SELECT`, `INSERT`;
 * a `with` query's main statement) and the first table. Never a parameter: they travel apart
 * from the text, and the text itself is not recorded (a raw statement could carry a literal).
 */
function shapeOf(system: 'postgresql' | 'sqlite', sql: string): QueryShape | null {
  const known = shapes.get(sql);
  if (known !== undefined) return known;
  let operation = FIRST_WORD.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  if (operation === 'WITH') operation = MAIN_AFTER_WITH.exec(sql)?.[1]?.toUpperCase() ?? operation;
  if (UNTRACED.has(operation)) return remember(sql, null);
  const table = /^(SELECT|INSERT|UPDATE|DELETE|MERGE)$/.test(operation)
    ? FIRST_TABLE.exec(sql)?.[1]
    : undefined;
  const shape: QueryShape = {
    name: table ? `${operation} ${table}` : operation,
    options: {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_DB_SYSTEM_NAME]: system,
        [ATTR_DB_SYSTEM]: system,
        [ATTR_DB_OPERATION_NAME]: operation,
        ...(table ? { [ATTR_DB_COLLECTION_NAME]: table } : {}),
      },
    },
  };
  return remember(sql, shape);
}

function remember(sql: string, shape: QueryShape | null): QueryShape | null {
  if (shapes.size >= SHAPES_MAX) shapes.clear();
  shapes.set(sql, shape);
  return shape;
}

/**
 * A client span for one statement about to run, or undefined: without tracing, outside any
 * traced work (a request, a tool call, a job), where the job queue's polling and the outbox's
 * watch would each make a trace of one statement every few milliseconds, and for savepoints.
 */
export function startQuerySpan(system: 'postgresql' | 'sqlite', statement: unknown): Span | undefined {
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  const sql = typeof statement === 'string' ? statement : (statement as { text?: unknown } | null)?.text;
  const shape = shapeOf(system, typeof sql === 'string' ? sql : '');
  if (!shape) return undefined;
  return tracer.startSpan(shape.name, shape.options, parent);
}

/** Ends a statement's span; `error`: how it failed. */
export function endQuerySpan(span: Span, error?: unknown): void {
  if (error !== undefined && error !== null) failSpan(span, error);
  span.end();
}

/** Runs one synchronous statement (better-sqlite3) in its span, if it gets one. */
export function runTraced<T>(span: Span, run: () => T): T {
  try {
    const result = run();
    endQuerySpan(span);
    return result;
  } catch (error) {
    endQuerySpan(span, error);
    throw error;
  }
}
