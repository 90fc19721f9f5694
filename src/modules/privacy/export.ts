import { Readable } from 'node:stream';
import type { Executor } from '../../db/database.js';
import type { DataSubject, ExportKey, PrivacyDeclaration } from '../../privacy/declaration.js';

export const EXPORT_FORMAT = 'reservation-service.privacy-export';
/** Rows per query: big enough to amortise a round trip, small enough to keep memory flat. */
export const EXPORT_BATCH_ROWS = 1000;
/** Characters per piece of output (at most 32 KiB even as two-byte text). */
const CHUNK_CHARS = 16 * 1024;

/**
 * The export as JSON text, produced piece by piece:
 * `{"format", "version", "generatedAt", "userId", "sections": {name: {module, table,
 * category}}, "data": {name: [records...]}}`.
 *
 * Each section is read in keyset batches (one short query each) rather than through one
 * long-lived database cursor: on SQLite a cursor would hold the single connection (and
 * every other request with it) for as long as the client takes to download, and
 * Kysely's PostgreSQL streaming needs pg-cursor, which this project does not carry.
 * The generator only runs when the consumer asks for more, so a slow client slows the
 * reads down instead of filling memory. There is no snapshot across batches: a row
 * changed during the download appears as it was when its batch was read.
 */
export async function* exportDocument(
  db: Executor,
  declarations: readonly PrivacyDeclaration[],
  subject: DataSubject,
  generatedAt: string,
  batchRows = EXPORT_BATCH_ROWS,
): AsyncGenerator<string> {
  const sections = declarations.flatMap((declaration) =>
    declaration.exports.map((section) => {
      const table = declaration.tables[section.table];
      return {
        section,
        about: {
          module: declaration.module,
          table: section.table,
          category: table && table.kind !== 'none' ? table.category : null,
        },
      };
    }),
  );
  const about = Object.fromEntries(sections.map(({ section, about }) => [section.name, about]));
  yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"version":1,"generatedAt":${JSON.stringify(generatedAt)},"userId":${subject.userId},"sections":${JSON.stringify(about)},"data":{`;
  let firstSection = true;
  let text = '';
  for (const { section } of sections) {
    text += `${firstSection ? '' : ','}${JSON.stringify(section.name)}:[`;
    firstSection = false;
    let after: ExportKey | null = null;
    let firstRow = true;
    do {
      const { records, next } = await section.batch(db, subject, after, batchRows);
      for (const record of records) {
        text += (firstRow ? '' : ',') + JSON.stringify(record);
        firstRow = false;
        // Small pieces: a string over V8's regular object size is born in the old generation
        // and lingers until a full collection, so big chunks would pile up as garbage.
        if (text.length >= CHUNK_CHARS) {
          yield text;
          text = '';
        }
      }
      after = next;
      // Let other requests in between batches: better-sqlite3 answers synchronously, so
      // without this a fast reader would keep the event loop to itself until the end.
      await new Promise((resolve) => setImmediate(resolve));
    } while (after);
    text += ']';
  }
  yield `${text}}}`;
}

/** The document as a byte stream with a bounded buffer: it pulls the generator only on demand. */
export function exportStream(chunks: AsyncGenerator<string>): Readable {
  return Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 });
}
